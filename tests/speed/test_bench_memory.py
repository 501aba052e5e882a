"""bench/bench_memory.py runs: on small collections it builds once, reuses what it built, and gives each read-only
command's base, rise and traced peak per size."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_memory.py"


def _bench(work: Path) -> tuple[dict, str]:
    done = subprocess.run([sys.executable, str(BENCH), "--sizes", "8", "16", "--rounds", "1", "--only", "status",
                           "audit", "--work", str(work)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout), done.stderr


@pytest.mark.slow
def test_the_memory_benchmark_builds_once_and_measures_each_command_above_its_base(tmp_path) -> None:
    first, log = _bench(tmp_path)
    assert log.count("building") == 2 and (tmp_path / "16" / "built").is_file()
    for name in ("status", "audit"):
        result = first["results"][name]
        assert result["modules"] > 50  # mintprep's own modules at least: the base holds them, not the rise
        for size, row in result["sizes"].items():
            assert row["base_mib"] > 10 and row["rise_mib"] >= 0 and row["traced_peak_mib"] > 0
            per_piece = row["rise_mib"] * 1024 / int(size)  # the row's rise is rounded to 0.1 MiB
            assert row["kib_per_piece"] == pytest.approx(per_piece, abs=0.06 * 1024 / int(size))
        assert set(result["marginal_kib_per_piece"]) == {"8-16"}
    again, log = _bench(tmp_path)
    assert "building" not in log  # the collections made the first time are measured again
    assert set(again["results"]) == {"status", "audit"}
