"""What `mintprep run` did, stage by stage: the report its driver folds the stages' results into, and its JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mintprep.stages import FailedPiece


@dataclass
class RunReport:
    pieces: int
    generated: int = 0
    generation_skipped: int = 0
    resampled: list[dict[str, Any]] = field(default_factory=list)  # rejected after generation, sampled again
    rejected: list[FailedPiece] = field(default_factory=list)
    kept_published: list[int] = field(default_factory=list)  # rejected now, their published piece stays
    minted_failing: list[FailedPiece] = field(default_factory=list)  # minted, kept as live, fail today's guards
    pinned: int = 0
    pin_skipped: int = 0
    metadata_root: str | None = None
    manifest_cid: str | None = None
    provenance_hash: str | None = None
    page: str | None = None
    page_blocked: str | None = None  # why no page was built: the contract disagrees, or the page could not mint
    chain_check: dict[str, Any] | None = None
    recipes: dict[str, list[int]] = field(default_factory=dict)  # logged | yaml | new-seed -> pieces generated so
    # Ids the imported contract already serves that the import did not read: never given new art here.
    not_imported: list[int] = field(default_factory=list)
    not_imported_advice: str | None = None
    unchanged: bool = False  # nothing the last run that found nothing to do saw had changed: no stage ran

    @property
    def complete(self) -> bool:
        return not self.rejected and not self.minted_failing and self.page_blocked is None and not self.not_imported

    @property
    def exit_code(self) -> int:
        return 0 if self.complete else 1

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["skipped"] = {"generate": self.generation_skipped, "pin": self.pin_skipped}
        data["exit_code"] = self.exit_code
        return data

    @classmethod
    def of_unchanged(cls, data: dict[str, Any]) -> "RunReport":
        """The report `to_json` gave for a complete run (nothing rejected or failing), marked unchanged; ValueError
        (or KeyError, TypeError) for anything else."""
        report = cls(**{f.name: data[f.name] for f in fields(cls) if f.name != "unchanged"}, unchanged=True)
        if not report.complete or not isinstance(report.pieces, int):
            raise ValueError("not a complete run's report")
        return report
