"""Running `mintprep audit --repair` in a real child process that may SIGKILL itself (the fault-injection hook).

Children are forked from a forkserver that has already imported mintprep, torch and diffusers but has run
nothing: a fresh process per run (so SIGKILL is real and nothing survives it) without paying the imports
each time, and without forking a parent whose torch thread pools are already running.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
from collections.abc import Iterator, Sequence
from pathlib import Path

_context = multiprocessing.get_context("forkserver")
_context.set_forkserver_preload(["mintprep.cli", "mintprep.cli.audit_cmd", "mintprep.commands.repair", "mintprep.generate.loading"])


def _main(argv: Sequence[str], env: dict[str, str]) -> None:
    os.environ.update(env)
    import mintprep.cli.audit_cmd  # noqa: F401  (registers `audit`)
    from mintprep.cli.app import app

    app(args=list(argv), prog_name="mintprep")  # raises SystemExit with the command's exit code


def run_mintprep(argv: Sequence[str], env: dict[str, str] | None = None, timeout: float = 300) -> int:
    """The exit code of `mintprep ARGV` run in a child process; negative when a signal killed it."""
    child = _context.Process(target=_main, args=(list(argv), dict(env or {})))
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.kill()
        child.join()
        raise TimeoutError(f"mintprep {' '.join(argv)} still running after {timeout} s")
    assert child.exitcode is not None
    return child.exitcode


def killed_at_every_step(pristine: Path, name: str, work_dir: Path, rpc, snapshot: str,
                         env: dict[str, str]) -> Iterator[tuple[int, Path]]:
    """For each repair step in turn: a fresh copy of `pristine` (and the chain back at `snapshot`), a repair
    SIGKILLed at that step; yields (step, path of that copy's collection file) for the caller's checks."""
    from mintprep.base.faults import FAULT_ENV
    from mintprep.commands.repair import STEPS

    for step in range(1, len(STEPS) + 1):
        rpc.make_request("evm_revert", [snapshot])
        snapshot = rpc.make_request("evm_snapshot", [])["result"]
        work = work_dir / f"killed-at-{step}"
        shutil.copytree(pristine, work)
        path = work / name
        killed = run_mintprep(["audit", str(path), "--repair"], {**env, FAULT_ENV: f"repair-step-{step}"})
        assert killed == -signal.SIGKILL, f"step {step} ({STEPS[step - 1].name}): exit {killed}"
        yield step, path
