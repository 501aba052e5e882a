"""The `executor:` section of collection.yaml."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mintprep.base import StrictModel, UserError


class ExecutorSettings(StrictModel):
    kind: Literal["local", "ray"] = "local"
    address: str | None = Field(
        None,
        description="ray: the cluster to join (`auto`, `HOST:6379`, `ray://HOST:10001`); default: RAY_ADDRESS, "
        "else a cluster `ray start` began on this machine, else a new local one. A Ray already initialised in "
        "the calling process is used as it is",
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
        description="ray: pipeline calls (of generator.batch_size pieces) handed to each actor ahead of time, so it never waits on the driver between calls",
    )
    piece_retries: int = Field(
        3, ge=0, le=100,
        description="ray: times a piece is dispatched again after its worker died; then the run stops with an error",
    )


def with_cli_overrides(settings: ExecutorSettings, *, kind: str | None = None,
                       address: str | None = None) -> ExecutorSettings:
    """`mintprep run --executor KIND --ray-address ADDRESS` over the file's `executor:` section. An address alone
    means Ray; the other keys (num_workers, num_gpus, ...) stay as the file has them."""
    if address is not None:
        if kind == "local":
            raise UserError("--ray-address needs --executor ray (or no --executor)")
        kind = "ray"
    changes = {key: value for key, value in (("kind", kind), ("address", address)) if value is not None}
    return ExecutorSettings.model_validate({**settings.model_dump(), **changes}) if changes else settings
