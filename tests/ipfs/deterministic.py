"""kubo's deterministic test inputs (test/cli/testutils/random_deterministic.go, test/cli/add_test.go).

The stream is ChaCha20 with key = sha256(seed), a 12-byte zero nonce and counter 0; pycryptodome
(already required by web3 through eth-keyfile) gives the same keystream.
"""

from __future__ import annotations

import hashlib

from Crypto.Cipher import ChaCha20

NAME_ALPHABET = "abcdefghijklmnopqrstuvwxyz01234567890-_"  # kubo's AlphabetEasy, duplicate '0' included


def deterministic_bytes(seed: str, size: int) -> bytes:
    return ChaCha20.new(key=hashlib.sha256(seed.encode()).digest(), nonce=bytes(12)).encrypt(bytes(size))


def deterministic_names(seed: str, count: int, length: int, last_length: int) -> list[str]:
    """createDeterministicFiles' names: one stream, `length` bytes per name (the last `last_length`)."""
    stream = deterministic_bytes(seed, length * (count - 1) + last_length)
    names, position = [], 0
    for index in range(count):
        size = last_length if index == count - 1 else length
        names.append("".join(NAME_ALPHABET[b % len(NAME_ALPHABET)] for b in stream[position : position + size]))
        position += size
    return names
