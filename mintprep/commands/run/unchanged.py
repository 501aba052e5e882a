"""A `run` with nothing to do, told before any stage or model loads.

After a `run` that completed and found nothing to do (nothing generated, resampled or pinned) on a collection with
no contract, what it saw is kept beside the ledger (`.mintprep/run-stamp.json`, through base.kept_inputs): the
collection file's bytes and mintprep's code, the options, the machine a request key depends on
(generate.machine), the working folder and the variables that pick the model cache, whether each secret the file
names is set, and the identity of every file the run reads or writes (base.watched_files): the state folder, the
page's folders, and every file or folder the collection file names (the model's folder or hub cache, an allowlist,
an ABI, a generation log), wherever it lies. Other files beside collection.yaml are not inputs (a report saved
there, the art an import read). The next `run` whose every one of those is unchanged
would do exactly what that one did: it prints that run's report (marked `unchanged`) and runs no stage.

Anything else runs every stage: a changed or unknown input, a collection with a contract (the chain is read every
time: a mint or a price change is not seen by any file here), a kill test's fault point. Review's thumbnails and
what `status` keeps are not inputs of a run. A byte changed without any file's identity changing (a disk flipping
bits) is found by `mintprep audit`, which reads every byte, or by the next run that is not skipped.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mintprep.base import STATE_DIR_NAME, FilesSeen, StateDir, files_unchanged, keep, look_at_files, read_kept
from mintprep.commands.run.report import RunReport

if TYPE_CHECKING:
    from mintprep.collection import Collection

# Where a hub model's files are looked up (huggingface_hub's constants). A kill test's fault point is no input:
# with MINTPREP_FAULT_AT set every run runs in full (unchanged_report), so the point is reached.
VARIABLES = ("HF_HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HUB_OFFLINE", "XDG_CACHE_HOME", "HOME")


def unchanged_report(path: Path, *, include_minted: bool) -> RunReport | None:
    """The report of the last run that found nothing to do, when nothing it saw has changed since; else None."""
    path = Path(path)
    state = StateDir(path.resolve().parent / STATE_DIR_NAME)
    kept = read_kept(state.run_stamp, path)
    if kept is None or os.environ.get("MINTPREP_FAULT_AT"):
        return None
    stamp = kept[0]
    try:
        if (stamp["include_minted"] != include_minted
                or stamp["environment"] != environment(stamp["device"], stamp["secrets"])):
            return None
        seen = FilesSeen.from_json(stamp["files"])
        report = RunReport.of_unchanged(stamp["report"])
    except (KeyError, TypeError, ValueError, AttributeError):  # not a stamp this code wrote
        return None
    if not files_unchanged(seen, not_inputs(state)):
        return None
    if seen.worth_looking_again:  # the files the last run had just written are hashed no more from now on
        fresh = look_at_files(seen.roots, not_inputs(state))
        if fresh is not None:
            keep(state.run_stamp, path, kept[1], {**stamp, "files": fresh.to_json()})
    return report


def stamp_if_unchanged(col: Collection, source: bytes, report: RunReport, *, include_minted: bool) -> None:
    """After `report`'s run of `col` (loaded from `source`): keep what it saw when it found nothing to do, else
    forget any stamp (the next run must run)."""
    state, settings = col.state, col.spec.model_dump()
    found_nothing = report.complete and not (report.generated or report.pinned or report.resampled or report.recipes)
    seen = (look_at_files(watched_roots(col, settings), not_inputs(state))
            if found_nothing and not has_contract(col) else None)
    if seen is None:
        with contextlib.suppress(OSError):  # a folder nothing may write to has no stamp to forget
            state.run_stamp.unlink(missing_ok=True)
        return
    secrets = sorted({value for key, value in named_strings(settings) if key.endswith("_env")})
    keep(state.run_stamp, col.path, source, {
        "include_minted": include_minted, "device": col.spec.generator.device, "secrets": secrets,
        "environment": environment(col.spec.generator.device, secrets), "files": seen.to_json(),
        "report": report.to_json()})


def environment(device: str, secrets: list[str]) -> dict[str, Any]:
    from mintprep.generate import environment_identity

    return {"machine": environment_identity(device), "cwd": os.getcwd(),
            "variables": {name: os.environ.get(name) for name in VARIABLES},
            "secrets_set": {name: bool(os.environ.get(name)) for name in secrets}}


def has_contract(col: Collection) -> bool:
    """Whether the collection has a contract, in its file or its ledger (`mintprep contract deploy`)."""
    from mintprep.state import Ledger, find_contract

    with Ledger.open(col.state_dir, readonly=True) as ledger:
        return find_contract(col, ledger) is not None


def not_inputs(state: StateDir) -> Callable[[str], bool]:
    """What may change under the collection's folder without changing what a run does: the stamp and what status
    keeps, review's thumbnails, the writer's lock and SQLite's shared-memory index (rebuilt from the log)."""
    skipped = {str(state.run_stamp), str(state.status_inputs), str(state.thumbnails), str(state.writer_lock)}
    return lambda path: path in skipped or path.endswith("-shm")


def watched_roots(col: Collection, settings: dict[str, Any]) -> list[str]:
    """What a run reads or writes: the state folder, the folders it replaces (the page), every file or folder the
    collection file (`settings`: its dump) names (a model folder or checkpoint, an allowlist, an ABI, a generation
    log), resolved as the run resolves it (against the collection's folder, a model path against the working
    folder), and a hub model's cache folder. A name of the collection's own folder or one above it is no file a run
    reads: not walked."""
    from mintprep.collection import replaced_folders

    base = col.base_dir.resolve()
    named = [p for _, value in named_strings(settings) for p in existing_paths(value, (base, Path.cwd()))
             if not base.is_relative_to(p)]
    return sorted({str(col.state_dir), *(str(f) for f in replaced_folders(col).values()), *(str(p) for p in named),
                   *hub_folders(col)})


def named_strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Each string in `value` (a settings dump) with the name of the field that holds it."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from named_strings(item, str(name))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from named_strings(item, key)
    elif isinstance(value, str):
        yield key, value


def existing_paths(value: str, bases: tuple[Path, ...]) -> list[Path]:
    """The existing files or folders the string `value` names, resolved against each of `bases`."""
    if not value or "\0" in value or len(value) > 4096:
        return []
    found = []
    for base in bases:
        try:
            path = (base / Path(value).expanduser()).resolve()
            if path.exists():
                found.append(path)
        except (OSError, RuntimeError, ValueError):
            continue
    return found


def hub_folders(col: Collection) -> list[str]:
    """The hub cache folder (refs, snapshots, blobs) of the model or config a hub id names."""
    if col.spec.generator.kind == "tiny":
        return []
    from mintprep.generate import resolve_source

    source, folders = resolve_source(col.spec.generator), []
    for part in (source, source.config):
        if part is not None and part.kind == "hub" and part.path is not None:
            folders.append(str(part.path.parents[1]))  # <cache>/models--org--name/snapshots/<commit>
    return folders
