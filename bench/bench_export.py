"""`mintprep export` beside `cp -r` of the folder it writes, side by side, at 1,000 and 10,000 real-size pieces.

    python bench/bench_export.py [--sizes 1000 10000] [--rounds 5] [--before TREE]

For each size: the HashLips-style folder bench_scale.py imports (256 px layered art), imported into a fresh
collection once; then `--rounds` rounds, each a fresh process per export (as a user runs it) timing
`export_collection` alone (the interpreter's start and imports apart, the `export` row of bench_scale.py), then `cp -r`
of the folder the first export wrote. With `--before TREE` (a tree holding an older `mintprep/`, e.g. `git archive
COMMIT mintprep | tar -x -C TREE`), that tree's export runs in each round too, alternating with this one's, so both meet the same moments
of a shared machine. Every folder stays until the end (ext4 checks each new file's inode against recent deletions:
see bench_scale.py). Prints one JSON object: per size and variant the median and fastest seconds, the median CPU
seconds (the process's user + system time; for cp, its child's), the median over cp's median, the load averages.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Run in a fresh process whose PYTHONPATH is the tree measured: prints wall and CPU seconds of export_collection.
CHILD = """
import json, sys, time
from pathlib import Path
import mintprep
from mintprep.collection.config import load_collection
from mintprep.commands.export import export_collection
col = load_collection(Path(sys.argv[1]))
start, cpu = time.perf_counter(), time.process_time()
report = export_collection(col, Path(sys.argv[2]))
print(json.dumps({"s": time.perf_counter() - start, "cpu_s": time.process_time() - cpu, "files": report.files,
                  "code": mintprep.__file__}))
"""


def imported_collection(work: Path, size: int) -> Path:
    """bench_scale.py's folder of `size` pieces imported into a new collection; its collection.yaml."""
    sys.path.insert(0, str(ROOT))
    from bench.bench_scale import folder_source, write_yaml
    from mintprep.collection.config import load_collection
    from mintprep.commands.importing import import_collection

    folder_source(work / "elsewhere", size)
    path = write_yaml(work / "collection", size)
    plan = import_collection(load_collection(path), str(work / "elsewhere"))
    assert len(plan.tokens) == size, plan.skipped
    return path


def export_run(tree: Path, collection: Path, out: Path) -> dict[str, float]:
    # In the tree's folder: `python -c` puts the current folder first on sys.path, ahead of PYTHONPATH.
    child = subprocess.run([sys.executable, "-c", CHILD, str(collection), str(out)], check=True, text=True,
                           capture_output=True, cwd=tree, env=dict(os.environ, PYTHONPATH=str(tree)))
    run = json.loads(child.stdout)
    assert Path(run.pop("code")).is_relative_to(tree), f"{tree}'s export ran another tree's code"
    return run


def cp_run(source: Path, out: Path) -> dict[str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(["cp", "-r", str(source), str(out)], check=True)
    elapsed, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"s": elapsed, "cpu_s": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime}


def at_size(work: Path, size: int, rounds: int, trees: dict[str, Path]) -> dict[str, dict[str, float]]:
    collection = imported_collection(work, size)
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in [*trees, "cp -r"]}
    for round_number in range(rounds):
        for name, tree in trees.items():
            runs[name].append(export_run(tree, collection, work / f"{name}-{round_number}"))
            print(f"  {size} {name}: {runs[name][-1]['s']:.3f} s, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
        runs["cp -r"].append(cp_run(work / f"{next(iter(trees))}-0", work / f"cp-{round_number}"))
        print(f"  {size} cp -r: {runs['cp -r'][-1]['s']:.3f} s", file=sys.stderr, flush=True)
    cp = statistics.median(run["s"] for run in runs["cp -r"])
    return {name: {"median_s": round(statistics.median(r["s"] for r in made), 3),
                   "fastest_s": round(min(r["s"] for r in made), 3),
                   "median_cpu_s": round(statistics.median(r["cpu_s"] for r in made), 3),
                   "over_cp_median": round(statistics.median(r["s"] for r in made) / cp, 2), "runs": len(made)}
            for name, made in runs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout's root, its export measured alongside")
    args = parser.parse_args()
    trees = {"export": ROOT, **({"before": args.before.resolve()} if args.before else {})}
    load = [os.getloadavg()]
    result: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="mintprep-export-") as keep:
        for size in args.sizes:
            (Path(keep) / str(size)).mkdir()
            result[str(size)] = at_size(Path(keep) / str(size), size, args.rounds, trees)
            load.append(os.getloadavg())
        print(json.dumps({"sizes": result, "load_average": [round(value[0], 2) for value in load]}, indent=2),
              flush=True)  # before the folders go: deleting 100,000 files takes a while


if __name__ == "__main__":
    main()
