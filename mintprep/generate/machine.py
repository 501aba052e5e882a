"""What about this machine decides the bytes a generator makes, read without torch (or pydantic): the versions of
the numeric libraries and the identity of the environment torch would probe. Its own module so that a command that
only compares machines (a `run` deciding nothing changed) loads no settings model.
"""

from __future__ import annotations

import glob
import importlib.metadata
import os
import socket
import sys
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

# The variables torch reads to pick its thread count and the devices it sees.
ENVIRONMENT_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
                         "ROCR_VISIBLE_DEVICES", "PYTORCH_ENABLE_MPS_FALLBACK")
NUMERIC_DISTRIBUTIONS = ("torch", "diffusers", "transformers", "numpy", "pillow")


@lru_cache(maxsize=1)
def numeric_versions() -> dict[str, str]:
    """Versions whose change may change the bytes of a piece (kernels, model code, rounding, PNG compression),
    read from the installed distributions' metadata, so asking costs no import of torch."""
    versions = {name: importlib.metadata.version(name) for name in NUMERIC_DISTRIBUTIONS}
    return {**versions, "zlib": zlib.ZLIB_RUNTIME_VERSION}


def environment_identity(device: str) -> dict[str, Any]:
    """Everything that decides `probe_environment`'s answer, readable without torch."""
    boot = Path("/proc/sys/kernel/random/boot_id")
    affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    return {
        "python": [sys.executable, sys.version],
        "versions": numeric_versions(),
        "device": device,
        "cpus": [os.cpu_count(), len(affinity) if affinity is not None else None],
        "variables": {name: os.environ.get(name) for name in ENVIRONMENT_VARIABLES},
        "gpu_nodes": sorted(glob.glob("/dev/nvidia*") + glob.glob("/dev/kfd") + glob.glob("/dev/dri/renderD*")),
        "host": [socket.gethostname(), boot.read_text().strip() if boot.is_file() else None],
    }
