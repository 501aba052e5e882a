"""The entries of an allowlist file: each listed address's line number and hex digits as written, in file order.

The file is a CSV whose first field is the address, `#` starting a comment, blank lines and a leading `address`
header skipped. A million lines are scanned as arrays: a line that is exactly an address (bare or in quotes,
alone or before a comma) is read by numpy, and only the other lines (the header, comments, blanks, stray spaces,
mistakes) go through Python's csv module one by one. A file where one line could hold part of another's record
(a quoted field across a line break, a lone CR, a NUL) is read by the csv module whole, with the same result.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Iterable

import numpy as np

_ADDRESS = re.compile(r"0[xX][0-9a-fA-F]{40}")
_BOM = b"\xef\xbb\xbf"
_HEX_ASCII = np.zeros(256, dtype=bool)
_HEX_ASCII[list(b"0123456789abcdefABCDEF")] = True
_WINDOW = 45  # a quoted address, its closing quote and the byte after it


@dataclass(frozen=True)
class Listing:
    numbers: np.ndarray  # (n,) int64: the line of each address, ascending
    digits: np.ndarray  # (n, 40) uint8: its 40 hex digits as written (ASCII, either case)
    problem: tuple[int, str] | None  # the first line that is not an address, and what to say about it


def scan(data: bytes, text: str, source: str) -> Listing:
    """`data` decoded is `text` (UTF-8, BOM dropped); problems are worded starting with `source`."""
    return _scan_lines(data, source) or _scan_csv(text, source)


def _entry(row: list[str]) -> str:
    return row[0].split("#", 1)[0].strip() if row else ""


def _not_address(source: str, number: int, entry: str) -> tuple[int, str]:
    return number, f"{source} line {number}: not an address: {entry[:60]!r}"


def _listing(numbers: list[int], entries: list[str], problem: tuple[int, str] | None) -> Listing:
    digits = np.frombuffer("".join(e[2:] for e in entries).encode("ascii"), dtype=np.uint8).reshape(-1, 40)
    return Listing(np.array(numbers, dtype=np.int64), digits, problem)


def _scan_rows(rows: Iterable[tuple[int, list[str] | csv.Error]], source: str, *, listed_before: int) -> Listing:
    """Rows (line number, CSV fields or the csv module's refusal) in order; the header is skipped while no
    address came before it (`listed_before`: the line of the first address found elsewhere)."""
    numbers: list[int] = []
    entries: list[str] = []
    for number, row in rows:
        if isinstance(row, csv.Error):
            return _listing(numbers, entries, (number, f"{source} line {number}: not CSV ({row})"))
        entry = _entry(row)
        if not entry or (number < listed_before and not numbers and entry.lower() == "address"):
            continue
        if not _ADDRESS.fullmatch(entry):
            return _listing(numbers, entries, _not_address(source, number, entry))
        numbers.append(number)
        entries.append(entry)
    return _listing(numbers, entries, None)


def _scan_csv(text: str, source: str) -> Listing:
    reader = csv.reader(io.StringIO(text, newline=""))

    def rows() -> Iterable[tuple[int, list[str] | csv.Error]]:
        try:
            for row in reader:
                yield reader.line_num, row
        except csv.Error as exc:
            yield reader.line_num, exc

    return _scan_rows(rows(), source, listed_before=2**62)


def _scan_lines(data: bytes, source: str) -> Listing | None:
    """The line-wise scan, or None when a record could span lines (then the csv module reads the whole file)."""
    if data.count(b"\r") != data.count(b"\r\n") or b"\x00" in data:
        return None
    body = np.frombuffer(data, dtype=np.uint8)[len(_BOM) if data.startswith(_BOM) else 0:]
    breaks = np.flatnonzero(body == ord("\n"))
    quotes = np.flatnonzero(body == ord('"'))
    if len(quotes) and (np.bincount(np.searchsorted(breaks, quotes), minlength=1) % 2).any():
        return None  # a line with an odd number of quotes: a quoted field goes on past its line break
    starts = np.concatenate([[0], breaks + 1])
    ends = np.concatenate([breaks, [len(body)]])
    ends -= (ends > starts) & (body[np.maximum(ends - 1, 0)] == ord("\r"))
    padded = np.concatenate([body, np.zeros(_WINDOW, dtype=np.uint8)])
    window = np.lib.stride_tricks.sliding_window_view(padded, _WINDOW)[starts]  # (lines, 45) copy
    quoted = window[:, 0] == ord('"')
    field = np.where(quoted[:, None], window[:, 1:], window[:, :-1]) if quoted.any() else window[:, :-1]  # unquoted
    width = np.where(quoted, 44, 42)  # the field's length as written
    after = window[np.arange(len(window)), width]
    length = ends - starts
    exact = ((field[:, 0] == ord("0")) & ((field[:, 1] | 0x20) == ord("x")) & _HEX_ASCII[field[:, 2:42]].all(axis=1)
             & (~quoted | (field[:, 42] == ord('"')))
             & ((length == width) | ((length > width) & (after == ord(",")))))
    fast = np.flatnonzero(exact)
    others = np.flatnonzero(~exact)
    first_fast = int(fast[0]) + 1 if len(fast) else 2**62
    rest = _scan_rows(((int(i) + 1, _csv_row(data, body, starts[i], ends[i])) for i in others), source,
                      listed_before=first_fast)
    if rest.problem:  # lines past the first problem do not matter
        fast = fast[fast + 1 < rest.problem[0]]
    numbers = np.concatenate([fast + 1, rest.numbers])
    digits = np.concatenate([field[fast, 2:42], rest.digits])
    order = np.argsort(numbers, kind="stable")
    return Listing(numbers[order], digits[order], rest.problem)


def _csv_row(data: bytes, body: np.ndarray, start: int, end: int) -> list[str] | csv.Error:
    offset = len(data) - len(body)
    try:
        return next(csv.reader([data[offset + start:offset + end].decode("utf-8")]), [])
    except csv.Error as exc:
        return exc
