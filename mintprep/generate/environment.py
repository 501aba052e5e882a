"""The hardware and software facts of the device a generator runs on, for provenance (the versions that change
pixels are in mintprep.generate.fingerprint, read without importing torch)."""

from __future__ import annotations

import contextlib
import os
import platform
from collections.abc import Iterator
from typing import Any

import safetensors
import torch
from transformers.utils import logging as transformers_logging


def resolve_device(requested: str) -> torch.device:
    if requested == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    return torch.device(requested)


def device_facts(device: torch.device) -> dict[str, Any]:
    facts: dict[str, Any] = {"type": device.type, "python": platform.python_version(),
                             "safetensors": safetensors.__version__, "machine": platform.machine(),
                             "processor": platform.processor() or platform.machine(),
                             "torch_threads": torch.get_num_threads(),
                             "deterministic_algorithms": torch.are_deterministic_algorithms_enabled()}
    if device.type == "cuda":
        index = device.index if device.index is not None else torch.cuda.current_device()
        facts.update({
            "name": torch.cuda.get_device_name(index),
            "capability": ".".join(map(str, torch.cuda.get_device_capability(index))),
            "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(),
            "tf32_matmul": torch.backends.cuda.matmul.allow_tf32,
            "tf32_cudnn": torch.backends.cudnn.allow_tf32,
            "cudnn_benchmark": torch.backends.cudnn.benchmark,
            "cublas_workspace_config": os.environ.get("CUBLAS_WORKSPACE_CONFIG"),
        })
    return facts


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Importing diffusers' pipelines makes transformers announce that its image processors fall back to PIL
    without torchvision: true, irrelevant to text-to-image, and it buried mintprep's own output."""
    previous = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()
    try:
        yield
    finally:
        transformers_logging.set_verbosity(previous)
