"""Keccak-256 of many short messages at once: numpy lanes, one array operation per step for every message.

A Merkle tree of a million addresses needs about four million hashes; one library call each costs more in
call overhead than in hashing. Here the Keccak-f[1600] permutation (FIPS 202 with Keccak's own 0x01 padding,
as Ethereum uses) runs on a (25, N) array of 64-bit lanes, so N hashes cost one pass of the 24 rounds.
Messages must fit one block (under 136 bytes): addresses, leaves and node pairs all do.
"""

from __future__ import annotations

import numpy as np

RATE = 136  # bytes absorbed per block for a 256-bit output
CHUNK = 1 << 15  # messages per pass: lanes that stay in the CPU cache
_ROUND_CONSTANTS = np.array([
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000, 0x000000000000808B,
    0x0000000080000001, 0x8000000080008081, 0x8000000000008009, 0x000000000000008A, 0x0000000000000088,
    0x0000000080008009, 0x000000008000000A, 0x000000008000808B, 0x800000000000008B, 0x8000000000008089,
    0x8000000000008003, 0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008], dtype=np.uint64)
# rho offsets r[x][y] for lane x + 5y, and pi: lane (x, y) moves to (y, 2x + 3y mod 5)
_ROTATIONS = [[0, 36, 3, 41, 18], [1, 44, 10, 45, 2], [62, 6, 43, 15, 61], [28, 55, 25, 21, 56], [27, 20, 39, 8, 14]]
_MOVES = [(x + 5 * y, y + 5 * ((2 * x + 3 * y) % 5), _ROTATIONS[x][y]) for x in range(5) for y in range(5)]


def _rotl(lane: np.ndarray, n: int) -> np.ndarray:
    if n == 0:
        return lane
    return (lane << np.uint64(n)) | (lane >> np.uint64(64 - n))


def _permute(state: list[np.ndarray]) -> None:
    for constant in _ROUND_CONSTANTS:
        columns = [state[x] ^ state[x + 5] ^ state[x + 10] ^ state[x + 15] ^ state[x + 20] for x in range(5)]
        for x in range(5):
            mix = columns[(x - 1) % 5] ^ _rotl(columns[(x + 1) % 5], 1)
            for y in range(0, 25, 5):
                state[x + y] ^= mix
        moved: list[np.ndarray] = [state[0]] * 25
        for source, target, rotation in _MOVES:
            moved[target] = _rotl(state[source], rotation)
        for y in range(0, 25, 5):
            row = moved[y:y + 5]
            for x in range(5):
                state[x + y] = row[x] ^ (~row[(x + 1) % 5] & row[(x + 2) % 5])
        state[0] ^= constant


def keccak256_many(messages: np.ndarray) -> np.ndarray:
    """(N, L) uint8 messages of one length L < 136 -> (N, 32) uint8 Keccak-256 digests."""
    count, length = messages.shape
    if length >= RATE:
        raise ValueError(f"messages of {length} bytes need more than one block")
    digests = np.empty((count, 32), dtype=np.uint8)
    for start in range(0, count, CHUNK):
        part = messages[start:start + CHUNK]
        block = np.zeros((len(part), RATE), dtype=np.uint8)
        block[:, :length] = part
        block[:, length] ^= 0x01
        block[:, RATE - 1] ^= 0x80
        lanes = block.view("<u8")
        state = [np.ascontiguousarray(lanes[:, i]) for i in range(RATE // 8)]
        state += [np.zeros(len(part), dtype=np.uint64) for _ in range(25 - RATE // 8)]
        _permute(state)
        digests[start:start + len(part)] = np.stack(state[:4], axis=1).astype("<u8").view(np.uint8)
    return digests


def sorted_pair_hashes(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """keccak256(min(a, b) || max(a, b)) row by row (OpenZeppelin's commutative node hash), (N, 32) each."""
    differs = left != right
    first = differs.argmax(axis=1)
    rows = np.arange(len(left))
    left_first = (left[rows, first] <= right[rows, first])[:, None]
    pairs = np.concatenate([np.where(left_first, left, right), np.where(left_first, right, left)], axis=1)
    return keccak256_many(pairs)
