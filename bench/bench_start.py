"""How fast the small commands start and finish, each beside its floor, measured side by side in one run.

    python bench/bench_start.py [--size 300] [--rounds 7] [--every-command] [--importtime] [--against DIR]

Issue 32's targets, on a collection of `--size` real-size pieces (tests/support/real_art.py, no near-copies)
imported from a folder and then `run` once, so that a `run` changes nothing:
  status      `mintprep status COLLECTION`            <= 3x   `python -c "import typer, rich"` (bare import)
  --help      `mintprep --help`                       <= 2x   the bare import
  run-noop    `mintprep run COLLECTION` (no change)   <= 1.5x `status`
  export      `mintprep export COLLECTION -o DIR`     <= 1.5x `cp -r` of the folder export writes (same files)
Each round runs every process once, in turn (so the load of a shared machine falls on all alike), after one
unmeasured round that writes the bytecode caches an installed package has; a figure is the median of `--rounds`
rounds, with the best beside it; a ratio divides medians (and bests). `--every-command` adds `mintprep <command>
--help` for every command beside the bare import; `--importtime` the slowest imports of `status`
(`python -X importtime`); `--against DIR` measures another checkout of mintprep in the same rounds (`git archive
COMMIT | tar -x -C DIR`: the code before a change), its rows named `... [before]`. One JSON object per line on
stdout, the load average before and after on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# As installed: compiled modules cached in __pycache__ (a PYTHONDONTWRITEBYTECODE=1 shell would make every start
# compile mintprep's sources afresh while typer's and rich's came compiled with their wheels).
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPATH": str(ROOT),
       "HF_HUB_OFFLINE": "1"}
BEFORE = " [before]"
MINTPREP = [sys.executable, "-m", "mintprep"]
# name: (the floor it is divided by, the target ratio)
TARGETS = {"status": ("bare import", 3.0), "--help": ("bare import", 2.0), "run-noop": ("status", 1.5),
           "export": ("cp -r", 1.5)}


def commands() -> list[list[str]]:
    """Every command path of the mintprep CLI, subcommands of a group included (`contract deploy`)."""
    import typer

    from mintprep.cli import app

    found: list[list[str]] = []

    def walk(group: Any, prefix: list[str]) -> None:  # typer's own click: a group is what has `commands`
        for name in group.list_commands(None):
            command = group.get_command(None, name)
            if hasattr(command, "list_commands"):
                walk(command, [*prefix, name])
            else:
                found.append([*prefix, name])

    walk(typer.main.get_command(app), [])
    return found


def collection(work: Path, size: int) -> Path:
    """`size` pieces of real-size art imported from a folder, then `run` once: a run after it changes nothing."""
    from bench.bench_scale import image, write_yaml
    from tests.support.real_art import metadata

    folder = work / "elsewhere"
    (folder / "images").mkdir(parents=True)
    (folder / "json").mkdir()
    for token_id in range(1, size + 1):
        (folder / "images" / f"{token_id}.png").write_bytes(image(token_id))
        (folder / "json" / f"{token_id}.json").write_text(json.dumps(metadata(token_id, f"{token_id}.png")))
    path = write_yaml(work / "c", size)
    for step in (["import", str(path), "--from", str(folder)], ["run", str(path)]):
        once([*MINTPREP, *step, "--json"])
    return path


Process = tuple[list[str], Any, dict[str, str]]  # the command, what to do untimed before it, its environment


def once(command: list[str], before: Any = None, env: dict[str, str] = ENV) -> float:
    if before is not None:
        before()
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, env=env)
    if done.returncode not in (0, 1):  # 1: a run that refused a piece (past ~1,000 pieces the art has near-copies)
        raise RuntimeError(f"{command}: exit {done.returncode}: {done.stderr.decode()[-2000:]}")
    return time.perf_counter() - start


def measure(processes: dict[str, Process], rounds: int) -> dict[str, list[float]]:
    """Every process's seconds in each of `rounds` rounds (each round runs every process once, in turn), after one
    round unmeasured (it writes the bytecode caches). A process's `before` (clearing an output folder) is not
    timed."""
    for process in processes.values():
        once(*process)
    runs: dict[str, list[float]] = {name: [] for name in processes}
    for _ in range(rounds):
        for name, process in processes.items():
            runs[name].append(once(*process))
    return runs


def slowest_imports(command: list[str], count: int = 15) -> list[dict]:
    """The top-level imports of `command` by cumulative time (µs), as `-X importtime` reports them."""
    done = subprocess.run([sys.executable, "-X", "importtime", *command[1:]], check=True, capture_output=True,
                          env=ENV, text=True)
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
            if cumulative.isdigit() and not name.startswith(" ") and "." not in name.strip():
                rows.append({"module": name.strip(), "cumulative_ms": round(int(cumulative) / 1000, 1)})
    return sorted(rows, key=lambda row: -row["cumulative_ms"])[:count]


def set_aside(folder: Path) -> Any:
    """Move what the last run wrote to `folder` out of its way, keeping it until the end: deleting thousands of
    files makes the next ones created cost several times as much on this project's ext4 (bench_scale.py's note), and
    the export and `cp -r` would each pay for the other's deletions."""
    def move() -> None:
        if folder.exists():
            spent = folder.parent / "spent"
            spent.mkdir(exist_ok=True)
            folder.rename(spent / f"{folder.name}-{len(list(spent.iterdir()))}")
    return move


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=300, help="pieces in the collection (default 300)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--every-command", action="store_true", help="also every command's --help")
    parser.add_argument("--importtime", action="store_true", help="also list the slowest imports of `status`")
    parser.add_argument("--against", type=Path, help="another checkout of mintprep, measured in the same rounds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mintprep-start-") as tmp:
        work = Path(tmp)
        os.chdir(work)  # `python -m` puts the working folder first on the path: each checkout by PYTHONPATH alone
        path = collection(work, args.size)
        exported, copied = work / "exported", work / "copied"
        subprocess.run([*MINTPREP, "export", str(path), "-o", str(exported)], check=True, capture_output=True, env=ENV)
        mintprep: dict[str, tuple[list[str], Any]] = {
            "status": ([*MINTPREP, "status", str(path)], None),
            "--help": ([*MINTPREP, "--help"], None),
            "run-noop": ([*MINTPREP, "run", str(path)], None),
            "export": ([*MINTPREP, "export", str(path), "-o", str(work / "out")], set_aside(work / "out")),
        }
        if args.every_command:
            mintprep.update({f"{' '.join(p)} --help": ([*MINTPREP, *p, "--help"], None) for p in commands()})
        processes: dict[str, Process] = {
            "bare import": ([sys.executable, "-c", "import typer, rich"], None, ENV),
            "cp -r": (["cp", "-r", str(exported), str(copied)], set_aside(copied), ENV),
            **{name: (*process, ENV) for name, process in mintprep.items()}}
        if args.against:
            env = {**ENV, "PYTHONPATH": str(args.against.resolve())}
            processes.update({name + BEFORE: (command, before, env) for name, (command, before) in mintprep.items()})
        load = [os.getloadavg()]
        runs = measure(processes, args.rounds)
        load.append(os.getloadavg())
        imports = slowest_imports(processes["status"][0]) if args.importtime else []
    print(f"{os.cpu_count()} CPUs, {args.size} pieces, {args.rounds} rounds; load average (1, 5, 15 min) before "
          f"{', '.join(f'{x:.1f}' for x in load[0])}, after {', '.join(f'{x:.1f}' for x in load[1])}", file=sys.stderr)
    median = {name: statistics.median(seconds) for name, seconds in runs.items()}
    best = {name: min(seconds) for name, seconds in runs.items()}
    for name in runs:
        floor, target = TARGETS.get(name.removesuffix(BEFORE),
                                    ("bare import", None) if name.removesuffix(BEFORE).endswith("--help")
                                    else (None, None))
        if floor == "status" and name.endswith(BEFORE):
            floor += BEFORE
        row: dict[str, Any] = {"process": name, "median_s": round(median[name], 3), "best_s": round(best[name], 3)}
        if floor:
            row.update(over=floor, ratio_median=round(median[name] / median[floor], 2),
                       ratio_best=round(best[name] / best[floor], 2))
        if target:
            row.update(target=target, met=row["ratio_median"] <= target)
        print(json.dumps(row))
    for row in imports:
        print(json.dumps({"status_import": row["module"], "cumulative_ms": row["cumulative_ms"]}))


if __name__ == "__main__":
    main()
