"""`mintprep cid` throughput vs hashlib.sha256 over the same bytes, and peak memory vs file size.

    python bench/bench_cid.py [--size-mib 1024] [--vectors]

Goal (issue 4): importer throughput >= 0.8 x sha256 on a 1 GiB file; peak memory flat in file size.
--vectors also checks the two 1 GiB unixfs-v1-2025 vectors (IPIP-0499; kubo test/cli/add_test.go) (1024 x 1 MiB and +1 byte,
seed "v1-2025-seed"; derived by the research prototype, never run there) — too big for the test suite.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from Crypto.Cipher import ChaCha20  # noqa: E402

from mintprep.ipfs.unixfs import add_options, get_profile, import_file  # noqa: E402

MIB = 1024 * 1024
V1_2025_VECTORS = {
    1024 * MIB: "bafybeihmf37wcuvtx4hpu7he5zl5qaf2ineo2lqlfrapokkm5zzw7zyhvm",
    1024 * MIB + 1: "bafybeibdsi225ugbkmpbdohnxioyab6jsqrmkts3twhpvfnzp77xtzpyhe",
}


def write_deterministic(path: Path, seed: str, size: int) -> None:
    cipher = ChaCha20.new(key=hashlib.sha256(seed.encode()).digest(), nonce=bytes(12))
    with open(path, "wb") as out:
        remaining = size
        while remaining:
            step = min(remaining, 16 * MIB)
            out.write(cipher.encrypt(bytes(step)))
            remaining -= step


def sha256_file(path: Path) -> float:
    """Best of three plain sha256 passes over the file, read in 1 MiB pieces."""

    def digest() -> None:
        hasher = hashlib.sha256()
        with open(path, "rb") as handle:
            while chunk := handle.read(MIB):
                hasher.update(chunk)

    return min(_seconds(digest) for _ in range(3))


def timed_import(path: Path, profile) -> tuple[float, int, str]:
    """Best of three timings (tracemalloc off: it slows every allocation), then one traced run for the peak."""
    elapsed = min(_seconds(lambda: import_file(path, profile)) for _ in range(3))
    tracemalloc.start()
    root = import_file(path, profile).root
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return elapsed, peak, str(root)


def _seconds(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--vectors", action="store_true")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for size_mib in sorted({max(1, args.size_mib // 8), args.size_mib}):
            path = Path(tmp) / "data.bin"
            write_deterministic(path, "bench", size_mib * MIB)
            sha_seconds = sha256_file(path)
            for name, profile in (("kubo-cidv1", get_profile("kubo-cidv1")), ("kubo default v0", add_options())):
                seconds, peak, _ = timed_import(path, profile)
                results.append({
                    "size_mib": size_mib, "profile": name, "import_s": round(seconds, 3), "sha256_s": round(sha_seconds, 3),
                    "ratio_vs_sha256": round(sha_seconds / seconds, 3), "peak_mib": round(peak / MIB, 2),
                    "mib_per_s": round(size_mib / seconds, 1),
                })
        if args.vectors:
            for size, expected in V1_2025_VECTORS.items():
                path = Path(tmp) / "vector.bin"
                write_deterministic(path, "v1-2025-seed", size)
                _, _, root = timed_import(path, get_profile("unixfs-v1-2025"))
                results.append({"vector_size": size, "expected": expected, "got": root, "match": root == expected})
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
