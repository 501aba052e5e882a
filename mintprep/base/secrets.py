"""Every secret mintprep holds, in one registry, and the one function that blanks them out of text it shows.

A secret is registered where it is read (an environment variable, a keystore, a password) before any
request that carries it is built: a server that echoes a form field, a URL quoted in an error, a
ledger row or a log line can then only show `***`. A prefix of a secret (six characters or more) is
blanked too, since messages are often cut (`text[:300]`), unless it is a plain word; and so are its URL-encoded
forms.
"""

from __future__ import annotations

import os
from typing import Callable, TextIO

from mintprep.base.visible_text import shown_text
from urllib.parse import quote, quote_plus

_SECRETS: set[str] = set()
MIN_SECRET_LENGTH = 6  # shorter values (and prefixes) would blank ordinary words out of messages
SHOWN = "***"


def register_secret(value: str) -> str:
    """Remember `value` (and its URL-encoded forms) so `scrub` removes it; returns it unchanged."""
    if len(value) >= MIN_SECRET_LENGTH:
        _SECRETS.update({value, quote(value, safe=""), quote_plus(value)})
    return value


def secret_from_env(name: str) -> str | None:
    """The stripped value of environment variable `name`, registered as a secret; None when unset or empty."""
    value = os.environ.get(name, "").strip()
    return register_secret(value) if value else None


def scrub(text: str) -> str:
    """`text` with every registered secret, and every start of one at least MIN_SECRET_LENGTH long, as ***."""
    spans = sorted(span for secret in _SECRETS for span in _occurrences(text, secret))
    if not spans:
        return text
    pieces, shown_up_to = [], 0
    for start, end in spans:  # overlapping spans (a secret and its URL-encoded form) become one ***
        if start >= shown_up_to:
            pieces += [text[shown_up_to:start], SHOWN]
        shown_up_to = max(shown_up_to, end)
    return "".join(pieces) + text[shown_up_to:]


def _occurrences(text: str, secret: str) -> list[tuple[int, int]]:
    """(start, end) of each run of `text` that begins `secret` for at least MIN_SECRET_LENGTH characters."""
    head, spans = secret[:MIN_SECRET_LENGTH], []
    start = 0
    while (at := text.find(head, start)) >= 0:
        end = at + MIN_SECRET_LENGTH
        while end - at < len(secret) and end < len(text) and text[end] == secret[end - at]:
            end += 1
        if end - at == len(secret) or _looks_random(text[at:end]):
            spans.append((at, end))
        start = end
    return spans


def _looks_random(part: str) -> bool:
    """Whether a cut-off start of a secret is worth blanking: a token's first characters almost always hold a
    digit, a symbol or both cases; a plain word (`gateway` from a key `gateway-token-…`) is left alone."""
    return not part.isalpha() or (part != part.lower() and part != part.upper())


class ScrubbingStream:
    """A text stream that scrubs what is written to it (and makes invisible format characters visible): the
    console, tracebacks and logs end here."""

    def __init__(self, stream_of: Callable[[], TextIO]) -> None:
        self._stream_of = stream_of  # a function, so a stream swapped later (pytest's capture) is followed

    def write(self, text: str) -> int:
        self._stream_of().write(shown_text(scrub(text)))
        return len(text)

    def flush(self) -> None:
        self._stream_of().flush()

    def isatty(self) -> bool:
        return bool(getattr(self._stream_of(), "isatty", lambda: False)())

    def fileno(self) -> int:
        return self._stream_of().fileno()

    @property
    def encoding(self) -> str:
        return getattr(self._stream_of(), "encoding", "utf-8")
