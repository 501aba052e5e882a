"""`mintprep run`: generate → validate → pin → manifest → (check) → page, each stage keyed by its inputs.

The stages (mintprep.stages) are functions over a Workspace that return what they made; `run_collection` (and
repair, which reuses them) alone folds results into its report and moves the ledger's piece pointers. Generation
itself is a pure function of a request (see mintprep.generate), so it can be fanned out without touching anything
here.
"""

from __future__ import annotations

from mintprep.base import ProgressSink
from mintprep.collection import Collection, PiecePlan, read_recipe_log
from mintprep.stages import (Candidate, FailedPiece, KeptMinted, chain_gate, generate_pieces, judge, keep_minted,
                             page_stage, piece_pointer, pin_accepted, plan_pieces, publish_metadata, restore_object,
                             validate_candidates)
from mintprep.commands.run.report import RunReport
from mintprep.state import IMPORTED_KEY, Workspace


def run_collection(col: Collection, *, include_minted: bool = False,
                   progress: ProgressSink | None = None) -> RunReport:
    """Every stage; a minted token keeps its live piece and document unless `include_minted` (stages.kept_minted)."""
    col.spec.ipfs.token()  # a missing token is bad input: refuse it before hours of sampling, not after
    if any(phase.allowlist for phase in col.spec.chain.sale_phases()):  # so is a bad allowlist file
        from mintprep.chain import collection_phases

        collection_phases(col)  # read, checked and (once .mintprep exists) cached for the page stage
    read_recipe_log(col.base_dir, col.spec.generator, col.spec.size)  # and a bad generation log
    with Workspace.open(col, progress=progress) as ws:
        plans = plan_pieces(ws)
        kept = keep_minted(ws, include_minted=include_minted)
        if ws.deployed_contract() is not None:
            ws.ledger.record_minted_seen(kept.minted_files)  # for `status`, which reads no chain
        as_published = imported_as_published(ws, plans)
        todo = [p for p in plans if p.token_id not in kept.pieces]
        served = served_not_imported(ws, [p.token_id for p in todo if p.token_id not in as_published])
        generated = generate_pieces(ws, [p for p in todo if p.token_id not in as_published and p.token_id not in served])
        validated = validate_candidates(ws, [*generated.candidates.values(),
                                  *(c for t, c in as_published.items() if t not in kept.pieces)])
        failing = minted_failing(ws, kept, {p.token_id: p.prompt for p in plans})
        pinned = pin_accepted(ws, validated.accepted)
        publication = publish_metadata(ws, [*pinned.pieces, *kept.pieces.values()], kept.minted_files,
                                       kept.documents)

        published = publication.manifest.by_token()
        rejected = [*generated.failed, *validated.failed]
        keys = {**generated.failed_keys, **validated.failed_keys}
        ws.ledger.set_pieces(
            [piece_pointer(p.token_id, p.request_key, published) for p in [*pinned.pieces, *kept.pieces.values()]]
            + [piece_pointer(f.token_id, keys[f.token_id], published, status="rejected") for f in rejected])
        ws.ledger.drop_pieces_after(col.spec.size)
        gate = chain_gate(ws)
        page, page_blocked = page_stage(ws, gate.blocked)
        return RunReport(
            pieces=len(plans),
            generated=generated.generated + validated.generated, generation_skipped=generated.skipped,
            recipes=recipe_counts(generated.recipes),
            resampled=[{"token_id": r.token_id, "guard": r.guard, "reason": r.reason,
                        "collides_with": r.collides_with} for r in validated.resampled],
            rejected=sorted(rejected, key=lambda f: f.token_id),
            kept_published=sorted(f.token_id for f in rejected if f.token_id in published),
            minted_failing=failing,
            pinned=pinned.newly_pinned, pin_skipped=len(pinned.pieces) - pinned.newly_pinned,
            metadata_root=publication.manifest.metadata_root, manifest_cid=publication.manifest_cid,
            provenance_hash=publication.manifest.provenance_hash,
            page=page, page_blocked=page_blocked, chain_check=gate.check,
            not_imported=served, not_imported_advice=(
                f"the contract {ws.deployed_contract()} already serves token(s) {', '.join(map(str, served))}, which "
                f"the import did not read: run `mintprep import --from {ws.deployed_contract()}` again (new art is "
                "never made for them)") if served else None,
        )


def served_not_imported(ws: Workspace, token_ids: list[int]) -> list[int]:
    """Those of `token_ids` the contract the collection was imported from already serves (its id range: max
    supply, next id, batches): their art is the contract's, so `run` names them instead of generating. A piece
    mintprep made for such an id since the import (`audit --repair` remade it from its recipe) is the collection's
    own: `run` keeps it like any piece it generated."""
    contract = ws.deployed_contract()
    if not token_ids or contract is None or contract.lower() not in {s.lower() for s in ws.ledger.import_sources()}:
        return []
    remade = {t for t, piece in ws.ledger.pieces().items() if not piece.request_key.startswith(IMPORTED_KEY)}
    token_ids = [t for t in token_ids if t not in remade]
    if not token_ids:
        return []
    from mintprep.chain import read_live

    live = read_live(ws)
    served = set(live.family.served_ids(sorted(live.token_uris), ws.spec.size))
    return sorted(t for t in token_ids if t in served)


def recipe_counts(recipes: dict[int, str]) -> dict[str, list[int]]:
    """Which recipe gave each generated piece its seed: the creator's log, pieces.<id>.seed, or a new seed."""
    grouped: dict[str, list[int]] = {}
    for token_id, recipe in sorted(recipes.items()):
        grouped.setdefault(recipe, []).append(token_id)
    return grouped


def minted_failing(ws: Workspace, kept: KeptMinted, prompts: dict[int, str]) -> list[FailedPiece]:
    """Kept minted pieces that today's guards reject: published again unchanged, and named for `audit`."""
    images = {t: p.png_sha256 for t, p in kept.pieces.items() if restore_object(ws, p.png_sha256, p.image_cid)}
    return [FailedPiece(r.token_id, prompts.get(r.token_id, ""), f"minted, fails today's guards: see audit ({r.reason})")
            for r in judge(ws.col, ws.ledger, images)]


def imported_as_published(ws: Workspace, plans: list[PiecePlan]) -> dict[int, Candidate]:
    """Imported tokens not regenerated since: their published image is the candidate, nothing is generated."""
    pieces = ws.ledger.pieces()
    record = ws.ledger.current_manifest()
    tokens = record.manifest.by_token() if record else {}
    found = {}
    for plan in plans:
        piece, token = pieces.get(plan.token_id), tokens.get(plan.token_id)
        if piece is None or token is None or not piece.request_key.startswith(IMPORTED_KEY):
            continue
        if restore_object(ws, token.png_sha256, token.image_cid):
            found[plan.token_id] = Candidate(plan, token.png_sha256, piece.request_key, token.provenance,
                                             token.source_metadata_sha256)
    return found
