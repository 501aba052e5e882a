"""The nesting scan that every untrusted JSON answer passes before the decoder (mintprep.base.untrusted_json): its
brackets inside strings are text, escapes included, and it holds about what the text weighs. Its string pattern
kept a backtracking mark per character: a contract's 25 KB eth_getCode answer peaked at 3.4 MiB in the scan, most
of a contract import's memory (tests/importing/test_import_streaming.py)."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from mintprep.base.untrusted_json import nesting_depth


@pytest.mark.parametrize("text, depth", [
    ('{"a": "[[["}', 1),
    (r'["a\"]]", [1]]', 2),
    (r'["\\", [[1]]]', 3),
    (r'[["\\\"[[", {"k": []}]]', 4),
    ('"abc', 0),
    ("[[[[", 4),
])
def test_brackets_in_strings_and_escapes_are_text(text: str, depth: int) -> None:
    assert nesting_depth(text) == depth


def test_a_long_string_is_scanned_in_about_what_it_weighs() -> None:
    answer = json.dumps({"jsonrpc": "2.0", "id": 1, "result": "0x" + "60" * 100_000})  # 200 KB of code
    tracemalloc.start()
    try:
        assert nesting_depth(answer) == 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(answer), f"{peak} bytes to scan {len(answer)}"
