"""Pinning backends behind one interface; `make_backend` builds the one a collection's settings name."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mintprep.base import face

if TYPE_CHECKING:
    from mintprep.ipfs.backends.base import PinBackend
    from mintprep.ipfs.settings import IpfsSettings

# The remote backends load on first use: a command that reads only the local store (export, status) loads no HTTP
# client (requests and urllib3 were a third of `export`'s start).
__all__, __getattr__ = face(__name__, {
    "CidMismatch": "base", "PinBackend": "base", "PinReceipt": "base", "PinRequest": "base",
    "ClusterBackend": "cluster", "KuboBackend": "kubo", "LocalBackend": "local", "PinataBackend": "pinata",
    "PsaBackend": "psa",
})
__all__ = sorted([*__all__, "make_backend"])


def make_backend(settings: IpfsSettings, state_dir: Path, **http: Any) -> PinBackend:
    """The backend for `settings`; `state_dir` is the collection's `.mintprep/` (local store in ipfs/).

    `http` (policy=RetryPolicy, sleep=callable, concurrency=int) tunes retries and requests in flight, for tests and
    impatient callers.
    """
    if settings.backend == "local":
        from mintprep.ipfs.backends.local import LocalBackend

        return LocalBackend(state_dir)
    from mintprep.net import RetryPolicy
    from mintprep.ipfs.backends.cluster import ClusterBackend
    from mintprep.ipfs.backends.kubo import KuboBackend
    from mintprep.ipfs.backends.pinata import PinataBackend
    from mintprep.ipfs.backends.psa import PsaBackend

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
