"""Memory of the read-only commands at 1,000 and 10,000 pieces: the peak each holds per piece above a stated base.

    python bench/bench_memory.py [--sizes 1000 10000] [--only status audit review] [--rounds 3] [--work DIR]

The collections are bench_scale.py's (`made_here`: real-size 256 px layered art, validated, pinned, its manifest
and page made, as `run` leaves them), built once into `--work` (default: a folder under the system's temp folder)
and reused while `DIR/<size>/built` is there: 10,000 pieces take minutes to make.

Each command runs alone in a fresh process, as a user runs it, in two steps:
  1. the modules it imports: a first process runs the command and prints every module it then holds;
  2. a measuring process imports those modules, collects garbage and hands free heap back to the system
     (glibc `malloc_trim`), so that its resident set is what the interpreter and the imports hold: the **base**;
     then VmHWM is reset (/proc/self/clear_refs, as bench_scale.py does), the command runs, and the peak resident
     set above the base is the command's own (`rise`). Without the trim, what the imports allocated and freed
     stays resident and a small run's rise fits into it unseen: at 1,000 pieces the rise understated what a piece
     holds. A third process does the same under tracemalloc (its peak of traced allocations, Python's and
     numpy's, is the cross-check; it leaves out SQLite's and Pillow's own C allocations).
Rounds alternate the sizes; the median rise of the rounds is kept. Per piece: rise / pieces, and the target
(issue 32): the per-piece rise at the largest size within 1.2 times that at the smallest. Beside it, the marginal
cost between consecutive sizes (the rise's growth over the pieces added): with three sizes, a marginal cost that
grows from one pair to the next is memory growing faster than the collection.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.resident import memory_kib, reset_peak  # noqa: E402

READ_ONLY = ("status", "audit", "review")


def command(name: str, work: Path):
    """The command `name` on the collection in `work`, as bench_scale.py's read-only rows run it (a review
    renders the sheet, its thumbnail cache emptied first: every thumbnail is made)."""
    import shutil

    from mintprep.collection.config import load_collection

    path = work / "made" / "collection.yaml"
    if name == "status":
        from mintprep.commands.status import collection_status

        return lambda: collection_status(load_collection(path))
    if name == "audit":
        from mintprep.commands.audit import audit_collection

        def audit() -> None:
            report = audit_collection(load_collection(path), check_chain=False)
            assert report.ok, report.to_json()["problems"][:3]

        return audit
    from mintprep.commands.review import gather_review
    from mintprep.commands.review_pages import review_files

    shutil.rmtree(path.parent / ".mintprep" / "thumbnails", ignore_errors=True)
    return lambda: sum(len(html) for _, html in review_files(gather_review(load_collection(path))))


def modules_of(name: str, work: Path) -> list[str]:
    """Every module the command holds after running (step 1), in a fresh process."""
    out = subprocess.run([sys.executable, __file__, "--child", "modules", name, str(work)], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    return json.loads(out)


def measured(name: str, work: Path, modules: list[str], trace: bool) -> dict[str, float]:
    """Step 2 (or 3, `trace`) in a fresh process: base, peak and rise in MiB."""
    out = subprocess.run([sys.executable, __file__, "--child", "trace" if trace else "rss", name, str(work)],
                         input=json.dumps(modules), stdout=subprocess.PIPE, text=True, check=True).stdout
    return json.loads(out)


def child(mode: str, name: str, work: Path) -> dict | list:
    if mode == "modules":
        command(name, work)()
        return sorted(sys.modules)
    for module in json.loads(sys.stdin.read()):
        try:
            importlib.import_module(module)
        except Exception:  # a module only importable as its package's side effect (or a platform's): its parent has it
            pass
    run = command(name, work)
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    if mode == "trace":
        import tracemalloc

        tracemalloc.start()
        run()
        _, peak = tracemalloc.get_traced_memory()
        return {"traced_peak_mib": peak / 2**20}
    base = memory_kib("VmRSS")
    reset_peak()
    run()
    peak = memory_kib("VmHWM")
    return {"base_mib": base / 1024, "peak_mib": peak / 1024, "rise_mib": max(0, peak - base) / 1024}


def build(work: Path, size: int) -> None:
    """bench_scale's collection at `size` pieces in `work`, unless one is there already."""
    if (work / "built").exists():
        return
    import shutil

    from bench.bench_scale import made_here

    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    print(f"building {size:,} pieces in {work}", file=sys.stderr, flush=True)
    made_here(work, size, {})
    (work / "built").write_text("made by bench_memory.py\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--only", nargs="+", choices=READ_ONLY, default=list(READ_ONLY))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "mintprep-bench-memory")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)  # mode, command, work folder
    args = parser.parse_args()
    if args.child:
        mode, name, work = args.child
        print(json.dumps(child(mode, name, Path(work))))
        return
    works = {size: args.work / str(size) for size in args.sizes}
    for size, work in works.items():
        build(work, size)
    load = [os.getloadavg()]
    result: dict[str, dict] = {}
    for name in args.only:
        modules = modules_of(name, works[min(args.sizes)])
        runs: dict[int, list[dict]] = {size: [] for size in args.sizes}
        for number in range(args.rounds):
            for size in sorted(args.sizes, reverse=number % 2 == 1):
                row = measured(name, works[size], modules, trace=False)
                runs[size].append(row)
                print(f"  {name} {size:,}: base {row['base_mib']:.1f} MiB, rise {row['rise_mib']:.1f} MiB, "
                      f"load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
        rows = {}
        for size in args.sizes:
            rises = sorted(run["rise_mib"] for run in runs[size])
            traced = measured(name, works[size], modules, trace=True)["traced_peak_mib"]
            rise = rises[(len(rises) - 1) // 2]
            rows[size] = {"base_mib": round(min(run["base_mib"] for run in runs[size]), 1),
                          "rises_mib": [round(r, 1) for r in rises], "rise_mib": round(rise, 1),
                          "kib_per_piece": round(rise * 1024 / size, 2), "traced_peak_mib": round(traced, 1),
                          "traced_kib_per_piece": round(traced * 1024 / size, 2)}
        small, large = min(args.sizes), max(args.sizes)
        ratio = rows[large]["kib_per_piece"] / rows[small]["kib_per_piece"] if rows[small]["kib_per_piece"] else None
        traced_ratio = rows[large]["traced_kib_per_piece"] / rows[small]["traced_kib_per_piece"]
        ordered = sorted(args.sizes)
        # What each piece more adds between two sizes: a constant one is memory linear in the pieces, whatever
        # fixed part (past the base) the smallest size's rise still holds.
        marginal = {f"{a}-{b}": round((rows[b]["rise_mib"] - rows[a]["rise_mib"]) * 1024 / (b - a), 2)
                    for a, b in zip(ordered, ordered[1:])}
        result[name] = {"modules": len(modules), "sizes": rows, "marginal_kib_per_piece": marginal,
                        "per_piece_ratio": None if ratio is None else round(ratio, 2),
                        "traced_per_piece_ratio": round(traced_ratio, 2),
                        "target_met": ratio is not None and ratio <= 1.2}
        load.append(os.getloadavg())
        print(f"{name}: {json.dumps(result[name])}", file=sys.stderr, flush=True)
    print(json.dumps({"results": result, "load_average": [[round(x, 1) for x in avg] for avg in load]}, indent=2))


if __name__ == "__main__":
    main()
