"""Generation fanned out over a Ray cluster: actors that each hold one loaded pipeline.

The driver hands every actor `queue_per_worker` pipeline calls (a batch of pieces each) ahead of time and yields results as they finish. Guards and
the precision ladder run inside the actor (it calls the same `Generator.generate` as a local run), and only the
driver records results (the generate stage, mintprep.stages.generate), so a worker that dies mid-piece costs that piece's compute and nothing
else: the actor is replaced and its pieces are dispatched again. A token is in flight in one place at a time and is
yielded only from a successful result, so no piece is recorded twice.

Request keys are computed in the driver without a model load or an actor: the fingerprint of the model's files, and
the environment (device, threads, versions) the workers reported the last time they ran with these executor
settings. The actors start on the first piece to generate; each reports what it loaded, and a run whose keys do not
match stops before recording anything (mintprep.executors.local.check_keys_hold). Only when no worker environment is
remembered yet, or the model's files are not visible to the driver, are the workers started to key the pieces.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import socket
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import torch

from mintprep.base import ConfigError, MintprepError, RemoteError, UserError

try:
    import ray
    from ray.exceptions import RayActorError, RayTaskError
except ImportError as missing:  # the executor is an optional extra
    raise UserError("executor.kind: ray needs Ray installed: pip install 'mintprep[ray]'") from missing

from mintprep.executors.local import check_keys_hold  # noqa: E402 (after the optional import it explains)
from mintprep.executors.settings import ExecutorSettings  # noqa: E402
from mintprep.generate import (FingerprintCache, GenerationRequest, GenerationResult, Generator, GeneratorSettings,
                               calls, check_compatible, load_generator, model_fingerprint, numeric_versions,
                               request_key)

# Ray 2.5x+ refuses a driver without the cluster's token (RAY_AUTH_MODE=token) with this error.
RAY_AUTH_ERRORS: tuple[type[BaseException], ...] = tuple(
    error for error in (getattr(ray.exceptions, "AuthenticationError", None),) if error is not None)
WORKER_NAME_PREFIX = "mintprep-generate-"  # actors are named so `ray list actors` shows what they are
CONTROL_GROUP = "control"  # answers `describe` while the default group is busy generating


# -- progress ------------------------------------------------------------------------------------

@dataclass
class WorkerStats:
    name: str
    node: str = "?"
    pid: int | None = None
    pieces: int = 0
    busy_s: float = 0.0  # time spent inside generate, measured by the worker
    lost: bool = False

    @property
    def pieces_per_minute(self) -> float:
        return 60.0 * self.pieces / self.busy_s if self.busy_s else 0.0


@dataclass
class RayRunStats:
    """What a progress display shows; updated in place and handed to `on_progress` after every change."""

    total: int = 0
    done: int = 0
    workers_lost: int = 0
    redispatched: int = 0
    workers: list[WorkerStats] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    @property
    def pieces_per_minute(self) -> float:
        elapsed = time.monotonic() - self.started
        return 60.0 * self.done / elapsed if elapsed > 0 else 0.0

    def summary(self) -> str:
        live = [w for w in self.workers if not w.lost]
        rates = ", ".join(f"{w.name.removeprefix(WORKER_NAME_PREFIX)} {w.pieces_per_minute:.1f}/min" for w in live)
        text = f"{self.done}/{self.total} done, {self.pieces_per_minute:.1f}/min on {len(live)} workers ({rates})"
        if self.workers_lost:
            text += f"; {self.workers_lost} workers lost, {self.redispatched} pieces dispatched again"
        return text


ProgressCallback = Callable[[RayRunStats], None]


# -- the actor -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class WorkerInfo:
    node: str
    pid: int
    load_error: MintprepError | None
    keyed_with: tuple[str, dict] | None  # the loaded model's files fingerprint and key environment


@dataclass(frozen=True)
class Finished:
    results: list[GenerationResult]  # one pipeline call's pieces
    busy_s: float  # time inside generate, measured by the worker


@ray.remote(concurrency_groups={CONTROL_GROUP: 1})
class GenerationWorker:
    """One loaded generator per actor, so weights load once per worker, not once per piece."""

    def __init__(self, settings: GeneratorSettings, torch_threads: int):
        torch.set_num_threads(torch_threads)  # Ray would give it num_cpus threads; the count changes CPU pixels
        self._load_error: MintprepError | None = None
        try:
            self._generator = load_generator(settings)
        except MintprepError as err:  # bad model path and the like: reported by the driver as a local run would
            self._load_error = err

    @ray.method(concurrency_group=CONTROL_GROUP)
    def describe(self) -> WorkerInfo:
        keyed_with = None if self._load_error else (self._generator.files_fingerprint,
                                                    self._generator.key_environment())
        return WorkerInfo(socket.gethostname(), os.getpid(), self._load_error, keyed_with)

    def request_key(self, request: GenerationRequest) -> str:
        return self._loaded().request_key(request)

    def generate(self, call: list[GenerationRequest]) -> Finished:
        """One pipeline call of pieces (mintprep.generate.key.calls): each worker batches as a local run does."""
        start = time.perf_counter()
        results = self._loaded().generate_batch(call)
        return Finished(results, time.perf_counter() - start)

    def _loaded(self) -> Generator:
        if self._load_error is not None:
            raise self._load_error
        return self._generator


@dataclass
class _Worker:
    handle: ray.actor.ActorHandle
    stats: WorkerStats
    loading: ray.ObjectRef | None  # its `describe` call, until the generator is loaded
    in_flight: int = 0


# -- the executor --------------------------------------------------------------------------------

class RayExecutor:
    """Runs GenerationRequests on Ray actors; see the module docstring for the guarantees."""

    def __init__(self, settings: ExecutorSettings, generator: GeneratorSettings, *,
                 on_progress: ProgressCallback | None = None, cache: FingerprintCache | None = None):
        self._settings = settings
        self._generator_settings = generator
        self._on_progress = on_progress or (lambda stats: None)
        self._run_id = uuid.uuid4().hex[:8]
        self._spawned = 0
        self._workers: list[_Worker] = []
        self.stats = RayRunStats()
        self._cache = cache or FingerprintCache()
        self._owns_ray = False
        self._started = False
        self._keyed_with: tuple[str, dict] | None = None
        self._worker_keys: tuple[str, dict] | None = None  # what the first settled worker loaded

    # -- Executor protocol ---------------------------------------------------------------------

    def request_key(self, request: GenerationRequest) -> str:
        check_compatible(self._generator_settings, request.settings)
        if self._keyed_with is None:
            self._keyed_with = self._remembered_keys() or self._start()
        return request_key(request, *self._keyed_with)

    def _remembered_keys(self) -> tuple[str, dict] | None:
        """The model's files as the driver sees them, and the workers' environment from their last run."""
        remembered = self._cache.environment(self._environment_identity())
        if remembered is None:
            return None
        try:
            return model_fingerprint(self._generator_settings, self._cache), remembered
        except UserError:  # the model lies where only the workers see it
            return None

    def _environment_identity(self) -> dict:
        return {"ray": self._settings.model_dump(mode="json", include={"address", "num_gpus", "num_cpus",
                                                                         "torch_threads"}),
                "driver_threads": torch.get_num_threads(), "device": self._generator_settings.device,
                "versions": numeric_versions()}

    def _start(self) -> tuple[str, dict]:
        """Join Ray and start the actors (once); what the first of them loaded."""
        if not self._started:
            self._started = True
            self._owns_ray = connect(self._settings)
            try:
                count, self._gpus_per_worker = plan_workers(self._settings, ray.cluster_resources())
                self._workers = [self._spawn() for _ in range(count)]
                for worker in list(self._workers):
                    self._settle(worker)  # a generator that cannot load is reported now, before any piece runs
            except BaseException:
                self.close()
                raise
        assert self._worker_keys is not None
        return self._worker_keys

    def run(self, requests: Iterable[GenerationRequest]) -> Iterator[GenerationResult]:
        pending: dict[int, GenerationRequest] = {}
        for request in requests:
            if request.token_id in pending:
                raise ValueError(f"token {request.token_id} requested twice in one run")
            pending[request.token_id] = request
        if not pending:
            return
        check_keys_hold(self._keyed_with, self._start(), self._generator_settings, self._cache)
        self._any_worker()
        queue = deque(calls(pending.values()))
        in_flight: dict[ray.ObjectRef, tuple[list[GenerationRequest], _Worker]] = {}
        deaths: dict[int, int] = {}
        if not self.stats.total:
            self.stats.started = time.monotonic()  # rates count from the first dispatch, not from the model loads
        self.stats.total += len(pending)
        try:
            while pending:
                self._dispatch(queue, in_flight)
                loading = {w.loading: w for w in self._workers if w.loading is not None}
                [ref], _ = ray.wait([*in_flight, *loading], num_returns=1)
                if ref in loading:  # a replacement finished loading: it takes work from the next dispatch on
                    self._settle(loading[ref])
                    continue
                call, worker = in_flight.pop(ref)
                worker.in_flight -= 1
                token_id = call[0].token_id
                try:
                    finished: Finished = ray.get(ref)
                except RayActorError as err:
                    self._replace(worker, err)
                    deaths[token_id] = deaths.get(token_id, 0) + 1
                    if deaths[token_id] > self._settings.piece_retries:
                        raise RemoteError(f"token {token_id}: its Ray worker died {deaths[token_id]} times "
                                          f"(executor.piece_retries is {self._settings.piece_retries})") from err
                    queue.appendleft(call)
                    self.stats.redispatched += 1
                    self._on_progress(self.stats)
                    continue
                except RayTaskError as err:
                    raise _cause(err) from None
                worker.stats.busy_s += finished.busy_s
                for result in finished.results:
                    del pending[result.token_id]  # the only place a result is released: once per token
                    worker.stats.pieces += 1
                    self.stats.done += 1
                    self._on_progress(self.stats)
                    yield result
        except BaseException:
            # Ctrl-C, a failed piece, or the consumer stopping: nothing more is dispatched and no actor keeps
            # computing pieces nobody will record; what was already yielded is the driver's to keep.
            self._stop_workers()
            raise

    def status(self) -> str | None:
        return self.stats.summary()

    def close(self) -> None:
        self._stop_workers()
        if self._owns_ray and ray.is_initialized():
            ray.shutdown()
        self._owns_ray = False

    # -- workers -------------------------------------------------------------------------------

    def _spawn(self) -> _Worker:
        name = f"{WORKER_NAME_PREFIX}{self._run_id}-{self._spawned}"
        self._spawned += 1
        handle = GenerationWorker.options(
            name=name, num_cpus=self._settings.num_cpus, num_gpus=self._gpus_per_worker, max_restarts=0,
        ).remote(self._generator_settings, self._settings.torch_threads or torch.get_num_threads())
        worker = _Worker(handle, WorkerStats(name), loading=handle.describe.remote())
        self.stats.workers.append(worker.stats)
        return worker

    def _settle(self, worker: _Worker) -> None:
        """Wait for a worker's load; a load error is raised as a local load would raise it."""
        try:
            info: WorkerInfo = ray.get(worker.loading)
        except RayActorError as err:
            self._replace(worker, err)
            return
        if info.load_error is not None:
            raise info.load_error
        if self._worker_keys is None:
            self._worker_keys = info.keyed_with
            self._cache.remember_environment(self._environment_identity(), info.keyed_with[1])
        elif info.keyed_with != self._worker_keys:
            raise RemoteError(f"Ray worker {worker.stats.name} loaded another model or runs elsewhere than its peers "
                              f"({info.keyed_with[1]} vs {self._worker_keys[1]}): their pieces would not agree")
        worker.loading = None
        worker.stats.node, worker.stats.pid = info.node, info.pid

    def _dispatch(self, queue: deque[list[GenerationRequest]], in_flight: dict) -> None:
        """Top workers up to `queue_per_worker` pieces, level by level so pieces spread evenly. A worker still
        loading gets none while another is ready: a replacement's load must not hold pieces others could run."""
        ready = [w for w in self._workers if w.loading is None] or self._workers
        for level in range(self._settings.queue_per_worker):
            for worker in ready:
                if queue and worker.in_flight <= level:
                    call = queue.popleft()
                    in_flight[worker.handle.generate.remote(call)] = (call, worker)
                    worker.in_flight += 1

    def _replace(self, worker: _Worker, err: RayActorError) -> None:
        """Swap a dead actor for a fresh one (once, though each of its queued pieces reports the death)."""
        if worker not in self._workers:
            return
        if err.actor_init_failed:  # its __init__ raised: a replacement would fail the same way, forever
            raise RemoteError(f"a Ray worker could not load the generator: {_first_line(str(err))}") from err
        worker.stats.lost = True
        self.stats.workers_lost += 1
        ray.kill(worker.handle, no_restart=True)  # an unreachable actor may come back; it must not keep working
        self._workers[self._workers.index(worker)] = self._spawn()

    def _any_worker(self) -> _Worker:
        if not self._workers:
            raise RuntimeError("this RayExecutor was stopped (closed, interrupted or failed); make a new one")
        return next((w for w in self._workers if w.loading is None), self._workers[0])

    def _stop_workers(self) -> None:
        for worker in self._workers:
            ray.kill(worker.handle, no_restart=True)
        self._workers = []


# -- pure parts ----------------------------------------------------------------------------------

def connect(settings: ExecutorSettings) -> bool:
    """Join the Ray this process already uses, else `executor.address`; True when this call started Ray."""
    if ray.is_initialized():
        return False
    if settings.address not in (None, "auto"):
        _check_reachable(settings.address)
    try:
        # address None follows Ray's own lookup: RAY_ADDRESS, a `ray start` cluster on this machine, else a new
        # local one. Worker output stays in Ray's log files: N progress streams would bury the driver's.
        if _starts_a_local_cluster(settings.address):
            with loopback_only():
                ray.init(address="local", log_to_driver=False, logging_level=logging.WARNING,
                         include_dashboard=False, _node_ip_address=LOOPBACK)
        else:
            ray.init(address=settings.address, log_to_driver=False, logging_level=logging.WARNING)
    except RAY_AUTH_ERRORS as err:
        raise UserError(f"executor.address: the Ray cluster at {settings.address or 'default'} requires an "
                        "authentication token: set RAY_AUTH_MODE=token and RAY_AUTH_TOKEN (or RAY_AUTH_TOKEN_PATH) "
                        f"to the cluster's token ({_first_line(err.message if hasattr(err, 'message') else str(err))})"
                        ) from None
    except (ConnectionError, ValueError, RuntimeError, PermissionError) as err:
        raise UserError(f"executor.address: cannot join the Ray cluster at {settings.address or 'default'}: "
                        f"{_first_line(str(err))}") from err
    return True


LOOPBACK = "127.0.0.1"


def _starts_a_local_cluster(address: str | None) -> bool:
    """Whether ray.init(address) would start a new cluster on this machine (rather than join one)."""
    if address == "local":
        return True
    if address is not None:
        return False
    from ray._private.services import canonicalize_bootstrap_address  # noqa: PLC0415 - Ray's own lookup

    try:
        return canonicalize_bootstrap_address(None) is None
    except (ConnectionError, ValueError):
        return False  # a cluster is named (RAY_ADDRESS) but not reachable: let ray.init say so


@contextlib.contextmanager
def loopback_only() -> Iterator[None]:
    """A local cluster started here listens on 127.0.0.1 only, not on every interface of the machine.

    Ray binds its GCS, raylet and workers to the loopback only when the node address is exactly 127.0.0.1,
    but ray.init replaces 127.0.0.1 by the machine's reachable address first (for clusters other machines
    join); a cluster that only this process uses has no such joiners, so the address is kept as given.
    """
    from ray._private import services  # noqa: PLC0415

    original = services.resolve_ip_for_localhost
    services.resolve_ip_for_localhost = lambda host: host if host == LOOPBACK else original(host)
    try:
        yield
    finally:
        services.resolve_ip_for_localhost = original


def _check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Ray retries an unreachable head for minutes; a refused or silent port is bad input, said at once."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except ValueError as err:
        raise UserError(f"executor.address: {address!r} is not HOST:PORT, ray://HOST:PORT or auto") from err
    except OSError as err:
        raise UserError(f"executor.address: no Ray cluster answers at {address}: {err}") from err


def plan_workers(settings: ExecutorSettings, resources: dict[str, float]) -> tuple[int, float]:
    """(number of actors, GPUs per actor) for a cluster with `resources` (ray.cluster_resources())."""
    cpus, gpus = resources.get("CPU", 0.0), resources.get("GPU", 0.0)
    gpus_each = settings.num_gpus if settings.num_gpus is not None else (1.0 if gpus >= 1 else 0.0)
    fits = math.floor(cpus / settings.num_cpus + 1e-9)
    if gpus_each:
        fits = min(fits, math.floor(gpus / gpus_each + 1e-9))
    wanted = settings.num_workers if settings.num_workers is not None else fits
    if wanted < 1 or wanted > fits:
        raise ConfigError(
            f"executor.num_workers: {wanted} actors of {settings.num_cpus:g} CPUs and {gpus_each:g} GPUs do not fit "
            f"the Ray cluster ({cpus:g} CPUs, {gpus:g} GPUs); lower executor.num_workers, num_cpus or num_gpus")
    return wanted, gpus_each


def _cause(err: RayTaskError) -> BaseException:
    """A MintprepError raised in a worker is reported as the driver would report it locally."""
    cause = getattr(err, "cause", None)
    return cause if isinstance(cause, MintprepError) else err


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text
