"""Text from a collection as it may be shown: invisible format characters made visible.

A right-to-left override (U+202E) turns `\u202egnp.exe` into what reads as `exe.png`; zero-width and other
format characters (Unicode category Cf) hide or reorder text the same way. Every place that shows a name, a
trait or a description (the page, the review sheet, the audit report, the terminal) passes it through
`shown_text`, which writes each such character as `[U+XXXX]`. The joiners U+200C/U+200D stay: scripts and
emoji need them, and they reorder nothing.
"""

from __future__ import annotations

import html
import unicodedata
from typing import Any

_KEPT = frozenset("\u200c\u200d")


def shown_text(text: str) -> str:
    if text.isascii():
        return text
    return "".join(f"[U+{ord(c):04X}]" if c not in _KEPT and unicodedata.category(c) == "Cf" else c for c in text)


def shown(value: Any) -> Any:
    """`shown_text` for a string; anything else (a number trait) unchanged."""
    return shown_text(value) if isinstance(value, str) else value


def shown_html(text: Any) -> str:
    """HTML-escaped `shown_text`: what the review sheet and the audit report put in their pages."""
    return html.escape(shown_text(str(text)), quote=True)
