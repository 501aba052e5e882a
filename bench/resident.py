"""The process's resident set as Linux reports it (/proc/self/status), and its peak reset: the benches' memory
figures (a module of its own, importing nothing, so that a process measuring a command's memory holds only what
the command imports)."""

from __future__ import annotations

from pathlib import Path


def memory_kib(field: str) -> int:
    """A VmRSS / VmHWM line of /proc/self/status, in KiB (0 where there is no /proc)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith(field + ":")), 0)


def reset_peak() -> None:
    """Start VmHWM afresh at the current resident set (Linux >= 4.0: `5` in clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass
