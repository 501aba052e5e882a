"""Allowlist Merkle trees exactly as @openzeppelin/merkle-tree's StandardMerkleTree builds them (encoding ["address"]).

leaf = keccak256(keccak256(abi.encode(address))); leaves sorted by hash; the tree is an array of 2n-1 nodes with
the leaves at the end in reverse order and node i = keccak256(sorted(child 2i+1, child 2i+2)); the root is node 0.
OpenZeppelin's MerkleProof.verify (sorted pairs) accepts the proofs, and `dump()` is the library's "standard-v1"
JSON, so `StandardMerkleTree.load` reads it. Hashing runs in batches (keccak_batch): a million addresses are a
few array passes, not four million library calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from eth_utils import keccak

from mintprep.base import checksum_digits, keccak256_many, sorted_pair_hashes

LEAF_ENCODING = ["address"]
_ABI_PADDING = 12  # abi.encode(address): 12 zero bytes, then the 20 address bytes


def raw_addresses(addresses: list[str]) -> np.ndarray:
    """(n, 20) uint8 from 0x-hex addresses (any case)."""
    return np.frombuffer(b"".join(bytes.fromhex(a[2:]) for a in addresses), dtype=np.uint8).reshape(-1, 20)


def leaf_hashes(raw: np.ndarray) -> np.ndarray:
    encoded = np.zeros((len(raw), 32), dtype=np.uint8)
    encoded[:, _ABI_PADDING:] = raw
    return keccak256_many(encoded, rounds=2)


def leaf_hash(address: str) -> bytes:
    return bytes(leaf_hashes(raw_addresses([address]))[0])


def node_hash(a: bytes, b: bytes) -> bytes:
    return keccak(b"".join(sorted((a, b))))


def process_proof(leaf: bytes, proof: list[bytes]) -> bytes:
    """The root a proof leads to, as MerkleProof.processProof computes it."""
    for sibling in proof:
        leaf = node_hash(leaf, sibling)
    return leaf


def verify(root: bytes, address: str, proof: list[bytes]) -> bool:
    return process_proof(leaf_hash(address), proof) == root


def checksummed(raw: np.ndarray) -> tuple[str, ...]:
    """(n, 20) uint8 addresses as EIP-55 strings."""
    lower = np.frombuffer(np.ascontiguousarray(raw).tobytes().hex().encode("ascii"), dtype=np.uint8).reshape(-1, 40)
    text = checksum_digits(lower).tobytes().decode("ascii")
    return tuple("0x" + text[i:i + 40] for i in range(0, len(text), 40))


def row_order(rows: np.ndarray) -> np.ndarray:
    """Indices that sort (n, w) uint8 rows ascending as byte strings, equal rows in their given order. By the first
    8 bytes (one argsort: hashes and random addresses rarely share them), by every byte only when two rows do."""
    head = np.ascontiguousarray(rows[:, :8]).view(">u8").ravel()
    order = np.argsort(head, kind="stable")
    if (head[order[1:]] == head[order[:-1]]).any():
        order = np.lexsort(rows.T[::-1])
    return order


@dataclass(frozen=True, eq=False)
class AllowlistTree:
    raw: np.ndarray  # (n, 20) uint8 addresses in the file's order
    nodes: np.ndarray  # (2n-1, 32) uint8, StandardMerkleTree's array
    leaf_index: np.ndarray  # (n,) int64: the node index of each address's leaf, in the file's order
    _positions: dict[bytes, int] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, addresses: list[str]) -> AllowlistTree:
        if not addresses:
            raise ValueError("an allowlist needs at least one address")
        return cls.build(raw_addresses(addresses))

    @classmethod
    def build(cls, raw: np.ndarray) -> AllowlistTree:
        count = len(raw)
        if count == 0:
            raise ValueError("an allowlist needs at least one address")
        leaves = leaf_hashes(raw)
        order = row_order(leaves)  # order[k]: the file position of the k-th smallest leaf
        ranked = leaves[order]
        if (ranked[1:] == ranked[:-1]).all(axis=1).any():
            raise ValueError("an address is listed twice")
        size = 2 * count - 1
        nodes = np.empty((size, 32), dtype=np.uint8)
        nodes[size - count:] = ranked[::-1]
        leaf_index = np.empty(count, dtype=np.int64)
        leaf_index[order] = size - 1 - np.arange(count)
        high = count - 1  # internal nodes are 0 .. count-2; a batch needs its children computed already
        while high > 0:
            low = max(0, high // 2)
            nodes[low:high] = sorted_pair_hashes(nodes[2 * low + 1:2 * high:2], nodes[2 * low + 2:2 * high + 1:2])
            high = low
        return cls(np.ascontiguousarray(raw), nodes, leaf_index)

    @property
    def root(self) -> bytes:
        return bytes(self.nodes[0])

    def __len__(self) -> int:
        return len(self.raw)

    @property
    def addresses(self) -> tuple[str, ...]:
        """Checksummed, in the file's order (computed on demand: a long list is mostly handled as arrays)."""
        return checksummed(self.raw)

    def proof(self, address: str) -> list[bytes]:
        """Sibling hashes from the address's leaf to the root; KeyError when it is not listed."""
        if not self._positions:
            self._positions.update({bytes(row): i for i, row in enumerate(self.raw)})
        i = int(self.leaf_index[self._positions[bytes.fromhex(address[2:])]])
        proof = []
        while i > 0:
            proof.append(bytes(self.nodes[i + 1 if i % 2 else i - 1]))
            i = (i - 1) // 2
        return proof

    def dump(self) -> dict[str, Any]:
        """StandardMerkleTree.dump()'s "standard-v1" JSON (for tools that load OpenZeppelin's format)."""
        return {
            "format": "standard-v1",
            "leafEncoding": LEAF_ENCODING,
            "tree": ["0x" + bytes(node).hex() for node in self.nodes],
            "values": [{"value": [a], "treeIndex": int(i)} for a, i in zip(self.addresses, self.leaf_index)],
        }


def roots_of_proofs(raw: np.ndarray, nodes: np.ndarray, leaf_index: np.ndarray) -> np.ndarray:
    """(n, 32): the root each address's proof leads to (MerkleProof.processProof over the siblings `nodes` holds
    on the way up from its `leaf_index`; a missing sibling reads as zeros), for every address at once.

    Proofs that arrive at a node with the same value go on as one: in a sound tree the two halves under a node
    meet there, so the whole list costs about 2n hashes rather than n per level (a million addresses: 20
    million), and memory stays a few arrays of n rows."""
    padded = np.concatenate([nodes, np.zeros((1, 32), dtype=np.uint8)])  # index len(nodes): no node there
    node = leaf_index.astype(np.int64)
    value = leaf_hashes(raw)
    owner = np.arange(len(raw))  # owner[a]: the arrival (row of node/value) that address a's proof is at now
    while (node > 0).any():
        live = np.flatnonzero(node > 0)
        sibling = np.where(node[live] % 2 == 1, node[live] + 1, node[live] - 1)
        value[live] = sorted_pair_hashes(value[live], padded[np.minimum(sibling, len(nodes))])
        node[live] = (node[live] - 1) // 2
        node, value, owner = _merged(node, value, owner)
    return value[owner]


def _merged(node: np.ndarray, value: np.ndarray, owner: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arrivals at the same node with the same value made one (sorted by node, then by the value's first 8 bytes;
    rows whose value only shares those bytes stay apart, which costs hashes, never correctness)."""
    head = np.ascontiguousarray(value[:, :8]).view(">u8").ravel()
    order = np.lexsort((head, node))
    value = value[order]
    same = (node[order][1:] == node[order][:-1]) & (value[1:] == value[:-1]).all(axis=1)
    keep = np.concatenate([[True], ~same])
    new_id = np.cumsum(keep) - 1  # sorted row -> merged row
    moved = np.empty_like(order)
    moved[order] = new_id
    return node[order][keep], value[keep], moved[owner]
