"""A Ray cluster on 127.0.0.1 with two CPUs, started once per test module and stopped after it (so no idle Ray
processes sit beside the rest of the suite)."""

from __future__ import annotations

import os
from typing import Iterator

import pytest
import torch

try:
    import ray
except ImportError:  # `make test` installs the ray extra; under CI a missing Ray is a failure, not a skip
    if os.environ.get("CI"):
        raise
    pytest.skip("ray not installed (pip install -e '.[test,ray]'); `make test` installs it", allow_module_level=True)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    from mintprep.executors.ray import LOOPBACK, loopback_only

    with loopback_only():  # as mintprep's own local clusters: nothing listens beyond 127.0.0.1
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                 _node_ip_address=LOOPBACK)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def one_torch_thread() -> Iterator[None]:
    """One intra-op thread in the driver, hence (by default) in every actor: two CPU workers on two cores do not
    fight over them, and a local run and a Ray run sum in the same order, so their bytes can be compared."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
