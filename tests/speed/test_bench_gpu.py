"""bench/bench_gpu.py runs: on a CPU with the tiny model (its GPU run needs CUDA, which CI lacks)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_gpu.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_gpu", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


@pytest.mark.slow
def test_the_gpu_benchmark_runs_its_tiny_configuration_on_a_cpu(capsys) -> None:
    bench = _bench()
    rows = bench.main(["--tiny", "--batches", "1", "2", "--precisions", "fp32", "--steps", "1", "--json"])
    assert [(r["batch"], r["precision"]) for r in rows] == [(1, "fp32"), (2, "fp32")]
    assert all(r["pieces_per_min"] > 0 and r["guard_overhead"] > 0 and r["rejected"] == 0 for r in rows)
    assert all(r["redecode_ms"] > 0 and r["redecode_share"] > 0 for r in rows)  # the re-decode ran and was timed
    assert len(capsys.readouterr().out.splitlines()) == 2  # --json: one object per row, nothing else

    bench.print_table(rows + [{"batch": 4, "precision": "fp32", "skipped": "time budget spent"}], "tiny")
    table = capsys.readouterr().out
    assert all(header in table for _, header in bench.COLUMNS) and "time budget spent" in table
    assert f"{rows[0]['guard_overhead']:.3g}" in table


def test_all_is_every_precision_at_batch_1_and_4() -> None:
    args = _bench().parse_args(["--tiny", "--all"])
    assert (args.precisions, args.batches) == (["fp16", "bf16", "fp32"], [1, 4])
