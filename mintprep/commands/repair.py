"""`mintprep audit --repair`: replace broken pieces and everything that points at them, from a journal.

The plan (which tokens, their old CIDs, the attempt each regeneration starts at) is written to the
ledger's journal before anything changes; each step is idempotent and the journal records it once done,
so a process killed anywhere is finished by running the same command again. Old pins go last, once
the metadata, manifest, page and base URI all point at the replacements.

Steps: 1 attempts → 2 images → 3 metadata + manifest → 4 page (+ republish) → 5 base URI → 6 unpin.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, NamedTuple

from mintprep.stages import (ART_KINDS, REPLACE_KINDS, AuditReport, art_committed_before_reveal, audit_workspace,
                             generate_pieces, keep_minted, page_stage, piece_pointer, pin_accepted, pin_bytes,
                             plan_pieces, publication_backend, publish_metadata, restore_object, validate_candidates)
from mintprep.collection import Collection, PinnedPiece, SeedFrom, plan_seed
from mintprep.base import ObjectCorrupt, ProgressSink, UserError, fault_point, summarise_ids
from mintprep.generate import attempt_seed
from mintprep.ipfs import import_bytes
from mintprep.state import JournalEntry, PieceRecord, Workspace, require_recorded_base_uri
from mintprep.chain import require_public_root
from mintprep.guards import validate_png

JOURNAL_KIND = "repair"
# Problems that the rewrite of metadata, manifest, page and base URI (steps 3-6) cures.
REWRITE_KINDS = frozenset({"metadata-unretrievable", "metadata-invalid", "metadata-wrong-image",
                           "metadata-root-mismatch", "manifest-inconsistent", "page-stale", "chain-base-uri-stale"})
# Problems whose cure is pinning the metadata directory (or manifest) again under the same CID.
REPIN_KINDS = frozenset({"metadata-unretrievable", "manifest-inconsistent"})


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
    recipe: SeedFrom = "new-seed"  # where that seed comes from: pieces.<id>.seed, the generation log, or derived


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
    restore_objects: list[dict[str, str]] = field(default_factory=list)  # garbled local copies: {sha256, cid}
    minted_why: dict[str, str] = field(default_factory=dict)  # minted token left alone -> why
    include_minted: bool = False  # the user asked to replace minted tokens' documents too
    # Filled in as the steps run:
    replacements: dict[str, dict[str, Any]] = field(default_factory=dict)  # token id (str: JSON keys) -> new piece
    failed: list[int] = field(default_factory=list)  # every regeneration attempt rejected: the old piece stays
    new_metadata_root: str | None = None
    new_manifest_cid: str | None = None
    base_uri_tx: str | None = None
    unpinned: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.tokens and not self.rewrite and not self.restore_objects

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "RepairPlan":
        return cls(**{**data, "tokens": [TokenRepair(**t) for t in data["tokens"]]})


@dataclass
class RepairOutcome:
    status: Literal["nothing-to-repair", "planned", "repaired", "awaiting-base-uri", "failed", "no-setter"]
    plan: RepairPlan | None
    resumed: bool = False
    step: int = 0  # steps done so far
    base_uri_update: dict[str, Any] | None = None  # --print-tx: the root and the calls to send (BaseUriUpdate)
    transactions: list[dict[str, Any]] = field(default_factory=list)  # --print-tx: every call, decoded
    before: AuditReport | None = None
    after: AuditReport | None = None
    error: str | None = None  # status failed: what stopped it (the journal is closed; a rerun plans afresh)
    refreshes: list[dict[str, Any]] = field(default_factory=list)  # marketplace metadata refreshes requested

    @property
    def exit_code(self) -> int:
        if self.status in ("awaiting-base-uri", "failed", "no-setter") or (self.plan and self.plan.failed):
            return 1
        report = self.after or self.before
        return report.exit_code if report else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "resumed": self.resumed,
            "steps_done": [step.name for step in STEPS[:self.step]],
            "plan": self.plan.to_json() if self.plan else None,
            "base_uri_update": self.base_uri_update,
            "transactions": self.transactions,
            "before": self.before.to_json() if self.before else None,
            "after": self.after.to_json() if self.after else None,
            "error": self.error,
            "marketplace_refresh": self.refreshes,
            "exit_code": self.exit_code,
        }


# -- planning (read-only) ------------------------------------------------------------------------

def plan_repair(ws: Workspace, report: AuditReport, *, include_minted: bool = False) -> RepairPlan:
    """What a repair would do about `report`'s problems; reads the ledger, changes nothing.

    A minted token's image changes only with `include_minted`, but pinning its very CID again (a lost or rotted
    block, the local copy sound) changes nothing its owner holds, so that is always done.
    """
    ledger = ws.ledger
    record = ledger.current_manifest()
    if record is None:
        raise UserError(f"{ws.col.path}: nothing pinned yet; run `mintprep run` or `mintprep import` first")
    pieces, first_attempts = ledger.pieces(), ledger.first_attempts()
    plans = {plan.token_id: plan for plan in plan_pieces(ws)}  # a bad generation log is refused before any work
    minted = set(report.minted)
    tokens, skipped, why = [], [], {}
    for token_id, all_problems in sorted(report.tokens_with(REPLACE_KINDS).items()):
        # A live problem alone (the ledger already holds another piece) is cured by publishing the ledger's piece.
        problems = [p for p in all_problems if p.where != "live"]
        if not problems:
            continue
        piece = pieces[token_id]
        kinds = sorted({p.kind for p in problems})
        action = "repin" if _local_copy_is_sound(ws, piece, kinds) else "regenerate"
        if token_id in minted and action == "regenerate" and not include_minted:
            skipped.append(token_id)
            why[str(token_id)] = ("minted, and its image itself is broken: replacing it changes what the owner holds "
                                  "(pass --include-minted)" if "image-broken" in kinds else
                                  f"minted, and a near-duplicate of token {_collides_with(problems)} (also minted): "
                                  "replacing it changes what the owner holds (pass --include-minted)"
                                  if "near-duplicate" in kinds else
                                  "minted, and no intact copy of its CID is at hand to pin again")
            continue
        recorded = [a.attempt for a in ledger.attempts(piece.request_key)]
        next_attempt = max(recorded + [first_attempts.get(token_id, 0) - 1]) + 1
        own, recipe = plan_seed(plans[token_id], next_attempt) if token_id in plans else (None, "new-seed")
        tokens.append(TokenRepair(token_id, action, kinds, str(piece.image_cid), piece.png_sha256, piece.metadata_cid,
                                  piece.request_key, next_attempt,
                                  attempt_seed(ws.spec.seed, token_id, next_attempt) if own is None else own, recipe))
    new_art = [t.token_id for t in tokens if t.action == "regenerate"]
    if new_art and art_committed_before_reveal(ws.col, ledger):
        raise UserError(f"{ws.col.path}: token(s) {summarise_ids(new_art)} need new art, but the contract's "
                        "provenance hash (set at deploy, immutable) commits to the current images and `mintprep "
                        "reveal` proves against it: replacing art now would make the reveal fail. Reveal first and "
                        "repair after it (`mintprep provenance` will then show these tokens changed), or deploy a "
                        "new contract")
    refresh = sorted({record.metadata_root for p in report.problems if p.kind == "metadata-unretrievable"}
                     | {p.evidence["cid"] for p in report.problems if p.token_id is None and p.kind in REPIN_KINDS
                        and p.evidence.get("cid") == record.manifest_cid})
    restore = [{"sha256": p.evidence["sha256"], "cid": p.evidence["cid"]} for p in report.problems
               if p.kind == "object-corrupt" and p.token_id not in {t.token_id for t in tokens}]
    rewrite = bool(tokens) or any((p.kind in REWRITE_KINDS or p.where == "live") and p.token_id not in skipped
                                  for p in report.problems)
    publish = ledger.latest_publish()
    return RepairPlan(
        tokens=tokens, minted_skipped=skipped, old_metadata_root=record.metadata_root,
        old_manifest_cid=record.manifest_cid, old_site_cid=publish.site_cid if publish else None,
        refresh_pins=refresh, rewrite=rewrite,
        unrepairable=[p.to_json() for p in report.problems if p.kind == "chain-mismatch"],
        restore_objects=restore, minted_why=why, include_minted=include_minted,
    )


def _collides_with(problems: list[Any]) -> Any:
    return next(p.evidence["collides_with"] for p in problems if p.kind == "near-duplicate")


def _local_copy_is_sound(ws: Workspace, piece: PieceRecord, kinds: list[str]) -> bool:
    """A lost or damaged pin whose local object has the pinned CID and passes today's guards: re-pin, keep the art."""
    if ART_KINDS & set(kinds) or not piece.png_sha256 or not ws.ledger.objects.has(piece.png_sha256):
        return False
    try:
        data = ws.ledger.objects.get(piece.png_sha256)
    except ObjectCorrupt:
        return False  # the local copy rotted too: regenerate
    if str(import_bytes(data, ws.profile).root) != piece.image_cid:
        return False
    try:
        return validate_png(data, ws.spec.guards, upscale=ws.spec.generator.upscale).ok
    except UserError:
        return False


# -- running -------------------------------------------------------------------------------------

def repair_collection(col: Collection, *, include_minted: bool = False, dry_run: bool = False,
                      print_tx: bool = False, gateways: Sequence[str] = (),
                      progress: ProgressSink | None = None) -> RepairOutcome:
    """Audit, plan and repair; or finish the repair a killed process left in the journal."""
    if dry_run:
        return _dry_run(col, include_minted=include_minted, gateways=gateways)
    with Workspace.open(col, progress=progress) as ws:  # the writer lock: no `run` or second repair meanwhile
        entry = ws.ledger.open_journal(JOURNAL_KIND)
        before = None
        if entry is None:
            before = audit_workspace(ws, gateways=gateways)
            plan = plan_repair(ws, before, include_minted=include_minted)
            if plan.empty:
                return RepairOutcome("nothing-to-repair", plan, before=before)
            if plan.rewrite and before.base_uri_on_chain is not None:
                require_recorded_base_uri(ws.ledger, before.base_uri_on_chain)
                require_public_root(col, ws.ledger, col.spec.chain.endpoint()[1], None)
            signer = _signer_if_needed(ws, print_tx)
            missing = _missing_setter(ws, plan, before, signer)
            if missing:
                return RepairOutcome("no-setter", plan, before=before, error=missing)
            entry = ws.ledger.begin_journal(JOURNAL_KIND, plan.to_json())
        else:
            signer = _signer_if_needed(ws, print_tx)
        outcome = RepairOutcome("repaired", RepairPlan.from_json(entry.plan), resumed=before is None, before=before)
        _run_steps(ws, entry, outcome, signer)
        if outcome.status == "repaired" and outcome.plan and outcome.plan.tokens \
                and len(outcome.plan.failed) == len(outcome.plan.tokens):
            outcome.status, outcome.error = "failed", "every new attempt was rejected: nothing was replaced"
        if outcome.status == "repaired":
            outcome.after = audit_workspace(ws, gateways=gateways)
            if outcome.plan and outcome.plan.base_uri_tx:
                from mintprep.net import refresh_minted_tokens

                outcome.refreshes = refresh_minted_tokens(ws, outcome.after.minted)
    return outcome


def _dry_run(col: Collection, *, include_minted: bool, gateways: Sequence[str]) -> RepairOutcome:
    with Workspace.open(col, readonly=True) as ws:
        entry = ws.ledger.open_journal(JOURNAL_KIND)
        if entry is not None:  # an interrupted repair: its plan, not a new one, is what a rerun would do
            return RepairOutcome("planned", RepairPlan.from_json(entry.plan), resumed=True, step=entry.step)
        before = audit_workspace(ws, gateways=gateways)
        plan = plan_repair(ws, before, include_minted=include_minted)
        if plan.rewrite and before.base_uri_on_chain is not None:
            require_recorded_base_uri(ws.ledger, before.base_uri_on_chain)
    return RepairOutcome("nothing-to-repair" if plan.empty else "planned", plan, before=before)


def _signer_if_needed(ws: Workspace, print_tx: bool):
    """The key for setBaseURI, loaded before anything changes so a missing key stops the repair at the start."""
    if print_tx or ws.deployed_contract() is None:
        return None
    from mintprep.chain import PRIVATE_KEY_ENV, load_signer

    try:
        return load_signer()
    except UserError as exc:
        raise UserError(f"{exc}; the repair must update the base URI on chain (set {PRIVATE_KEY_ENV}, "
                        "or pass --print-tx to send the transaction yourself)") from None


def _missing_setter(ws: Workspace, plan: RepairPlan, before: AuditReport, signer: Any) -> str | None:
    """Why the chain cannot be pointed at the repair's result (no setter the owner can call), or None; and a
    UserError, before anything changes, when the configured key is not the owner (--print-tx is the way then)."""
    if ws.deployed_contract() is None or not plan.rewrite:
        return None
    from mintprep.chain import read_live, can_update

    live = read_live(ws)
    owner = live.family.owner()
    if signer is not None and owner is not None and owner.lower() != signer.address.lower():
        raise UserError(f"the contract {live.family.address} is owned by {owner}, not by the configured key "
                        f"{signer.address}; pass --print-tx to get every transaction to send from the owner "
                        "(a Safe, another wallet); nothing was changed")
    replaced = sorted(t.token_id for t in plan.tokens)
    minted_replaced = sorted(set(before.minted) & set(replaced))
    if live.family.token_suffix is None and not minted_replaced:
        return None  # per-token URIs: only minted tokens have one on chain
    if can_update(live, minted_replaced if live.family.token_suffix is None else replaced):
        return None
    return (f"the contract {live.family.address} ({live.family.name}) cannot be pointed at new metadata by its admin "
            f"({live.family.missing_setter()}), so nothing was changed (on chain or here)")


def _run_steps(ws: Workspace, entry: JournalEntry, outcome: RepairOutcome, signer: Any) -> None:
    """Each step, then its journal entry. A step that raises closes the journal as abandoned (the error kept in
    it): what it left is consistent (every step is), and the next repair audits and plans afresh."""
    plan = outcome.plan
    assert plan is not None
    for number, step in enumerate(STEPS[entry.step:], start=entry.step + 1):
        if step.rewrites and not plan.rewrite:
            break
        try:
            done = step.run(ws, plan, outcome, signer=signer)
        except Exception as exc:
            ws.ledger.finish_journal(entry, abandoned=f"step {number} ({step.name}): {exc}")
            raise
        if not done:  # waiting on someone else (the base URI transaction): the journal stays open at this step
            outcome.status, outcome.step = "awaiting-base-uri", number - 1
            return
        fault_point(f"repair-step-{number}")  # done, not yet journaled: the worst moment to die (base.faults)
        entry = ws.ledger.advance_journal(entry, number, plan.to_json())
        outcome.step = number
    ws.ledger.finish_journal(entry)


# -- the steps: each idempotent, each returns True when done -------------------------------------

def _step_attempts(ws: Workspace, plan: RepairPlan, outcome: RepairOutcome, **_: Any) -> bool:
    for token in plan.tokens:
        if token.action == "regenerate":
            ws.ledger.set_first_attempt(token.token_id, token.next_attempt,
                                        f"repair of {token.old_image_cid}: {', '.join(token.problems)}")
    return True


def _step_images(ws: Workspace, plan: RepairPlan, outcome: RepairOutcome, **_: Any) -> bool:
    """Regenerate (the ledger keys each generation, so a rerun regenerates nothing), validate, pin, verify;
    pin lost CIDs again from their local copies; rewrite garbled local copies from their pins."""
    ledger = ws.ledger
    regenerate = {t.token_id: t for t in plan.tokens if t.action == "regenerate"}
    plans = [p for p in plan_pieces(ws) if p.token_id in regenerate]
    generated = generate_pieces(ws, plans)
    pinned = pin_accepted(ws, validate_candidates(ws, list(generated.candidates.values())).accepted)
    plan.replacements = {
        str(p.token_id): {"image_cid": p.image_cid, "png_sha256": p.png_sha256, "request_key": p.request_key,
                          "provenance": p.provenance, "attributes": p.attributes,
                          "source_metadata_sha256": p.source_metadata_sha256}
        for p in pinned.pieces}
    plan.failed = sorted(t for t in regenerate if str(t) not in plan.replacements)
    art = publication_backend(ws)  # a still-hidden drop's art is pinned in the local store
    for token in (t for t in plan.tokens if t.action == "repin"):
        pin_bytes(ledger, art, ws.profile, ledger.objects.get(str(token.old_png_sha256)), kind="image",
                  name=f"{ws.spec.symbol}-{token.token_id}.png", force=True)  # the backend lost it: upload, verify
    for damaged in plan.restore_objects:
        restore_object(ws, damaged["sha256"], damaged["cid"])
    return True


def _step_metadata(ws: Workspace, plan: RepairPlan, outcome: RepairOutcome, **_: Any) -> bool:
    """Rewrite the metadata directory and manifest over every published piece, the replacements in place; each
    minted token keeps its live piece and document unless the plan includes minted tokens (stages.kept_minted)."""
    ledger = ws.ledger
    record = ledger.current_manifest()
    assert record is not None
    kept = keep_minted(ws, include_minted=plan.include_minted)
    minted = kept.minted_files
    pieces = ledger.pieces()
    current = []
    for token in record.manifest.tokens:
        if token.token_id > ws.spec.size and token.token_id not in minted:
            continue  # the collection shrank: an unminted token beyond it is forgotten
        new = plan.replacements.get(str(token.token_id))
        if new is not None:
            current.append(PinnedPiece(token.token_id, new["attributes"], new["png_sha256"], new["image_cid"],
                                       new["provenance"], new["request_key"], new["source_metadata_sha256"]))
        elif token.token_id not in kept.pieces:
            current.append(token.as_piece(pieces[token.token_id].request_key if token.token_id in pieces
                                          else f"published:{token.png_sha256}"))
    # A directory or manifest the backend lost is pinned again (uploaded and verified), whatever the ledger says.
    publication = publish_metadata(ws, [*current, *kept.pieces.values()], minted, kept.documents,
                                   force=bool(plan.refresh_pins))
    published = publication.manifest.by_token()
    ledger.set_pieces([piece_pointer(int(t), new["request_key"], published) for t, new in plan.replacements.items()]
                      + [piece_pointer(t, p.request_key, published) for t, p in kept.pieces.items()])
    ledger.drop_pieces_after(ws.spec.size)
    plan.new_metadata_root, plan.new_manifest_cid = publication.manifest.metadata_root, publication.manifest_cid
    return True


def _step_page(ws: Workspace, plan: RepairPlan, outcome: RepairOutcome, **_: Any) -> bool:
    """Rebuild the page where there is one, and republish it where it was published."""
    from mintprep.stages import publish_page

    if ws.ledger.latest_publish() is not None:
        publish_page(ws)
    elif (ws.col.page_dir / "index.html").is_file():
        page_stage(ws)
    return True


def _step_base_uri(ws: Workspace, plan: RepairPlan, outcome: RepairOutcome, *, signer: Any, **_: Any) -> bool:
    """Point the contract at the new metadata through its family's own setter (setBaseURI, setUriPrefix,
    updateBatchBaseURI per batch holding a replaced token, the renderer's updateMetadataBase, setBaseTokenURI, or
    setTokenURI for each replaced minted token): the calls `contract set-base-uri` makes, through the same gate
    (mintprep.chain `collection_base_uri_update`); sent with the key, or printed (--print-tx) and awaited on the next
    run. A hidden drop's stays as it is until `reveal` sets it to the root current then: the gate's `NotRevealed`,
    read from the chain, is the one answer to "hidden still?"."""
    if ws.deployed_contract() is None:
        return True
    from mintprep.base import NotRevealed
    from mintprep.chain import collection_base_uri_update
    from mintprep.stages import point_contract_at_current_root

    try:
        update = collection_base_uri_update(ws, include_minted=plan.include_minted,
                                            replaced=[int(t) for t in plan.replacements])
    except NotRevealed:
        return True  # `reveal` points the contract at the root current then, this repair's included
    if not update.calls:
        return True  # the chain already says it: an earlier run's transaction, or the user's own wallet
    if signer is None:
        outcome.base_uri_update = update.to_json()
        outcome.transactions = [call.to_json() for call in update.calls]
        return False
    plan.base_uri_tx = point_contract_at_current_root(ws, signer, update).tx_hash
    return True


def _step_unpin(ws: Workspace, plan: RepairPlan, outcome: RepairOutcome, **_: Any) -> bool:
    """Unpin what nothing points at any more; a CID still referenced (shared bytes, unchanged root) stays."""
    record = ws.ledger.current_manifest()
    assert record is not None
    publish = ws.ledger.latest_publish()
    referenced = {t.image_cid for t in record.manifest.tokens} | {record.metadata_root, record.manifest_cid}
    if publish and publish.site_cid:
        referenced.add(publish.site_cid)
    replaced = [t.old_image_cid for t in plan.tokens if str(t.token_id) in plan.replacements]
    old = [*replaced, plan.old_metadata_root, plan.old_manifest_cid, *([plan.old_site_cid] if plan.old_site_cid else [])]
    backend = publication_backend(ws)  # where the old pins are: a still-hidden drop's are in the local store
    for cid in sorted(set(old) - referenced):
        backend.unpin(cid)
        ws.ledger.record_unpin(cid, backend.ledger_key)
        if cid not in plan.unpinned:
            plan.unpinned.append(cid)
    return True


class RepairStep(NamedTuple):
    name: str
    run: Callable[..., bool]  # (ws, plan, outcome, *, signer) -> done; idempotent
    rewrites: bool  # part of the rewrite of metadata, manifest, page and base URI: skipped when none is planned


# The repair, in order; the journal records the number of the last step done.
STEPS: tuple[RepairStep, ...] = (
    RepairStep("attempts", _step_attempts, rewrites=False),
    RepairStep("images", _step_images, rewrites=False),
    RepairStep("metadata", _step_metadata, rewrites=True),
    RepairStep("page", _step_page, rewrites=True),
    RepairStep("base-uri", _step_base_uri, rewrites=True),
    RepairStep("unpin", _step_unpin, rewrites=True),
)
