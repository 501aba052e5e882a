"""The `executor:` section of collection.yaml."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mintprep.model import StrictModel


class ExecutorSettings(StrictModel):
    kind: Literal["local", "ray"] = "local"
    address: str | None = Field(
        None,
        description="ray: the cluster to join (`auto`, `HOST:6379`, `ray://HOST:10001`); default: the Ray "
        "already initialised in this process, else a new local one on this machine",
    )
    num_workers: int | None = Field(
        None, ge=1, le=10_000,
        description="ray: actors to start, each holding one loaded pipeline; default: as many as the cluster's "
        "GPUs (or CPUs, for CPU actors) fit",
    )
    num_gpus: float | None = Field(
        None, ge=0, le=64,
        description="ray: GPUs reserved per actor (fractions share a card); default: 1 when the cluster has "
        "GPUs, else 0 (CPU actors)",
    )
    num_cpus: float = Field(1.0, gt=0, le=1024, description="ray: CPUs reserved per actor")
    torch_threads: int | None = Field(
        None, ge=1, le=1024,
        description="ray: torch CPU threads in each actor; default: the driver's own count, so CPU pieces match a "
        "local run byte for byte (CPU kernels split their sums by thread count). 1 with num_cpus 1 is fastest "
        "on CPU clusters, at the price of pieces that differ from a local run's",
    )
    queue_per_worker: int = Field(
        2, ge=1, le=64,
        description="ray: pieces handed to each actor ahead of time, so it never waits on the driver between pieces",
    )
    piece_retries: int = Field(
        3, ge=0, le=100,
        description="ray: times a piece is dispatched again after its worker died; then the run stops with an error",
    )
