"""JSON from elsewhere (a gateway's metadata, a service's answer, a keystore), parsed without trusting the
interpreter's recursion limit: importing eth-account (its py_ecc) raises that limit to 100,000 for the whole
process, and the C decoder then follows a 200,000-deep array down until the C stack overflows, a segmentation
fault (measured). So the nesting is measured first, by a scan that does not recurse, and a document nested past
the bound is refused before the decoder sees it."""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from mintprep.base.errors import TooDeep

MAX_DEPTH = 64  # far past any answer or document mintprep reads (ERC-721 metadata: 3 levels; JSON-RPC: 5)
# A string's brackets are text, not nesting: escapes removed first (a pair at a time), then what lies between two
# quotes. One pattern for both, `"(?:[^"\\]|\\.)*"`, kept a backtracking mark per character of a string: 134 bytes
# a character, 3.4 MiB to scan a contract's 25 KB eth_getCode answer (tracemalloc).
_ESCAPES = re.compile(r"\\.", re.DOTALL)
_STRINGS = re.compile(r'"[^"]*"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEPS = str.maketrans("[]{}", "\x02\x00\x02\x00")  # an opening bracket +1, a closing one -1 (after - 1)
# What `loads` raises for text it will not return: not JSON (a ValueError, UnicodeDecodeError included), or
# nested too deep.
NOT_JSON = (ValueError, TooDeep)


def nesting_depth(text: str) -> int:
    """How deep the arrays and objects of `text` nest (of valid JSON; of anything else, at least as deep as the
    decoder would go before it fails)."""
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", _ESCAPES.sub("", text)))
    if len(brackets) <= 1:
        return len(brackets)
    return max(accumulate(ord(step) - 1 for step in brackets.translate(_STEPS)))


def loads(data: bytes | str, max_depth: int = MAX_DEPTH, **options: Any) -> Any:
    """json.loads of UTF-8 JSON (RFC 8259; a byte-order mark allowed), after refusing (TooDeep) a document nested
    deeper than `max_depth`. Scanned as text, not bytes: in UTF-16 a quote's byte can sit inside another character,
    and the scan would lose track of which brackets are inside strings. UnicodeDecodeError for other encodings."""
    text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    if nesting_depth(text) > max_depth:
        raise TooDeep(f"JSON nested deeper than {max_depth} levels")
    return json.loads(text, **options)
