"""How fast every command starts, each beside a bare typer+rich app, measured side by side in one run.

`python bench/bench_start.py [--repeats 7] [--importtime]`: `mintprep <command> --help` for every command (and
every `contract` subcommand) against the bare app's `--help`, and `mintprep status` on a small collection that has
been run (6 pieces, the tiny model) against the bare app printing one rich line. The bare app is a typer app with one
command that prints through a rich Console: the least a typer+rich CLI does when it starts. Each round runs every
process once, in turn, so the load of a shared machine falls on all alike; a figure is the best of `--repeats`
rounds (the least disturbed), after a first round that writes the bytecode caches an installed package has.
Goal: `status` <= 3x the bare app. `--importtime` adds the slowest imports of `status` (`python -X importtime`).
One JSON object per line on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
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
STATUS_GOAL = 3.0

BARE_APP = '''
import typer
from rich.console import Console

app = typer.Typer(add_completion=False)
console = Console(stderr=True)


@app.command()
def hello(name: str = "collection") -> None:
    """Print one line."""
    console.print(f"{name}: [bold]ready[/]")


@app.command()
def other() -> None:
    """A second command, so typer builds a group as mintprep's does."""


app()
'''


def commands() -> list[list[str]]:
    """Every command path of the mintprep CLI, subcommands of a group included (`contract deploy`)."""
    import typer

    from mintprep.cli import app

    found: list[list[str]] = []

    def walk(group: Any, prefix: list[str]) -> None:  # typer's own click: a group is what has `commands`
        for name, command in sorted(group.commands.items()):
            if hasattr(command, "commands"):
                walk(command, [*prefix, name])
            else:
                found.append([*prefix, name])

    walk(typer.main.get_command(app), [])
    return found


def once(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=ENV)
    return time.perf_counter() - start


def measure(processes: dict[str, list[str]], repeats: int) -> dict[str, float]:
    """Best of `repeats` rounds, each round running every process once in turn, after one round unmeasured (it
    writes the bytecode caches)."""
    for command in processes.values():
        once(command)
    best = {name: float("inf") for name in processes}
    for _ in range(repeats):
        for name, command in processes.items():
            best[name] = min(best[name], once(command))
    return best


def small_collection(work: Path) -> Path:
    from tests.conftest import write_collection

    collection = write_collection(work / "c", size=6, generator__steps=2)
    subprocess.run([sys.executable, "-m", "mintprep", "run", str(collection), "--json"], check=True,
                   capture_output=True, env=ENV)
    return collection


def slowest_imports(collection: Path, count: int = 15) -> list[dict]:
    """The top-level imports of `mintprep status` by cumulative time (µs), as `-X importtime` reports them."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "mintprep", "status", str(collection)],
                          check=True, capture_output=True, env=ENV, text=True)
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
            if cumulative.isdigit() and not name.startswith(" ") and "." not in name.strip():
                rows.append({"module": name.strip(), "cumulative_ms": round(int(cumulative) / 1000, 1)})
    return sorted(rows, key=lambda row: -row["cumulative_ms"])[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--importtime", action="store_true", help="also list the slowest imports of `status`")
    args = parser.parse_args()
    mintprep = [sys.executable, "-m", "mintprep"]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bare = work / "bare_app.py"
        bare.write_text(BARE_APP)
        collection = small_collection(work)
        processes = {"bare --help": [sys.executable, str(bare), "--help"],
                     "bare hello": [sys.executable, str(bare), "hello"],
                     "status": [*mintprep, "status", str(collection)],
                     "--help": [*mintprep, "--help"]}
        processes.update({f"{' '.join(path)} --help": [*mintprep, *path, "--help"] for path in commands()})
        best = measure(processes, args.repeats)
        imports = slowest_imports(collection) if args.importtime else []
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, best of {args.repeats}", file=sys.stderr)
    for name, seconds in best.items():
        if name.startswith("bare"):
            continue
        against = "bare hello" if name == "status" else "bare --help"
        row = {"command": f"mintprep {name}", "s": round(seconds, 3), "bare": against,
               "bare_s": round(best[against], 3), "ratio": round(seconds / best[against], 2)}
        if name == "status":
            row["goal"] = STATUS_GOAL
        print(json.dumps(row))
    for row in imports:
        print(json.dumps({"status_import": row["module"], "cumulative_ms": row["cumulative_ms"]}))


if __name__ == "__main__":
    main()
