"""The generate stage on a real Ray cluster (two CPU workers on 127.0.0.1, started by conftest), through the real
pipeline, tiny model, SQLite ledger and local IPFS store; compared with the local executor on the same pieces."""

from __future__ import annotations

import os
import contextlib
import signal
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import pytest
import ray

from mintprep.collection.config import load_collection
from mintprep.base.errors import ConfigError
from mintprep.executors.ray import WORKER_NAME_PREFIX, RayExecutor
from mintprep.executors.settings import ExecutorSettings
from mintprep.generate import GenerationRequest, GeneratorSettings
from mintprep.state.ledger import Ledger
from mintprep.commands import run_collection
from tests.conftest import write_collection

pytestmark = pytest.mark.slow

SIZE = 8
STEPS = 10  # ~0.2 s a piece on one thread: long enough to kill a worker while the run is going


@dataclass(frozen=True)
class Outcome:
    pngs: dict[int, bytes]
    image_cids: dict[int, str]
    generations_per_token: dict[int, int]
    metadata_root: str
    manifest_cid: str


def collection(folder: Path, **changes: object) -> Path:
    return write_collection(folder, size=SIZE, generator__steps=STEPS, **changes)


def outcome(path: Path) -> Outcome:
    col = load_collection(path)
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        record = ledger.current_manifest()
        tokens = record.manifest.to_json()["tokens"]
        pngs = {t["token_id"]: ledger.objects.get(t["png_sha256"]) for t in tokens}
        cids = {t["token_id"]: t["image_cid"] for t in tokens}
    return Outcome(pngs, cids, generations_per_token(path), record.metadata_root, record.manifest_cid)


def generations_per_token(path: Path) -> dict[int, int]:
    """Straight from the ledger's table, so a duplicate row would show."""
    with sqlite3.connect(f"file:{path.parent / '.mintprep' / 'state.db'}?mode=ro", uri=True) as conn:
        return dict(conn.execute("SELECT token_id, count(*) FROM generations GROUP BY token_id").fetchall())


def live_workers() -> dict[str, int]:
    """name -> pid of this job's generation actors, asked of the actors themselves."""
    pids = {}
    for name in ray.util.list_named_actors():
        if name.startswith(WORKER_NAME_PREFIX):
            try:
                pids[name] = ray.get(ray.get_actor(name).describe.remote(), timeout=30).pid
            except (ValueError, ray.exceptions.RayError):
                pass  # died between the listing and the call
    return pids


def gone(pid: int, within_s: float = 20.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


class AtGeneration:
    """A progress sink that runs `action` in the run's own thread as the `count`th piece is recorded, noting how
    many were recorded then. Set by the code, not found by polling: a thread polling the ledger let a loaded
    machine finish the run before it fired ("DID NOT RAISE KeyboardInterrupt" at load 6-10)."""

    def __init__(self, count: int, action: Callable[["AtGeneration"], object]):
        self.count, self.action = count, action
        self.recorded = 0
        self.fired_at: int | None = None
        self.result: object = None

    @contextlib.contextmanager
    def task(self, description: str, total: int) -> Iterator[Callable[..., None]]:
        def advance(note: object = None) -> None:
            if description != "generate":
                return
            self.recorded += 1
            if self.recorded == self.count:
                self.fired_at = self.recorded
                self.result = self.action(self)

        yield advance


@pytest.fixture(scope="module")
def local_reference(tmp_path_factory: pytest.TempPathFactory, one_torch_thread: None) -> Outcome:
    path = collection(tmp_path_factory.mktemp("local"))
    report = run_collection(load_collection(path))
    assert report.complete and report.generated == SIZE
    return outcome(path)


def test_ray_run_gives_the_local_run_bytes_and_cids(ray_cluster, local_reference: Outcome, tmp_path: Path):
    path = collection(tmp_path, executor__kind="ray")
    report = run_collection(load_collection(path))
    assert report.complete and report.generated == SIZE

    got = outcome(path)
    assert got.pngs == local_reference.pngs  # byte for byte
    assert got.image_cids == local_reference.image_cids
    assert (got.metadata_root, got.manifest_cid) == (local_reference.metadata_root, local_reference.manifest_cid)
    assert got.generations_per_token == {t: 1 for t in range(1, SIZE + 1)}
    assert live_workers() == {}, "the executor's actors outlive the run"


def test_a_ray_rerun_with_nothing_to_do_starts_no_actor(ray_cluster, local_reference: Outcome, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch):
    path = collection(tmp_path, executor__kind="ray")
    assert run_collection(load_collection(path)).generated == SIZE
    monkeypatch.setattr(RayExecutor, "_start", lambda self: pytest.fail("a no-op rerun started Ray actors"))
    rerun = run_collection(load_collection(path))
    assert (rerun.generated, rerun.generation_skipped, rerun.pinned) == (0, SIZE, 0)


def test_killing_a_worker_mid_run_still_records_every_piece_once(ray_cluster, local_reference: Outcome,
                                                                 tmp_path: Path):
    path = collection(tmp_path, executor__kind="ray")

    def kill_one_worker(_: AtGeneration) -> int:
        name, pid = sorted(live_workers().items())[0]
        os.kill(pid, signal.SIGKILL)
        return pid

    killer = AtGeneration(1, kill_one_worker)
    report = run_collection(load_collection(path), progress=killer)

    assert killer.fired_at is not None and killer.fired_at < SIZE, "the worker was not killed during the run"
    assert gone(killer.result)
    assert report.complete and report.generated == SIZE
    got = outcome(path)
    assert got.generations_per_token == {t: 1 for t in range(1, SIZE + 1)}
    assert got.pngs == local_reference.pngs and got.manifest_cid == local_reference.manifest_cid


def test_ctrl_c_stops_the_workers_and_the_next_run_resumes(ray_cluster, local_reference: Outcome, tmp_path: Path):
    path = collection(tmp_path, executor__kind="ray")

    def interrupt(sink: AtGeneration) -> None:
        sink.result = live_workers()  # noted first
        # What Ctrl-C does here: Python's SIGINT handler raises KeyboardInterrupt in the main thread, which is the
        # run's. Raised directly, not through os.kill: once in a full suite with both cores busy the signal raised
        # nothing ("DID NOT RAISE"), which a SIGINT handler other than Python's in this test process would explain
        # (Ray swaps in its own in places: ray._private.utils.DeferSigint); not reproduced alone.
        raise KeyboardInterrupt

    interrupter = AtGeneration(2, interrupt)
    with pytest.raises(KeyboardInterrupt):
        run_collection(load_collection(path), progress=interrupter)

    assert interrupter.fired_at is not None and interrupter.fired_at < SIZE
    assert interrupter.result and all(gone(pid) for pid in interrupter.result.values()), "workers left running"
    kept = sum(generations_per_token(path).values())
    assert interrupter.fired_at <= kept < SIZE

    # The next run (here local: request keys do not depend on the executor) generates only the rest.
    rerun = run_collection(load_collection(collection(tmp_path)))
    assert rerun.complete
    assert (rerun.generation_skipped, rerun.generated) == (kept, SIZE - kept)
    resumed = outcome(path)
    assert {t for t in resumed.pngs if resumed.pngs[t] != local_reference.pngs[t]} == set()
    assert resumed.manifest_cid == local_reference.manifest_cid


def test_a_generator_that_cannot_load_is_reported_as_locally(ray_cluster):
    executor = RayExecutor(ExecutorSettings(kind="ray", num_workers=1), GeneratorSettings(kind="diffusers"))
    assert live_workers() == {}, "actors start on the first piece to key or generate, not before"
    with pytest.raises(ConfigError, match="generator.model"):
        executor.request_key(GenerationRequest(token_id=1, prompt="a tulip", collection_seed=7,
                                               settings=GeneratorSettings(kind="diffusers")))
    assert live_workers() == {}


def test_progress_counts_pieces_per_worker_and_task_errors_reach_the_driver(ray_cluster, one_torch_thread):
    generator = GeneratorSettings(steps=2)
    requests = [GenerationRequest(token_id=t, prompt=f"a tulip, study {t}", collection_seed=7, settings=generator)
                for t in range(1, 5)]
    done_counts: list[int] = []
    executor = RayExecutor(ExecutorSettings(kind="ray"), generator,
                           on_progress=lambda stats: done_counts.append(stats.done))
    try:
        other_model = requests[0].model_copy(update={"settings": GeneratorSettings(model="constant-decoder")})
        with pytest.raises(ValueError, match="load another generator"):
            executor.request_key(other_model)
        results = list(executor.run(requests))
    finally:
        executor.close()

    assert sorted(r.token_id for r in results) == [1, 2, 3, 4] and all(r.ok for r in results)
    assert done_counts == [1, 2, 3, 4]
    stats = executor.stats
    assert stats.done == stats.total == 4 and sum(w.pieces for w in stats.workers) == 4
    assert len(stats.workers) == 2 and {w.pid for w in stats.workers}.isdisjoint({None, os.getpid()})
    assert all(w.busy_s > 0 and w.pieces_per_minute > 0 for w in stats.workers if w.pieces)
    assert stats.summary().startswith("4/4 done")
    assert live_workers() == {}
    with pytest.raises(RuntimeError, match="stopped"):
        list(executor.run(requests))
