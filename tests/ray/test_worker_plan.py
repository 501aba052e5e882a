"""How many actors a cluster gets, how the CLI flags combine with the file, and a cluster address that cannot
work (no cluster needed)."""

from __future__ import annotations

import socket

import pytest
import ray

from mintprep.base.errors import ConfigError, UserError
from mintprep.executors.ray import connect, plan_workers
from mintprep.executors.settings import ExecutorSettings, with_cli_overrides


@pytest.mark.parametrize(("settings", "resources", "expected"), [
    (ExecutorSettings(kind="ray"), {"CPU": 2.0}, (2, 0.0)),
    (ExecutorSettings(kind="ray", num_cpus=2), {"CPU": 5.0}, (2, 0.0)),
    (ExecutorSettings(kind="ray"), {"CPU": 16.0, "GPU": 4.0}, (4, 1.0)),
    (ExecutorSettings(kind="ray", num_gpus=0.5), {"CPU": 16.0, "GPU": 2.0}, (4, 0.5)),
    (ExecutorSettings(kind="ray", num_gpus=0, num_workers=3), {"CPU": 16.0, "GPU": 2.0}, (3, 0.0)),
])
def test_workers_fill_the_cluster_unless_told(settings, resources, expected):
    assert plan_workers(settings, resources) == expected


@pytest.mark.parametrize(("settings", "resources"), [
    (ExecutorSettings(kind="ray", num_workers=3), {"CPU": 2.0}),
    (ExecutorSettings(kind="ray", num_gpus=1), {"CPU": 8.0}),
    (ExecutorSettings(kind="ray", num_cpus=4), {"CPU": 2.0}),
])
def test_workers_that_cannot_fit_are_a_config_error(settings, resources):
    with pytest.raises(ConfigError, match=r"executor\.num_workers.*do not fit"):
        plan_workers(settings, resources)


@pytest.mark.parametrize(("file", "kind", "address", "expected"), [
    ({}, None, None, {"kind": "local", "address": None}),
    ({}, "ray", None, {"kind": "ray", "address": None}),
    ({}, None, "10.0.0.5:6379", {"kind": "ray", "address": "10.0.0.5:6379"}),
    ({"kind": "ray", "address": "auto", "num_workers": 3}, "local", None,
     {"kind": "local", "address": "auto", "num_workers": 3}),
    ({"kind": "ray", "num_gpus": 0.5}, None, "ray://head:10001",
     {"kind": "ray", "address": "ray://head:10001", "num_gpus": 0.5}),
])
def test_cli_flags_override_the_file(file, kind, address, expected):
    got = with_cli_overrides(ExecutorSettings(**file), kind=kind, address=address).model_dump()
    assert {key: got[key] for key in expected} == expected


def test_a_ray_address_with_the_local_executor_is_bad_input():
    with pytest.raises(UserError, match="--ray-address"):
        with_cli_overrides(ExecutorSettings(), kind="local", address="auto")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(("address", "message"), [  # {port}: a closed port chosen when the test runs
    ("127.0.0.1:{port}", "no Ray cluster answers at 127.0.0.1"),
    ("ray://127.0.0.1:{port}", "no Ray cluster answers at ray://127.0.0.1"),
    ("head-node", "is not HOST:PORT"),
])
def test_an_address_without_a_cluster_is_bad_input_said_at_once(address, message):
    address = address.format(port=closed_port())
    assert not ray.is_initialized()
    with pytest.raises(UserError, match=message):
        connect(ExecutorSettings(kind="ray", address=address))
    assert not ray.is_initialized()
