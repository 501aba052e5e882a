"""A large folder's tokens are read in worker processes (`mintprep.commands.importing.folder_reads`): the tokens,
the skipped ones and their reasons, and each image's judgement, come out exactly as this process reads them, in token
order; a worker that dies leaves its
tokens to this process; what waits to be recorded stays within its byte bound; and no worker outlives the read."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from PIL import Image

from mintprep.commands.importing import folder_reads
from mintprep.commands.importing.folder_reads import read_tokens
from mintprep.commands.importing.tokens import Judging
from mintprep.guards import GuardSettings

COUNT = 300  # over READ_IN_WORKERS, so the workers read it


def png(token_id: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (16, 16), (token_id % 256, 40, 200)).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A HashLips-style folder with a hostile or broken token in several chunks."""
    root = tmp_path_factory.mktemp("export")
    (root / "images").mkdir()
    (root / "json").mkdir()
    outside = root.parent / "outside.png"
    outside.write_bytes(png(0))
    for token_id in range(1, COUNT + 1):
        (root / "json" / f"{token_id}.json").write_text(json.dumps(
            {"name": f"#{token_id}", "image": f"{token_id}.png", "attributes": [{"trait_type": "n", "value": token_id}]}))
        (root / "images" / f"{token_id}.png").write_bytes(png(token_id))
    (root / "json" / "5.json").unlink()  # no metadata
    (root / "images" / "70.png").write_bytes(b"not an image at all")
    (root / "json" / "140.json").write_text('{"name": NaN, "image": "140.png"}')
    (root / "images" / "200.png").unlink()
    (root / "images" / "200.png").symlink_to(outside)  # leads out of the folder
    (root / "images" / "260.png").write_bytes(png(260)[:40])  # truncated
    return root


def workers() -> list[psutil.Process]:
    return [child for child in psutil.Process().children()
            if "mintprep.commands.importing.folder_reads" in " ".join(child.cmdline())]


def read_here(folder: Path, monkeypatch: pytest.MonkeyPatch, judging: Judging | None = None) -> list:
    with monkeypatch.context() as patch:
        patch.setattr(folder_reads, "READ_IN_WORKERS", COUNT + 1)
        return list(read_tokens(folder, range(1, COUNT + 1), judging))


def test_workers_read_what_this_process_reads(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    judging = Judging(GuardSettings(min_std=20.0))  # not the defaults: the workers judge by the settings they are sent
    expected = read_here(folder, monkeypatch, judging)
    reads = read_tokens(folder, range(1, COUNT + 1), judging)
    first = next(reads)
    assert workers(), "a folder this large is read in a worker process"
    got = [first, *reads]
    assert got == expected
    judged = [t.judgement for t in got if t.document is not None]
    assert len(judged) == COUNT - 5 and all(judged), "every image read is judged from its decode"
    assert {j.facts["guard"] for j in judged} == {"flat"}, "a flat 16 px fill fails the flat guard"
    assert all(j.facts["decided_by"]["threshold"] == 20.0 for j in judged)
    assert [t.token_id for t in got] == list(range(1, COUNT + 1))
    skipped = {t.token_id: t.skipped for t in got if t.document is None}
    assert sorted(skipped) == [5, 70, 140, 200, 260], skipped
    assert "NaN" in skipped[140] and "does not decode" in skipped[260] and "not a PNG" in skipped[70]
    assert not workers(), "the workers end with the read"


def test_a_worker_that_dies_leaves_its_tokens_to_this_process(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = read_here(folder, monkeypatch)
    reads = read_tokens(folder, range(1, COUNT + 1))
    first = next(reads)
    for worker in workers():
        os.kill(worker.pid, signal.SIGKILL)
    assert [first, *reads] == expected
    assert not workers()


def test_stopping_early_ends_the_workers(folder: Path) -> None:
    reads = read_tokens(folder, range(1, COUNT + 1))
    next(reads)
    assert workers()
    started = time.monotonic()
    reads.close()
    assert not workers()
    assert time.monotonic() - started < 3, "a worker is not waited for while it writes what nobody reads"


def test_what_waits_to_be_recorded_stays_within_its_bound(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    image_bytes = len(png(1))
    monkeypatch.setattr(folder_reads, "READ_AHEAD_BYTES", 20 * image_bytes)
    monkeypatch.setattr(folder_reads, "RUN_BYTES", 4 * image_bytes)
    chunks = [list(range(start, min(start + 64, COUNT + 1))) for start in range(1, COUNT + 1, 64)]
    with folder_reads._Pipeline(str(folder), str(folder / "json"), chunks, 1, None) as pipeline:
        runs = iter(pipeline)
        next(runs)
        # a slow recorder: the worker reads on only as far as the bound lets it. Waited for until it has read on
        # (under load a fixed second could pass with nothing held yet), then given a second to overshoot if it would
        deadline = time.monotonic() + 60
        while pipeline.held == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(1.0)
        assert 0 < pipeline.held <= 20 * image_bytes + 4 * image_bytes
        taken = sum(len(read) + len(left) for read, left in runs)
    assert taken > 0


def test_a_worker_that_cannot_start_leaves_all_to_this_process(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = read_here(folder, monkeypatch)
    monkeypatch.setattr(folder_reads.sys, "executable", str(folder / "no-such-python"))
    assert list(read_tokens(folder, range(1, COUNT + 1))) == expected


def test_on_one_core_this_process_reads(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker beside the importing process on a single core would only add its hand-offs."""
    monkeypatch.setattr(folder_reads.os, "sched_getaffinity", lambda pid: {0})
    reads = read_tokens(folder, range(1, COUNT + 1))
    next(reads)
    assert not workers()
    assert len([1, *reads]) == COUNT


def test_a_worker_imports_no_source_reader_but_its_own() -> None:
    """A worker (`python -m ...folder_reads`) loads the reading and the guards, not the contract and IPFS readers
    the importing package also holds (web3 clients, HTTP): they were most of a worker's start."""
    done = subprocess.run([sys.executable, "-c", "import json, sys, mintprep.commands.importing.folder_reads; "
                           "print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = set(json.loads(done.stdout))
    assert "mintprep.guards.image_guards" in loaded  # it did load what reads and judges
    unneeded = {f"mintprep.commands.importing.{name}" for name in ("driver", "contract", "ipfs_root", "recording")}
    assert (unneeded | {"requests", "web3", "eth_abi"}) & loaded == set()


def _minor_faults(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[7])  # minflt: the 10th field of proc(5), the 8th after the command's name


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="page faults read from Linux's /proc")
def test_a_worker_keeps_the_guards_arrays_rather_than_faulting_them_in_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guards' arrays of a 256 px image (1.5 MB each) stay in the worker's heap between images: left to glibc's
    own thresholds a worker mapped and unmapped them, 375 page faults an image (12% of its CPU, in the kernel)."""
    from tests.support.real_art import art_rgb, png_of

    (tmp_path / "images").mkdir()
    (tmp_path / "json").mkdir()
    pieces = [png_of(Image.fromarray(art_rgb(token_id, 256))) for token_id in (1, 2, 3)]
    for token_id in range(1, COUNT + 1):
        (tmp_path / "images" / f"{token_id}.png").write_bytes(pieces[token_id % 3])
        (tmp_path / "json" / f"{token_id}.json").write_text(json.dumps({"name": "x", "image": f"{token_id}.png"}))
    # Read ahead by a few images only, so what the workers do between the two counts is the images taken between.
    monkeypatch.setattr(folder_reads, "READ_AHEAD_BYTES", 2 * len(pieces[0]))
    monkeypatch.setattr(folder_reads, "RUN_BYTES", 1)
    monkeypatch.setattr(folder_reads, "DRAIN_BYTES", 1)
    reads = read_tokens(tmp_path, range(1, COUNT + 1), Judging(GuardSettings()))
    taken = [next(reads) for _ in range(140)]  # each worker past its start and its first chunk
    pids = [worker.pid for worker in workers()]
    before = sum(_minor_faults(pid) for pid in pids)
    taken += [next(reads) for _ in range(140, COUNT - 20)]
    faults = sum(_minor_faults(pid) for pid in pids) - before
    taken += list(reads)
    assert len(taken) == COUNT and all(t.judgement for t in taken)
    assert faults / (COUNT - 160) < 50, f"{faults} page faults over {COUNT - 160} images"
