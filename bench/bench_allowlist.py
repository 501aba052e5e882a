"""Allowlist scale: parse + tree time for a long list, the cached rerun, and what one buyer's page fetches.

    python bench/bench_allowlist.py [--count 1000 100000 1000000] [--mixed-case]

For each count (each in a fresh process, so its peak memory is its own), writes that many random addresses
(lower case, or EIP-55 checksummed with --mixed-case, so every line's checksum is verified) as a CSV with a
header, then times:
1. read_allowlist cold: read through base.untrusted_files, parsed, de-duplicated, the tree built (batch keccak);
2. read_allowlist again: the tree loaded from `.mintprep/allowlists/<sha256>.npz`;
3. the page's allowlist files (shards + node bands): the time to make them, their total bytes and count, and
   the bytes a wallet fetches for its proof (its shard and one node file per band; mean and max over 200
   listed wallets), checked against the root.
The default run is short (1,000 and 100,000 addresses); `--count 1000000` is the issue's million. CPU seconds are
printed beside wall seconds and the load average: on a shared machine CPU time is the closer measure of the work.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from mintprep.chain.allowlist_file import read_allowlist  # noqa: E402
from mintprep.chain.merkle import checksummed, verify  # noqa: E402
from mintprep.chain.allowlist_site import _depth, allowlist_dir, allowlist_files, band_levels, shard_chars  # noqa: E402
from mintprep.chain.phases import SalePhase  # noqa: E402
from mintprep.collection.chain_settings import PhaseSettings  # noqa: E402


def wallet_files(files: dict[str, bytes], address: str, count: int) -> tuple[int, list[bytes]]:
    """Bytes the page fetches for `address` and the proof it builds (the same walk as app.js's proofFor)."""
    folder = allowlist_dir(0)
    shard_path = f"{folder}a/{address[2:2 + shard_chars(count)]}.json"
    fetched = len(files[shard_path])
    i, proof = json.loads(files[shard_path])[address], []
    band = band_levels(2 * count - 1)
    while True:
        top = _depth(i) // band * band
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


def measure(count: int, mixed_case: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / ".mintprep").mkdir()
        raw = np.frombuffer(os.urandom(20 * count), dtype=np.uint8).reshape(-1, 20)
        addresses = ["0x" + h for h in raw.tobytes().hex(" ", 20).split()] if count else []
        path = folder / "list.csv"
        path.write_text("address\n" + "\n".join(checksummed(raw) if mixed_case else addresses) + "\n")
        cache = folder / ".mintprep" / "allowlists"
        started, cpu = time.perf_counter(), time.process_time()
        tree = read_allowlist(path, "chain.phases.0.allowlist", within=folder, cache_dir=cache)
        cold, cold_cpu = time.perf_counter() - started, time.process_time() - cpu
        started = time.perf_counter()
        again = read_allowlist(path, "chain.phases.0.allowlist", within=folder, cache_dir=cache)
        cached = time.perf_counter() - started
        assert again.root == tree.root
        started, cpu = time.perf_counter(), time.process_time()
        files = allowlist_files([SalePhase(PhaseSettings(name="friends", allowlist="list.csv"), tree)])
        site, site_cpu = time.perf_counter() - started, time.process_time() - cpu
        per_wallet = []
        for address in addresses[:: max(1, count // 200)][:200]:
            fetched, proof = wallet_files(files, address, count)
            assert verify(tree.root, address, proof)
            per_wallet.append(fetched)
        return {
            "addresses": count, "mixed_case": mixed_case, "file_bytes": path.stat().st_size,
            "parse_and_tree_s": round(cold, 2), "parse_and_tree_cpu_s": round(cold_cpu, 2),
            "cached_rerun_s": round(cached, 3), "cache_bytes": sum(f.stat().st_size for f in cache.iterdir()),
            "page_files_s": round(site, 2), "page_files_cpu_s": round(site_cpu, 2),
            "page_files": len(files), "page_bytes": sum(map(len, files.values())),
            "per_wallet_bytes_mean": round(sum(per_wallet) / len(per_wallet)), "per_wallet_bytes_max": max(per_wallet),
            "per_wallet_requests": 1 + -(-(_depth(len(tree.nodes) - 1) + 1) // band_levels(len(tree.nodes))),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "load_average": round(os.getloadavg()[0], 1),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, nargs="+", default=[1_000, 100_000])
    parser.add_argument("--mixed-case", action="store_true", help="checksummed addresses (every checksum verified)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a single count, in this process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.count[0], args.mixed_case)))
        return
    for count in args.count:
        one = [sys.executable, __file__, "--one", "--count", str(count)] + (["--mixed-case"] if args.mixed_case else [])
        print(json.dumps(json.loads(subprocess.run(one, check=True, capture_output=True, text=True).stdout), indent=2))


if __name__ == "__main__":
    main()
