"""Directory import of 10,000 small ERC-721 JSON files (goal: seconds, not minutes).

    python bench/bench_dir_import.py [--count 10000]

Measures: in-memory import (what the manifest stage does), the same from files on disk
(`mintprep cid DIR`), and pinning the result to the local backend (block files + syncs).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mintprep.ipfs.backends import LocalBackend  # noqa: E402
from mintprep.ipfs.importpath import import_path  # noqa: E402
from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory  # noqa: E402


def metadata(token: int) -> bytes:
    return json.dumps(
        {"name": f"Sunflower #{token}", "description": "A study.", "image": f"ipfs://bafkrei{token:052d}",
         "attributes": [{"trait_type": "flower", "value": "sunflower"}]},
        sort_keys=True,
    ).encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=10_000)
    args = parser.parse_args()
    profile = get_profile("kubo-cidv1")
    report: dict[str, object] = {"count": args.count}
    start = time.perf_counter()
    directory = import_directory({f"{i}.json": import_bytes(metadata(i), profile) for i in range(1, args.count + 1)}, profile)
    report["in_memory_import_s"] = round(time.perf_counter() - start, 3)
    report["root"] = str(directory.root)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "metadata"
        folder.mkdir()
        for i in range(1, args.count + 1):
            (folder / f"{i}.json").write_bytes(metadata(i))
        start = time.perf_counter()
        from_disk = import_path(folder, profile)
        report["from_disk_import_s"] = round(time.perf_counter() - start, 3)
        report["same_root"] = from_disk.root == directory.root
        start = time.perf_counter()
        LocalBackend(Path(tmp) / "state").pin_dag(directory, name="metadata")
        report["local_pin_s"] = round(time.perf_counter() - start, 3)
    report["blocks"] = sum(1 for _ in directory.blocks)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
