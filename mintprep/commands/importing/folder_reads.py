"""Reading a local folder's tokens for `import`: each token's metadata document and image, read and checked.

Reading and checking a token (three file reads, a JSON parse, a full decode of the image) and judging its image
from that decode (the pixel guards' verdict and hashes, which `import` records so that no later command decodes the
image again: most of the CPU a token costs) run in worker processes for a folder of `READ_IN_WORKERS` tokens or
more, ahead of the recording (objects, blocks, pins, ledger rows), which belongs to the importing process; so
every core works. Tokens come back in token order, whichever way they were read. Memory stays bounded: a worker sends
each token as soon as it is read, and what waits to be recorded is held to `READ_AHEAD_BYTES` of images, and
`DRAIN_BYTES` a worker.

`read_token` is the one reading of a token, in a worker or here; it takes the folder through `FolderFiles`
(regular files inside the folder, size capped before reading) and returns why a token is skipped rather than
raising, so a hostile file skips its token and never stops the import.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mintprep.base import FolderFiles, NotAcceptable, UserError
from mintprep.collection import checked_document
from mintprep.commands.importing.tokens import Judging
from mintprep.guards import MAX_DOCUMENT_BYTES, MAX_IMPORTED_IMAGE_BYTES, Judgement, decode_raster_image, judge_rgb

READ_IN_WORKERS = 256  # fewer tokens than this are read here: a worker's start (about 0.2 s) would cost more
TOKENS_PER_CHUNK = 64
CHUNKS_AHEAD = 2  # chunks sent to each worker before its first token is taken
READ_AHEAD_BYTES = 64 * 1024 * 1024  # images read and waiting to be recorded (a batch's worth: importing/recording.py)
RUN_BYTES = 1024 * 1024  # images queued at a time, at most (a run ends sooner at the end of its chunk)
DRAIN_BYTES = 16 * 1024 * 1024  # images a worker's drain holds ahead of the collector (hundreds of tokens of art)
# glibc's malloc in a worker: the guards' arrays of an image (1.5 MB each at 256 px) taken from the heap and kept
# there when freed, not mapped and unmapped each time. Left to its own thresholds, a worker took 375,000 page
# faults a 1,000 images of 256 px art, 0.7 s of kernel time (12% of its CPU); with these, 19,000 and 0.1 s.
WORKER_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(32 * 1024 * 1024), "MALLOC_TRIM_THRESHOLD_": str(32 * 1024 * 1024)}


@dataclass(frozen=True)
class FolderToken:
    """A token as the folder has it: its document and image, checked; or `skipped`, why not."""

    token_id: int
    document: dict[str, Any] | None = None
    image_path: str = ""
    image: bytes = b""
    skipped: str = ""
    judgement: Judgement | None = None  # the image judged from the reader's decode (given a `Judging`)


def metadata_folder(folder: Path) -> Path:
    """Where the `<id>.json` files are: a json/ subfolder (HashLips' layout) or the folder itself."""
    return folder / "json" if (folder / "json").is_dir() else folder


def read_token(files: FolderFiles, folder: str, meta_dir: str, token_id: int,
               judging: Judging | None = None) -> FolderToken:
    """`<id>.json` (or `<id>`) in `meta_dir`, its `image` a path relative to the folder (or to an images/ subfolder);
    with `judging`, the image judged from the same decode (unless the ledger holds its verdict already)."""
    try:
        found = _first_file(files, (f"{meta_dir}/{token_id}.json", f"{meta_dir}/{token_id}"), MAX_DOCUMENT_BYTES,
                            "metadata file")
    except UserError as exc:
        return FolderToken(token_id, skipped=str(exc))
    if found is None:
        return FolderToken(token_id, skipped=f"no {token_id}.json in {meta_dir}")
    try:
        document = checked_document(found[1])
    except NotAcceptable as exc:
        return FolderToken(token_id, skipped=str(exc))
    reference = document["image"]
    name = reference.rsplit("/", 1)[-1] if "://" in reference else reference
    try:
        located = _first_file(files, (os.path.join(folder, name), os.path.join(folder, "images", name)),
                              MAX_IMPORTED_IMAGE_BYTES, "image file")
    except UserError as exc:
        return FolderToken(token_id, skipped=f"image {reference!r}: {exc}")
    if located is None:
        return FolderToken(token_id, skipped=f"image {reference!r} is no file under {folder}")
    image_path, image = located
    try:
        rgb = decode_raster_image(image)
    except NotAcceptable as exc:
        return FolderToken(token_id, skipped=f"image {image_path}: {exc}")
    judgement = judge_rgb(rgb, judging.guards, judging.upscale) if judging and judging.wants(image) else None
    return FolderToken(token_id, document, image_path, image, judgement=judgement)


def read_tokens(folder: Path, token_ids: Sequence[int], judging: Judging | None = None) -> Iterator[FolderToken]:
    """`read_token` of each of `token_ids`, in order: in worker processes for a large folder, else here."""
    meta_dir = str(metadata_folder(folder))
    # As many workers as cores (at most 4): the importing process mostly waits on its disk writes and on them. On a
    # single core a worker would only add its hand-offs.
    cores = _usable_cores()
    workers = min(4, cores) if sys.executable and cores > 1 else 0
    with FolderFiles(folder) as files:
        if len(token_ids) < READ_IN_WORKERS or workers < 1:
            yield from (read_token(files, str(folder), meta_dir, token_id, judging) for token_id in token_ids)
            return
        chunks = [token_ids[start:start + TOKENS_PER_CHUNK] for start in range(0, len(token_ids), TOKENS_PER_CHUNK)]
        with _Pipeline(str(folder), meta_dir, chunks, workers, judging) as pipeline:
            for read, unread in pipeline:
                yield from read
                yield from (read_token(files, str(folder), meta_dir, token_id, judging) for token_id in unread)


class _Pipeline:
    """Chunks of ids dealt round-robin to the workers, which send back each token as soon as it is read; a thread
    collects them in order into a queue held to READ_AHEAD_BYTES of images, so the workers keep reading while the
    importing process records a batch. They are queued a run at a time (up to RUN_BYTES of images: a lock per token
    cost more than reading it); ids a worker did not read (it died) come out beside them, to be read here. Each
    worker's output is drained as it is written (`_Reader`), so no worker waits on its pipe while the collector
    takes another worker's chunk."""

    def __init__(self, folder: str, meta_dir: str, chunks: list[Sequence[int]], count: int,
                 judging: Judging | None) -> None:
        self.workers = [_Reader(folder, meta_dir, judging) for _ in range(count)]
        self.chunks = chunks
        self.ready: deque[tuple[list[FolderToken], list[int]] | BaseException | None] = deque()  # None: the end
        self.held = 0
        self.done = False
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._collect, name="import-reads", daemon=True)

    def __enter__(self) -> _Pipeline:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        with self.changed:
            stopped_early = not self.done
            self.done = True
            self.changed.notify_all()
        for worker in self.workers:
            worker.close(kill=stopped_early)  # a collector waiting on a worker's pipe sees it end
        self.thread.join()
        for worker in self.workers:
            if worker.process is not None:
                worker.process.stdout.close()

    def __iter__(self) -> Iterator[tuple[list[FolderToken], list[int]]]:
        """(tokens read, ids left to read here), run by run, in token order."""
        while True:
            with self.changed:
                self.changed.wait_for(lambda: self.ready)
                item = self.ready.popleft()
                if isinstance(item, tuple):
                    self.held -= _image_bytes(item[0])
                    self.changed.notify_all()
            if item is None:
                with self.changed:
                    self.done = True
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    def _collect(self) -> None:
        try:
            ahead = CHUNKS_AHEAD * len(self.workers)
            sent = [self._send(index) for index in range(min(ahead, len(self.chunks)))]
            for index, chunk in enumerate(self.chunks):
                if index + ahead < len(self.chunks):
                    sent.append(self._send(index + ahead))
                worker, run, run_bytes = sent[index], [], 0
                for position in range(len(chunk)):
                    token = worker.take() if worker is not None else None
                    if token is None:
                        self._put((run, list(chunk[position:])))
                        break
                    run.append(token)
                    run_bytes += len(token.image)
                    if run_bytes >= RUN_BYTES or position == len(chunk) - 1:
                        if not self._put((run, [])):
                            return
                        run, run_bytes = [], 0
            self._put(None)
        except BaseException as exc:  # handed to the importing process, which raises it
            self._put(exc)

    def _put(self, item: tuple[list[FolderToken], list[int]] | BaseException | None) -> bool:
        """Queue `item` once the queue holds less than READ_AHEAD_BYTES; False when the reading has stopped."""
        with self.changed:
            self.changed.wait_for(lambda: self.done or self.held < READ_AHEAD_BYTES)
            if self.done:
                return False
            if isinstance(item, tuple):
                self.held += _image_bytes(item[0])
            self.ready.append(item)
            self.changed.notify_all()
            return True

    def _send(self, index: int) -> _Reader | None:
        """The worker that reads chunk `index`; None where it could not take it."""
        worker = self.workers[index % len(self.workers)]
        return worker if worker.send(self.chunks[index]) else None


class _Reader:
    """One worker process: `python -m mintprep.commands.importing.folder_reads FOLDER META_DIR`: the `Judging` (or
    None), then chunks in, tokens out, by pickle; a thread here drains its tokens as it writes them, holding up to
    `DRAIN_BYTES` of images. Drained, the workers run side by side: with only their pipes (64 KiB, one or two
    tokens of real art) a worker stopped while the collector took the other's chunk, and a 10,000-piece import used
    one core of two (68 s of wall for 65 s of CPU).

    A process of its own rather than multiprocessing's: spawn re-imports the caller's main script (a library
    user's script without a main guard would start itself again) and fork copies SQLite connections and threads."""

    def __init__(self, folder: str, meta_dir: str, judging: Judging | None) -> None:
        package_root = str(Path(__file__).resolve().parents[2])  # the child imports this very mintprep
        env = {**os.environ, **WORKER_MALLOC,
               "PYTHONPATH": os.pathsep.join(filter(None, (package_root, os.environ.get("PYTHONPATH"))))}
        self.process: subprocess.Popen[bytes] | None = None
        with contextlib.suppress(OSError):  # none started (no processes or descriptors left): all is read here
            self.process = subprocess.Popen([sys.executable, "-m", __name__, folder, meta_dir], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        self.send(judging)  # where it fails, so do the chunks sent after it: they are read here
        self.drained: deque[FolderToken | None] = deque()  # None: its output ended (stays, so each take sees it)
        self.drained_bytes = 0
        self.closing = False
        self.space = threading.Condition()
        self.drainer = threading.Thread(target=self._drain, name="import-drain", daemon=True)
        if self.process is not None:
            self.drainer.start()

    def send(self, message: Sequence[int] | Judging | None) -> bool:
        if self.process is None:
            return False
        try:
            pickle.dump(list(message) if isinstance(message, Sequence) else message, self.process.stdin)
            self.process.stdin.flush()
            return True
        except OSError:  # it died: the chunk is read here
            return False

    def take(self) -> FolderToken | None:
        """Its next token, once drained; None when it has ended (died, or was never started)."""
        if self.process is None:
            return None
        with self.space:
            self.space.wait_for(lambda: self.drained)
            token = self.drained[0]
            if token is not None:
                self.drained.popleft()
                self.drained_bytes -= len(token.image)
                self.space.notify_all()
            return token

    def _drain(self) -> None:
        while True:
            try:
                token = pickle.load(self.process.stdout)  # its own child's pickles: no stranger's bytes are unpickled
            except Exception:  # noqa: BLE001 - ended or cut short, however: its ids are read here
                token = None
            with self.space:
                self.space.wait_for(lambda: self.closing or self.drained_bytes < DRAIN_BYTES)
                self.drained.append(None if self.closing else token)
                self.space.notify_all()
                if token is None or self.closing:
                    return
                self.drained_bytes += len(token.image)

    def close(self, *, kill: bool = False) -> None:
        """End the worker: at the end of its input when all it read was taken, else at once (`kill`: it may be
        writing a result nobody will read)."""
        if self.process is None:
            return
        if kill:
            self.process.kill()
            with self.space:
                self.closing = True  # a drain waiting for room ends
                self.space.notify_all()
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.drainer.join()


def _serve(folder: str, meta_dir: str) -> None:
    """A worker's loop: how to judge, then a chunk of token ids in, its tokens out, until its input ends."""
    with FolderFiles(Path(folder)) as files:
        try:
            judging = pickle.load(sys.stdin.buffer)
        except EOFError:
            return
        while True:
            try:
                chunk = pickle.load(sys.stdin.buffer)
            except EOFError:
                return
            for token_id in chunk:  # each as soon as it is read: the importing process bounds what waits
                pickle.dump(read_token(files, folder, meta_dir, token_id, judging), sys.stdout.buffer)
            sys.stdout.buffer.flush()


def _usable_cores() -> int:
    """The cores this process may run on (its affinity, as a container or `taskset` sets it), not the machine's."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _image_bytes(tokens: list[FolderToken]) -> int:
    return sum(len(token.image) for token in tokens)


def _first_file(files: FolderFiles, paths: Sequence[str], max_bytes: int, what: str) -> tuple[str, bytes] | None:
    """(path, bytes) of the first of `paths` that exists; UserError naming one that exists but may not be read."""
    for path in paths:
        data = files.read(path, max_bytes, what=what)
        if data is not None:
            return path, data
    return None


if __name__ == "__main__":  # a worker: its tokens pickled as this module's classes, not __main__'s
    from mintprep.commands.importing.folder_reads import _serve as serve
    serve(*sys.argv[1:3])
