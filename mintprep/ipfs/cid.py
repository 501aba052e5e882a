"""CIDs and the multiformats they are made of: unsigned varints, sha2-256 multihashes, base32/base58btc.

Only what kubo's importer produces is supported: sha2-256, codecs dag-pb and raw, CIDv0 and CIDv1; and identity
CIDs (multihash 0x00), whose "digest" is the block itself, inline, as kubo's `--inline` makes for tiny blocks.
A CID is parsed strictly so a typo in a config or a backend answer is an error, never another CID.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cached_property

from mintprep.base import UserError

DAG_PB = 0x70
RAW = 0x55
SHA2_256 = 0x12
IDENTITY = 0x00
MAX_IDENTITY_BYTES = 128  # boxo's verifcid.DefaultMaxIdentityDigestSize: a longer inline block is refused
CODEC_NAMES = {DAG_PB: "dag-pb", RAW: "raw"}

_B58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_INDEX = {c: i for i, c in enumerate(_B58_ALPHABET)}
# RFC 4648 base32, lower case and unpadded as multibase's `b` writes it; converted through Python's C integer
# parsing (its base-32 digits 0-9a-v) rather than base64's per-5-byte loop, 5-10x faster per CID: an audit of
# 10,000 pieces parses and prints tens of thousands of them.
_B32_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
_B32_TO_INT_DIGITS = str.maketrans(_B32_ALPHABET, "0123456789abcdefghijklmnopqrstuv")
_B32_PAIRS = [a + b for a in _B32_ALPHABET for b in _B32_ALPHABET]  # 10 bits -> two characters
_B32_TEXT = re.compile(r"[a-z2-7]*")
_V1_PREFIXES = {bytes((1, codec, SHA2_256, 32)) for codec in CODEC_NAMES}  # one-byte varints: read at a glance


def encode_varint(value: int) -> bytes:
    if value < 0:
        raise ValueError("varints are unsigned")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode_varint(data: bytes | memoryview, offset: int = 0) -> tuple[int, int]:
    """Return (value, offset just past it); raise ValueError on a truncated or over-long varint."""
    if offset < len(data) and data[offset] < 0x80:  # one byte: most keys, lengths and codecs (the HAMT listing's hot path)
        return data[offset], offset + 1
    value = shift = 0
    for position in range(offset, min(len(data), offset + 10)):
        byte = data[position]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position + 1
        shift += 7
    raise ValueError(f"truncated or over-long varint at byte {offset}")


def b32encode(data: bytes) -> str:
    """RFC 4648 base32 of `data`, lower case, without padding."""
    bits = len(data) * 8
    chars = -(-bits // 5)
    number = int.from_bytes(data, "big") << (chars * 5 - bits)
    if chars % 2:
        number <<= 5  # an even count of characters, so every step takes two; the extra one is dropped
    pairs = [_B32_PAIRS[(number >> shift) & 0x3FF] for shift in range((chars + chars % 2) * 5 - 10, -1, -10)]
    return "".join(pairs)[:chars]


def b32decode(text: str) -> bytes:
    """The bytes of unpadded RFC 4648 base32 (either case); ValueError for another character or an impossible
    length."""
    text = text.lower()
    if not _B32_TEXT.fullmatch(text):
        raise ValueError("not base32 (RFC 4648: a-z, 2-7)")
    size, spare = divmod(len(text) * 5, 8)
    if spare >= 5:
        raise ValueError(f"{len(text)} base32 characters cannot encode whole bytes")
    number = int(text.translate(_B32_TO_INT_DIGITS), 32) if text else 0
    return (number >> spare).to_bytes(size, "big")


def b58encode(data: bytes) -> str:
    number = int.from_bytes(data, "big")
    digits = []
    while number:
        number, rest = divmod(number, 58)
        digits.append(_B58_ALPHABET[rest])
    leading_zeros = len(data) - len(data.lstrip(b"\0"))
    return "1" * leading_zeros + "".join(reversed(digits))


def b58decode(text: str) -> bytes:
    number = 0
    for char in text:
        if char not in _B58_INDEX:
            raise ValueError(f"{char!r} is not a base58btc character")
        number = number * 58 + _B58_INDEX[char]
    leading_zeros = len(text) - len(text.lstrip("1"))
    body = number.to_bytes((number.bit_length() + 7) // 8, "big") if number else b""
    return b"\0" * leading_zeros + body


@dataclass(frozen=True, order=True)
class CID:
    """A content identifier: version, codec, and the sha2-256 digest of the block it names."""

    version: int
    codec: int
    digest: bytes
    hash_code: int = SHA2_256  # IDENTITY: `digest` is the block's bytes

    def __post_init__(self) -> None:
        if self.version not in (0, 1):
            raise ValueError(f"unsupported CID version {self.version}")
        if self.version == 0 and self.codec != DAG_PB:
            raise ValueError("CIDv0 can only name dag-pb blocks")
        if self.codec not in CODEC_NAMES:
            raise ValueError(f"unsupported codec 0x{self.codec:x}")
        if self.hash_code == IDENTITY:
            if self.version == 0 or len(self.digest) > MAX_IDENTITY_BYTES:
                raise ValueError(f"an identity CID is a CIDv1 of at most {MAX_IDENTITY_BYTES} bytes")
        elif self.hash_code != SHA2_256 or len(self.digest) != 32:
            raise ValueError("a sha2-256 digest is 32 bytes")

    @classmethod
    def for_block(cls, data: bytes | memoryview, *, version: int, codec: int) -> CID:
        """The CID of `data`; raw blocks are always v1, as go-cid's Prefix.WithCodec(raw) makes them."""
        if codec == RAW:
            version = 1
        return cls(version, codec, hashlib.sha256(data).digest())

    @property
    def multihash(self) -> bytes:
        return encode_varint(self.hash_code) + encode_varint(len(self.digest)) + self.digest

    @property
    def inline(self) -> bytes | None:
        """The block an identity CID holds in itself (never fetched), else None."""
        return self.digest if self.hash_code == IDENTITY else None

    def __bytes__(self) -> bytes:
        if self.version == 0:
            return self.multihash
        return encode_varint(1) + encode_varint(self.codec) + self.multihash

    def __str__(self) -> str:
        return self.text

    @cached_property
    def text(self) -> str:
        """The CID's string (kept: audits and stores print the same CID many times)."""
        if self.version == 0:
            return b58encode(self.multihash)
        return "b" + b32encode(bytes(self))

    def __repr__(self) -> str:
        return f"CID({self})"

    @cached_property
    def multihash_key(self) -> str:
        """The name a block store files this block under: same bytes, same key, whatever the CID version."""
        return b32encode(self.multihash)

    def matches(self, data: bytes | memoryview) -> bool:
        if self.hash_code == IDENTITY:
            return bytes(data) == self.digest
        return hashlib.sha256(data).digest() == self.digest

    @classmethod
    def from_bytes(cls, data: bytes | memoryview) -> CID:
        cid, end = cls.read_prefix(data, 0)
        if end != len(data):
            raise ValueError("trailing bytes after CID")
        return cid

    @classmethod
    def read_prefix(cls, data: bytes | memoryview, offset: int) -> tuple[CID, int]:
        """Parse a binary CID starting at `offset`; return it and the offset just past it."""
        if data[offset : offset + 2] == bytes((SHA2_256, 32)):
            end = offset + 34
            if end > len(data):
                raise ValueError("truncated CIDv0")
            return cls(0, DAG_PB, bytes(data[offset + 2 : end])), end
        if bytes(data[offset : offset + 4]) in _V1_PREFIXES and offset + 36 <= len(data):  # all kubo makes
            return cls(1, data[offset + 1], bytes(data[offset + 4 : offset + 36])), offset + 36
        version, pos = decode_varint(data, offset)
        codec, pos = decode_varint(data, pos)
        hash_code, pos = decode_varint(data, pos)
        length, pos = decode_varint(data, pos)
        if version == 1 and hash_code == IDENTITY and length <= MAX_IDENTITY_BYTES and pos + length <= len(data):
            return cls(1, codec, bytes(data[pos : pos + length]), IDENTITY), pos + length
        if version != 1 or hash_code != SHA2_256 or length != 32 or pos + 32 > len(data):
            raise ValueError("not a CIDv1 with a sha2-256 multihash")
        return cls(1, codec, bytes(data[pos : pos + 32])), pos + 32

    @classmethod
    def parse(cls, text: str) -> CID:
        """Parse a CID string (Qm… base58btc v0 or b… base32 v1); raise UserError naming it if invalid."""
        try:
            if text.startswith("Qm") and len(text) == 46:
                return cls.from_bytes(b58decode(text))
            if text.startswith("b"):
                cid = cls.from_bytes(b32decode(text[1:]))
                if text.islower():  # as `str` writes it: kept, not written again
                    cid.__dict__["text"] = text
                return cid
        except ValueError as exc:
            raise UserError(f"invalid CID {text!r}: {exc}") from None
        raise UserError(f"invalid CID {text!r}: expected a CIDv0 (Qm…) or a base32 CIDv1 (b…)")

    def to_v1(self) -> CID:
        return CID(1, self.codec, self.digest, self.hash_code)


def as_cid(value: CID | str) -> CID:
    return value if isinstance(value, CID) else CID.parse(value)
