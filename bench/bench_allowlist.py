"""Allowlist scale: parse + tree time for a long list, the cached rerun, and what one buyer's page fetches.

    python bench/bench_allowlist.py [--count 100000] [--mixed-case]

Writes `--count` random addresses (lower case, or EIP-55 checksummed with --mixed-case, so every line's
checksum is verified) as a CSV with a header, then times:
1. read_allowlist cold: read through base.untrusted_files, parsed, de-duplicated, the tree built (batch keccak);
2. read_allowlist again: the tree loaded from `.mintprep/allowlists/<sha256>.npz`;
3. the page's allowlist files (shards + node bands): the time to make them, their total bytes and count, and
   the bytes a wallet fetches for its proof (its shard and one node file per band; mean and max over 200
   listed wallets), checked against the root.
The default run is short (100,000 addresses); `--count 1000000` is the issue's million. CPU seconds are printed
beside wall seconds: on a shared machine they are the closer measure of the work.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eth_utils import to_checksum_address  # noqa: E402

from mintprep.chain.allowlist_file import read_allowlist  # noqa: E402
from mintprep.chain.merkle import verify  # noqa: E402
from mintprep.page.allowlists import BAND, _depth, allowlist_dir, allowlist_files, shard_chars  # noqa: E402
from mintprep.chain.phases import SalePhase  # noqa: E402
from mintprep.chain.settings import PhaseSettings  # noqa: E402


def wallet_files(files: dict[str, bytes], address: str, count: int) -> tuple[int, list[bytes]]:
    """Bytes the page fetches for `address` and the proof it builds (the same walk as app.js's proofFor)."""
    folder = allowlist_dir(0)
    shard_path = f"{folder}a/{address[2:2 + shard_chars(count)]}.json"
    fetched = len(files[shard_path])
    i, proof = json.loads(files[shard_path])[address], []
    while True:
        top = _depth(i) // BAND * BAND
        root = ((i + 1) >> (_depth(i) - top)) - 1
        nodes = files[f"{folder}n/{root}.bin"]
        fetched += len(nodes)
        while i != root:
            sibling = i + 1 if i % 2 else i - 1
            j = 2 ** (_depth(sibling) - top)
            slot = j + sibling + 1 - (root + 1) * j
            proof.append(nodes[32 * slot:32 * slot + 32])
            i = (i - 1) // 2
        if root == 0:
            return fetched, proof
        proof.append(nodes[:32])
        i = (root - 1) // 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--mixed-case", action="store_true", help="checksummed addresses (every checksum verified)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / ".mintprep").mkdir()
        addresses = ["0x" + os.urandom(20).hex() for _ in range(args.count)]
        shown = [to_checksum_address(a) for a in addresses] if args.mixed_case else addresses
        path = folder / "list.csv"
        path.write_text("address\n" + "\n".join(shown) + "\n")
        started, cpu = time.perf_counter(), time.process_time()
        tree = read_allowlist(path, "chain.phases.0.allowlist", within=folder, cache_dir=folder / ".mintprep" / "allowlists")
        cold, cold_cpu = time.perf_counter() - started, time.process_time() - cpu
        started = time.perf_counter()
        again = read_allowlist(path, "chain.phases.0.allowlist", within=folder, cache_dir=folder / ".mintprep" / "allowlists")
        cached = time.perf_counter() - started
        assert again.root == tree.root
        started = time.perf_counter()
        files = allowlist_files([SalePhase(PhaseSettings(name="friends", allowlist="list.csv"), tree)])
        site = time.perf_counter() - started
        per_wallet = []
        for address in addresses[:: max(1, args.count // 200)][:200]:
            fetched, proof = wallet_files(files, address, args.count)
            assert verify(tree.root, address, proof)
            per_wallet.append(fetched)
        print(json.dumps({
            "addresses": args.count, "mixed_case": args.mixed_case, "file_bytes": path.stat().st_size,
            "parse_and_tree_s": round(cold, 2), "parse_and_tree_cpu_s": round(cold_cpu, 2),
            "load_average": round(os.getloadavg()[0], 1), "cached_rerun_s": round(cached, 2), "page_files_s": round(site, 2),
            "page_files": len(files), "page_bytes": sum(map(len, files.values())),
            "per_wallet_bytes_mean": round(sum(per_wallet) / len(per_wallet)), "per_wallet_bytes_max": max(per_wallet),
            "per_wallet_requests": 1 + -(-(_depth(len(tree.nodes) - 1) + 1) // BAND),
        }, indent=2))


if __name__ == "__main__":
    main()
