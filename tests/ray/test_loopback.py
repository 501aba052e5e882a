"""A Ray cluster mintprep starts on this machine listens on 127.0.0.1 only (GCS, raylet, workers, agents).

Run in a child process so the cluster it starts is its own; the listening sockets of that process tree are
read with psutil (what `ss -ltnp` shows).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

CHILD = r"""
import json, psutil, ray
from mintprep.executors.ray import connect
from mintprep.executors.settings import ExecutorSettings
assert connect(ExecutorSettings(kind="ray"))
ray.get(ray.remote(lambda: 1).remote())  # a worker process too
tree = {p.pid for p in psutil.Process().children(recursive=True)} | {psutil.Process().pid}
listening = sorted({c.laddr.ip for c in psutil.net_connections("inet")
                    if c.status == psutil.CONN_LISTEN and c.pid in tree})
ray.shutdown()
print(json.dumps(listening))
"""


@pytest.mark.ray  # starts its own cluster in a child process (no `ray_cluster` fixture to mark it)
def test_a_local_cluster_binds_the_loopback_only():
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=240,
                          env={**env, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr[-2000:]
    listening = json.loads(done.stdout.strip().splitlines()[-1])
    assert listening, "the cluster listens somewhere"
    assert set(listening) <= {"127.0.0.1", "::ffff:127.0.0.1"}, listening
