"""`mintprep audit --repair`: replace broken pieces and everything that points at them, from a journal.

The plan (which tokens, their old CIDs, the attempt each regeneration starts at) is written to the
ledger's journal before anything changes; each step is idempotent and the journal records it once done,
so a process killed anywhere is finished by running the same command again. Old pins go last, once
the metadata, manifest, page and base URI all point at the replacements.

Steps: 1 attempts → 2 images → 3 metadata + manifest → 4 page (+ republish) → 5 base URI → 6 unpin.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mintprep.audit import IMAGE_KINDS, AuditReport, audit_collection
from mintprep.config import Collection
from mintprep.errors import UserError
from mintprep.generate.request import attempt_seed
from mintprep.ipfs.backends import make_backend
from mintprep.ipfs.unixfs import get_profile, import_bytes
from mintprep.ledger import JournalEntry, Ledger, PieceRecord
from mintprep.manifest import PinnedPiece
from mintprep.objects import ObjectCorrupt
from mintprep.pin import pin_bytes
from mintprep.pipeline import RunReport, generate_stage, manifest_stage, pin_stage, validate_stage
from mintprep.progress import NoProgress, ProgressSink
from mintprep.traits import plan_piece
from mintprep.validate import validate_png

JOURNAL_KIND = "repair"
STEPS = ("attempts", "images", "metadata", "page", "base-uri", "unpin")
# Test hook: SIGKILL this process once step N (1-based) has done its work but before the journal records it,
# the worst moment to die. The fault-injection tests set it; nothing else should.
FAULT_ENV = "MINTPREP_FAULT_AFTER_STEP"
# Problems that the rewrite of metadata, manifest, page and base URI (steps 3-6) cures.
REWRITE_KINDS = frozenset({"metadata-unretrievable", "metadata-invalid", "metadata-wrong-image",
                           "metadata-root-mismatch", "manifest-inconsistent", "page-stale", "chain-base-uri-stale"})


@dataclass(frozen=True)
class TokenRepair:
    token_id: int
    action: Literal["regenerate", "repin"]  # repin: the local copy is healthy and has the CID, only the pin is bad
    problems: list[str]
    old_image_cid: str
    old_png_sha256: str | None
    old_metadata_cid: str | None
    request_key: str
    next_attempt: int  # regeneration starts here: past every attempt on record, so the broken one never recurs
    seed: int  # the seed of that attempt


@dataclass
class RepairPlan:
    tokens: list[TokenRepair]
    minted_skipped: list[int]
    old_metadata_root: str
    old_manifest_cid: str
    old_site_cid: str | None
    refresh_pins: list[str]  # collection-level CIDs the backend lost: re-pinned under the same CID
    rewrite: bool  # metadata, manifest, page and base URI are rewritten
    unrepairable: list[dict[str, Any]]  # problems this command does not fix (e.g. price drift): a human decides
    # Filled in as the steps run:
    replacements: dict[str, dict[str, Any]] = field(default_factory=dict)  # token id (str: JSON keys) -> new piece
    failed: list[int] = field(default_factory=list)  # every regeneration attempt rejected: the old piece stays
    new_metadata_root: str | None = None
    new_manifest_cid: str | None = None
    base_uri_tx: str | None = None
    unpinned: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.tokens and not self.rewrite

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "RepairPlan":
        return cls(**{**data, "tokens": [TokenRepair(**t) for t in data["tokens"]]})


@dataclass
class RepairOutcome:
    status: Literal["nothing-to-repair", "planned", "repaired", "awaiting-base-uri"]
    plan: RepairPlan | None
    resumed: bool = False
    step: int = 0  # steps done so far
    base_uri_update: dict[str, Any] | None = None  # --print-tx: the transaction to send
    before: AuditReport | None = None
    after: AuditReport | None = None

    @property
    def exit_code(self) -> int:
        if self.status == "awaiting-base-uri" or (self.plan and self.plan.failed):
            return 1
        report = self.after or self.before
        return report.exit_code if report else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "resumed": self.resumed,
            "steps_done": [STEPS[i] for i in range(self.step)],
            "plan": self.plan.to_json() if self.plan else None,
            "base_uri_update": self.base_uri_update,
            "before": self.before.to_json() if self.before else None,
            "after": self.after.to_json() if self.after else None,
            "exit_code": self.exit_code,
        }


# -- planning (read-only) ------------------------------------------------------------------------

def plan_repair(col: Collection, ledger: Ledger, report: AuditReport, *, include_minted: bool = False) -> RepairPlan:
    """What a repair would do about `report`'s problems; reads the ledger, changes nothing."""
    record = ledger.current_manifest()
    if record is None:
        raise UserError(f"{col.path}: nothing pinned yet; run `mintprep run` first")
    pieces, first_attempts = ledger.pieces(), ledger.first_attempts()
    minted = set(report.minted)
    tokens, skipped = [], []
    for token_id, problems in sorted(report.tokens_with(IMAGE_KINDS).items()):
        if token_id in minted and not include_minted:
            skipped.append(token_id)
            continue
        piece = pieces[token_id]
        kinds = sorted({p.kind for p in problems})
        recorded = [a.attempt for a in ledger.attempts(piece.request_key)]
        next_attempt = max(recorded + [first_attempts.get(token_id, 0) - 1]) + 1
        action = "repin" if _local_copy_is_sound(col, ledger, piece, kinds) else "regenerate"
        tokens.append(TokenRepair(token_id, action, kinds, str(piece.image_cid), piece.png_sha256, piece.metadata_cid,
                                  piece.request_key, next_attempt, attempt_seed(col.spec.seed, token_id, next_attempt)))
    refresh = sorted({p.evidence["cid"] for p in report.problems if p.token_id is None
                      and p.kind in ("metadata-unretrievable", "manifest-inconsistent") and "cid" in p.evidence
                      and p.evidence["cid"] in (record.metadata_root, record.manifest_cid)})
    rewrite = bool(tokens) or any(p.kind in REWRITE_KINDS and p.token_id not in skipped for p in report.problems)
    publish = ledger.latest_publish()
    return RepairPlan(
        tokens=tokens, minted_skipped=skipped, old_metadata_root=record.metadata_root,
        old_manifest_cid=record.manifest_cid, old_site_cid=publish.site_cid if publish else None,
        refresh_pins=refresh, rewrite=rewrite,
        unrepairable=[p.to_json() for p in report.problems if p.kind == "chain-mismatch"],
    )


def _local_copy_is_sound(col: Collection, ledger: Ledger, piece: PieceRecord, kinds: list[str]) -> bool:
    """A lost or damaged pin whose local object has the pinned CID and passes today's guards: re-pin, keep the art."""
    if "image-broken" in kinds or not piece.png_sha256 or not ledger.objects.has(piece.png_sha256):
        return False
    try:
        data = ledger.objects.get(piece.png_sha256)
    except ObjectCorrupt:
        return False  # the local copy rotted too: regenerate
    if str(import_bytes(data, get_profile(col.spec.ipfs.profile)).root) != piece.image_cid:
        return False
    try:
        return validate_png(data, col.spec.guards, upscale=col.spec.generator.upscale).ok
    except UserError:
        return False


# -- running -------------------------------------------------------------------------------------

def repair_collection(col: Collection, *, include_minted: bool = False, dry_run: bool = False,
                      print_tx: bool = False, gateways: Sequence[str] = (),
                      progress: ProgressSink | None = None) -> RepairOutcome:
    """Audit, plan and repair; or finish the repair a killed process left in the journal."""
    if dry_run:
        return _dry_run(col, include_minted=include_minted, gateways=gateways)
    with Ledger.open(col.state_dir) as ledger:  # the writer lock: no `run` or second repair meanwhile
        entry = ledger.open_journal(JOURNAL_KIND)
        before = None
        if entry is None:
            before = audit_collection(col, gateways=gateways)
            plan = plan_repair(col, ledger, before, include_minted=include_minted)
            if plan.empty:
                return RepairOutcome("nothing-to-repair", plan, before=before)
            signer = _signer_if_needed(col, ledger, print_tx)
            entry = ledger.begin_journal(JOURNAL_KIND, plan.to_json())
        else:
            signer = _signer_if_needed(col, ledger, print_tx)
        outcome = RepairOutcome("repaired", RepairPlan.from_json(entry.plan), resumed=before is None, before=before)
        _run_steps(col, ledger, entry, outcome, signer, progress or NoProgress())
    if outcome.status == "repaired":
        outcome.after = audit_collection(col, gateways=gateways)
    return outcome


def _dry_run(col: Collection, *, include_minted: bool, gateways: Sequence[str]) -> RepairOutcome:
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        entry = ledger.open_journal(JOURNAL_KIND)
        if entry is not None:  # an interrupted repair: its plan, not a new one, is what a rerun would do
            return RepairOutcome("planned", RepairPlan.from_json(entry.plan), resumed=True, step=entry.step)
        before = audit_collection(col, gateways=gateways)
        plan = plan_repair(col, ledger, before, include_minted=include_minted)
    return RepairOutcome("nothing-to-repair" if plan.empty else "planned", plan, before=before)


def _has_contract(col: Collection, ledger: Ledger) -> bool:
    network, _ = col.spec.chain.endpoint()
    return bool(col.spec.chain.contract or ledger.latest_deployment(network.chain_id))


def _signer_if_needed(col: Collection, ledger: Ledger, print_tx: bool):
    """The key for setBaseURI, loaded before anything changes so a missing key stops the repair at the start."""
    if print_tx or not _has_contract(col, ledger):
        return None
    from mintprep.chain.keys import PRIVATE_KEY_ENV, load_signer

    try:
        return load_signer()
    except UserError as exc:
        raise UserError(f"{exc}; the repair must update the base URI on chain (set {PRIVATE_KEY_ENV}, "
                        "or pass --print-tx to send the transaction yourself)") from None


def _run_steps(col: Collection, ledger: Ledger, entry: JournalEntry, outcome: RepairOutcome, signer: Any,
               progress: ProgressSink) -> None:
    plan = outcome.plan
    assert plan is not None
    runners = (_step_attempts, _step_images, _step_metadata, _step_page, _step_base_uri, _step_unpin)
    for number in range(entry.step + 1, len(STEPS) + 1):
        if number > 2 and not plan.rewrite:
            break
        done = runners[number - 1](col, ledger, plan, outcome, signer=signer, progress=progress)
        if not done:  # waiting on someone else (the base URI transaction): the journal stays open at this step
            outcome.status, outcome.step = "awaiting-base-uri", number - 1
            return
        _fault_point(number)
        entry = ledger.advance_journal(entry, number, plan.to_json())
        outcome.step = number
    ledger.finish_journal(entry)


def _fault_point(step: int) -> None:
    if os.environ.get(FAULT_ENV) == str(step):
        os.kill(os.getpid(), signal.SIGKILL)


# -- the steps: each idempotent, each returns True when done -------------------------------------

def _step_attempts(col: Collection, ledger: Ledger, plan: RepairPlan, outcome: RepairOutcome, **_: Any) -> bool:
    for token in plan.tokens:
        if token.action == "regenerate":
            ledger.set_first_attempt(token.token_id, token.next_attempt,
                                     f"repair of {token.old_image_cid}: {', '.join(token.problems)}")
    return True


def _step_images(col: Collection, ledger: Ledger, plan: RepairPlan, outcome: RepairOutcome, *,
                 progress: ProgressSink, **_: Any) -> bool:
    """Regenerate (the ledger keys each generation, so a rerun regenerates nothing), validate, pin, verify."""
    spec = col.spec
    regenerate = [t for t in plan.tokens if t.action == "regenerate"]
    run = RunReport(pieces=len(regenerate))
    plans = [plan_piece(spec, t.token_id) for t in regenerate]
    generated = generate_stage(col, ledger, plans, run, progress)
    pinned = pin_stage(col, ledger, validate_stage(col, ledger, plans, generated, run, progress), run, progress)
    replacements = {p.plan.token_id: p for p in pinned}
    backend, profile = make_backend(spec.ipfs, col.state_dir), get_profile(spec.ipfs.profile)
    for token in (t for t in plan.tokens if t.action == "repin"):
        ledger.record_unpin(token.old_image_cid, backend.ledger_key)  # so pin_bytes uploads and verifies it afresh
        pin_bytes(ledger, backend, profile, ledger.objects.get(str(token.old_png_sha256)), kind="image",
                  name=f"{spec.symbol}-{token.token_id}.png")
    plan.replacements = {str(t): {"image_cid": p.image_cid, "png_sha256": p.png_sha256,
                                  "request_key": p.request_key, "provenance": p.provenance}
                         for t, p in sorted(replacements.items())}
    plan.failed = sorted(t.token_id for t in regenerate if t.token_id not in replacements)
    # A token whose every new attempt was rejected keeps its old piece (the stages marked it rejected).
    ledger.set_pieces([PieceRecord(t.token_id, t.request_key, t.old_png_sha256, t.old_image_cid, t.old_metadata_cid,
                                   "pinned") for t in regenerate if t.token_id in plan.failed])
    return True


def _step_metadata(col: Collection, ledger: Ledger, plan: RepairPlan, outcome: RepairOutcome, **_: Any) -> bool:
    """Rewrite the metadata directory and manifest over every pinned piece, the replacements in place."""
    backend = make_backend(col.spec.ipfs, col.state_dir)
    for cid in plan.refresh_pins:
        ledger.record_unpin(cid, backend.ledger_key)  # the backend lost it: let the manifest stage pin it again
    record = ledger.current_manifest()
    assert record is not None
    provenance = {t["token_id"]: (t["image_cid"], t.get("provenance") or {}) for t in record.manifest["tokens"]}
    pinned = []
    for token_id, piece in sorted(ledger.pieces().items()):
        if token_id > col.spec.size:
            continue  # the collection shrank: the manifest stage forgets this token
        new = plan.replacements.get(str(token_id))
        if new is not None:
            pinned.append(PinnedPiece(plan_piece(col.spec, token_id), new["png_sha256"], new["image_cid"],
                                      new["provenance"], new["request_key"]))
        elif piece.status == "pinned" and piece.image_cid and piece.png_sha256:
            known_cid, known_provenance = provenance.get(token_id, (None, {}))
            if known_cid != piece.image_cid:
                generation = ledger.generation(piece.request_key)
                known_provenance = generation.provenance if generation else {}
            pinned.append(PinnedPiece(plan_piece(col.spec, token_id), piece.png_sha256, piece.image_cid,
                                      known_provenance, piece.request_key))
    run = RunReport(pieces=len(pinned))
    manifest_stage(col, ledger, pinned, run)
    plan.new_metadata_root, plan.new_manifest_cid = run.metadata_root, run.manifest_cid
    return True


def _step_page(col: Collection, ledger: Ledger, plan: RepairPlan, outcome: RepairOutcome, **_: Any) -> bool:
    """Rebuild the page where there is one, and republish it where it was published."""
    from mintprep.page.publish import publish_collection
    from mintprep.pipeline import page_stage

    if ledger.latest_publish() is not None:
        publish_collection(col, ledger)
    elif (col.page_dir / "index.html").is_file():
        page_stage(col, ledger, RunReport(pieces=0))
    return True


def _step_base_uri(col: Collection, ledger: Ledger, plan: RepairPlan, outcome: RepairOutcome, *, signer: Any,
                   **_: Any) -> bool:
    """setBaseURI(ipfs://<new root>/): sent with the key, or printed (--print-tx) and awaited on the next run."""
    if not _has_contract(col, ledger):
        return True
    from mintprep.chain.artifact import load_artifact
    from mintprep.chain.base_uri import collection_base_uri_update, send_collection_base_uri
    from mintprep.chain.rpc import connect

    update, url = collection_base_uri_update(col, ledger)
    drop = connect(url).eth.contract(address=update.to, abi=load_artifact().abi)
    if drop.functions.baseURI().call() == update.base_uri:
        return True  # already set: by an earlier run killed before recording it, or by the user's own wallet
    if signer is None:
        outcome.base_uri_update = update.to_json()
        return False
    plan.base_uri_tx = send_collection_base_uri(col, ledger, signer).tx_hash
    return True


def _step_unpin(col: Collection, ledger: Ledger, plan: RepairPlan, outcome: RepairOutcome, **_: Any) -> bool:
    """Unpin what nothing points at any more; a CID still referenced (shared bytes, unchanged root) stays."""
    record = ledger.current_manifest()
    assert record is not None
    publish = ledger.latest_publish()
    referenced = {t["image_cid"] for t in record.manifest["tokens"]} | {record.metadata_root, record.manifest_cid}
    if publish and publish.site_cid:
        referenced.add(publish.site_cid)
    replaced = [t.old_image_cid for t in plan.tokens if str(t.token_id) in plan.replacements]
    old = [*replaced, plan.old_metadata_root, plan.old_manifest_cid, *([plan.old_site_cid] if plan.old_site_cid else [])]
    backend = make_backend(col.spec.ipfs, col.state_dir)
    for cid in sorted(set(old) - referenced):
        backend.unpin(cid)
        ledger.record_unpin(cid, backend.ledger_key)
        if cid not in plan.unpinned:
            plan.unpinned.append(cid)
    return True
