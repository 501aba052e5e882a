"""Every path under a collection's `.mintprep/`, named once: the ledger, its lock, the object store, the embedded
IPFS store, the drop log, the fingerprint cache, the allowlist trees, what `status` and `run` keep of the collection
file, and review's thumbnails. Nothing else spells a name under `.mintprep/`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

STATE_DIR_NAME = ".mintprep"  # a collection's state folder, next to its collection.yaml


@dataclass(frozen=True)
class StateDir:
    root: Path  # <collection folder>/.mintprep (STATE_DIR_NAME)

    @property
    def ledger(self) -> Path:
        """The SQLite ledger (mintprep.state.ledger)."""
        return self.root / "state.db"

    @property
    def writer_lock(self) -> Path:
        """The flock one writer at a time holds."""
        return self.root / "lock"

    @property
    def objects(self) -> Path:
        """Content-addressed copies of every image and document (mintprep.state.objects)."""
        return self.root / "objects"

    @property
    def ipfs(self) -> Path:
        """The embedded block store of the `local` backend (mintprep.ipfs.store)."""
        return self.root / "ipfs"

    @property
    def drop_log(self) -> Path:
        """One JSON line per rejected attempt (mintprep.state.drops)."""
        return self.root / "drops.jsonl"

    @property
    def fingerprints(self) -> Path:
        """Model file fingerprints, so a rerun does not hash the weights again (mintprep.state.fingerprints)."""
        return self.root / "fingerprints.json"

    @property
    def allowlists(self) -> Path:
        """Allowlist trees by the sha256 of their file, so a rerun does not rebuild them (mintprep.chain.allowlist_file)."""
        return self.root / "allowlists"

    @property
    def status_inputs(self) -> Path:
        """What `status` took from the validated collection file, kept while the file is unchanged
        (mintprep.commands.status)."""
        return self.root / "status-inputs.json"

    @property
    def run_stamp(self) -> Path:
        """What the last `run` that found nothing to do saw and reported (mintprep.commands.run.unchanged)."""
        return self.root / "run-stamp.json"

    @property
    def thumbnails(self) -> Path:
        """Review thumbnails by image hash (mintprep.state.thumbnail_cache)."""
        return self.root / "thumbnails"

    def has_ledger(self) -> bool:
        return self.ledger.exists()
