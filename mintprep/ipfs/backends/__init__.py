"""Pinning backends behind one interface; `make_backend` builds the one a collection's settings name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mintprep.net import RetryPolicy
from mintprep.ipfs.backends.base import CidMismatch, PinBackend, PinReceipt, PinRequest
from mintprep.ipfs.backends.cluster import ClusterBackend
from mintprep.ipfs.backends.kubo import KuboBackend
from mintprep.ipfs.backends.local import LocalBackend
from mintprep.ipfs.backends.pinata import PinataBackend
from mintprep.ipfs.backends.psa import PsaBackend
from mintprep.ipfs.settings import IpfsSettings

__all__ = ["CidMismatch", "ClusterBackend", "KuboBackend", "LocalBackend", "PinBackend", "PinReceipt", "PinRequest", "PinataBackend", "PsaBackend", "make_backend"]


def make_backend(settings: IpfsSettings, state_dir: Path, **http: Any) -> PinBackend:
    """The backend for `settings`; `state_dir` is the collection's `.mintprep/` (local store in ipfs/).

    `http` (policy=RetryPolicy, sleep=callable, concurrency=int) tunes retries and requests in flight, for tests and
    impatient callers.
    """
    if settings.backend == "local":
        return LocalBackend(state_dir)
    http.setdefault("policy", RetryPolicy(timeout=settings.request_timeout_s, give_up_after=settings.give_up_after_s,
                                          min_bytes_per_s=settings.min_throughput_kib_s * 1024))
    token = settings.token()
    http = {"concurrency": settings.pin_concurrency, **http}
    if settings.backend == "kubo":
        assert settings.api_url
        return KuboBackend(settings.api_url, token=token, car_max_bytes=settings.car_max_bytes, **http)
    if settings.backend == "cluster":
        assert settings.api_url
        cluster = settings.cluster
        return ClusterBackend(settings.api_url, gateway=settings.gateway, token=token, basic_auth=cluster.basic_auth(),
                              replication_min=cluster.replication_min, replication_max=cluster.replication_max,
                              replicated_within_s=cluster.replicated_within_s, **http)
    assert token
    if settings.backend == "psa":
        assert settings.api_url
        return PsaBackend(settings.api_url, token=token, gateway=settings.gateway, pin_timeout=settings.pin_timeout_s, **http)
    return PinataBackend(token=token, gateway=settings.gateway, api_url=settings.api_url, upload_url=settings.upload_url, **http)
