"""Generation throughput through Ray (1 and 2 CPU workers) against the local executor, on the same pieces.

    python bench/bench_ray.py [--pieces 16] [--steps 12] [--size 64] [--threads 1] [--device cpu]

The pieces are the first `--pieces` of the example collection (tiny model). Every executor runs the same
requests and must return the same PNG bytes, which is checked. Reported per configuration:
- pieces/min over the generate call alone (model loads and actor starts excluded, reported apart),
- the ratio to the local executor,
- dispatch overhead per piece: with one worker and nothing queued ahead (queue_per_worker 1), the driver's wall
  time minus the time the worker spent inside `generate`, divided by the pieces; and the round trip of a
  request_key call.
Ray runs on a local cluster with as many CPUs as this machine (or `--address`). `--threads` sets torch's threads
in the driver and, through it, in every actor (the executor's default), so all runs add in the same order.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Iterable

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mintprep.collection.config import load_collection  # noqa: E402
from mintprep.executors import Executor, LocalExecutor  # noqa: E402
from mintprep.executors.settings import ExecutorSettings  # noqa: E402
from mintprep.generate import GenerationRequest, GeneratorSettings  # noqa: E402
from mintprep.collection.traits import plan_collection  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "collection" / "collection.yaml"


def requests_for(pieces: int, generator: GeneratorSettings) -> list[GenerationRequest]:
    spec = load_collection(EXAMPLE).spec
    return [GenerationRequest(token_id=p.token_id, prompt=p.prompt, negative_prompt=p.negative_prompt,
                              collection_seed=spec.seed, settings=generator, guards=spec.guards)
            for p in plan_collection(spec)[:pieces]]


def timed_run(executor: Executor, requests: Iterable[GenerationRequest]) -> tuple[float, dict[int, bytes | None]]:
    start = time.perf_counter()
    pngs = {r.token_id: r.png for r in executor.run(requests)}
    return time.perf_counter() - start, pngs


def bench_ray(settings: ExecutorSettings, generator: GeneratorSettings, requests: list[GenerationRequest],
              reference: dict[int, bytes | None]) -> dict[str, float]:
    from mintprep.executors.ray import RayExecutor

    start = time.perf_counter()
    executor = RayExecutor(settings, generator)
    try:
        executor.request_key(requests[0])  # the actors start here: nothing about the workers is remembered yet
        startup = time.perf_counter() - start
        key_start = time.perf_counter()
        for request in requests:
            executor.request_key(request)
        key_round_trip = (time.perf_counter() - key_start) / len(requests)
        wall, pngs = timed_run(executor, requests)
        assert pngs == reference, "Ray returned different PNG bytes than the local executor"
        busy = sum(w.busy_s for w in executor.stats.workers)
    finally:
        executor.close()
    return {"startup_s": startup, "wall_s": wall, "busy_s": busy, "key_round_trip_ms": 1000 * key_round_trip}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", type=int, default=16)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--size", type=int, default=64, help="width and height of the sampled image")
    parser.add_argument("--threads", type=int, default=1, help="torch threads in the driver and every actor")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--num-gpus", type=float, default=0.0, help="GPUs per actor")
    parser.add_argument("--address", default=None, help="a Ray cluster to join; default: a new local one")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch.set_num_threads(args.threads)

    import ray

    ray.init(address=args.address, include_dashboard=False if args.address is None else None,
             log_to_driver=False, logging_level="ERROR")
    generator = GeneratorSettings(steps=args.steps, width=args.size, height=args.size, device=args.device)
    requests = requests_for(args.pieces, generator)

    start = time.perf_counter()
    local = LocalExecutor(generator)
    list(local.run(requests[:1]))  # the model loads on the first piece
    local_load = time.perf_counter() - start
    local_wall, reference = timed_run(local, requests)
    local_rate = 60 * len(requests) / local_wall
    rows = [{"executor": "local", "workers": 1, "pieces_per_min": local_rate, "ratio": 1.0,
             "startup_s": local_load}]

    for workers in args.workers:
        for queue in (2, 1) if workers == 1 else (2,):
            settings = ExecutorSettings(kind="ray", num_workers=workers, queue_per_worker=queue, num_cpus=1,
                                        num_gpus=args.num_gpus)
            got = bench_ray(settings, generator, requests, reference)
            rate = 60 * len(requests) / got["wall_s"]
            rows.append({"executor": "ray", "workers": workers, "queue_per_worker": queue, "pieces_per_min": rate,
                         "ratio": rate / local_rate, "startup_s": got["startup_s"],
                         "dispatch_overhead_ms": 1000 * (got["wall_s"] - got["busy_s"] / workers) / len(requests),
                         "key_round_trip_ms": got["key_round_trip_ms"]})
    ray.shutdown()

    print(f"{len(requests)} pieces, {args.size}x{args.size}, {args.steps} steps, {args.threads} torch thread(s), "
          f"device {args.device}, {os.cpu_count()} CPUs", file=sys.stderr)
    for row in rows:
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}))


if __name__ == "__main__":
    main()
