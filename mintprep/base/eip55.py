"""EIP-55 mixed-case checksum addresses (https://eips.ethereum.org/EIPS/eip-55) with eth-hash's keccak alone.

Every command reads `chain.contract` when it loads the collection file; eth_utils takes about half a second to
import, eth-hash a tenth of that.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

HEX_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}", re.ASCII)


def to_checksum_address(address: str) -> str:
    """`address` (0x and 40 hex digits, any case) with each letter upper-cased where the keccak of the lower-case
    digits has a nibble of 8 or more."""
    if not HEX_ADDRESS.fullmatch(address):
        raise ValueError(f"not a 0x-prefixed 20-byte hex address: {address!r}")
    from eth_hash.auto import keccak  # only a collection with an address pays for it

    digits = address[2:].lower()
    nibbles = keccak(digits.encode("ascii")).hex()
    return "0x" + "".join(d.upper() if int(n, 16) >= 8 else d for d, n in zip(digits, nibbles))


def has_valid_checksum(address: str) -> bool:
    """All lower or all upper case carries no checksum; mixed case must be exactly the EIP-55 spelling."""
    digits = address[2:]
    return digits in (digits.lower(), digits.upper()) or to_checksum_address(address) == address


def checksum_digits(lower: np.ndarray) -> np.ndarray:
    """(n, 40) uint8 lower-case ASCII hex digits -> the same digits as EIP-55 spells them, the whole list hashed at
    once (base.keccak_batch): a million addresses in about a second, where one call each takes a minute."""
    import numpy as np

    from mintprep.base.keccak_batch import keccak256_many

    digest = keccak256_many(lower)[:, :20]
    nibbles = np.empty_like(lower)
    nibbles[:, 0::2] = digest >> 4
    nibbles[:, 1::2] = digest & 0x0F
    return lower - ((lower >= ord("a")) & (nibbles >= 8)).astype(np.uint8) * 32
