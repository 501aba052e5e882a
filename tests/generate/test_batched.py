"""Batched generation on the tiny model: `generator.batch_size` pieces per pipeline call, one torch.Generator each."""

from __future__ import annotations

from pathlib import Path

import pytest

from mintprep.generate import Generator, load_generator
from tests.generate.conftest import request, settings

BATCH = 4
TOKENS = (4, 5, 6, 7)  # one batch: token_id // 4 == 1


@pytest.fixture(scope="module")
def batched() -> Generator:
    return load_generator(settings(batch_size=BATCH, steps=3))


def _requests(gen: Generator, tokens=TOKENS, **changes):
    return [request(gen.settings, token, prompt=f"a tulip, study {token}", **changes) for token in tokens]


@pytest.mark.slow
def test_a_batch_gives_the_same_bytes_twice_and_each_piece_ignores_what_its_mates_are(batched: Generator) -> None:
    first = batched.generate_batch(_requests(batched))
    again = batched.generate_batch(_requests(batched))
    assert all(r.ok for r in first) and [r.png for r in first] == [r.png for r in again]
    assert len({r.png for r in first}) == BATCH
    assert [r.provenance["batch"] for r in first] == [{"size": BATCH, "position": t % BATCH} for t in TOKENS]
    # Token 6 alone (its mates' places filled by copies) and beside a changed mate: the same bytes.
    alone = batched.generate_batch(_requests(batched, tokens=(6,)))
    changed_mate = batched.generate_batch(_requests(batched, tokens=(5, 6))[:1] + _requests(batched, tokens=(6,)))
    assert alone[0].png == first[2].png == changed_mate[1].png


def test_a_planted_nan_in_one_sample_rejects_exactly_that_piece_and_retries_it(batched: Generator) -> None:
    clean = batched.generate_batch(_requests(batched))
    poisoned_position = 6 % BATCH

    def plant_nan(module, args, output):
        sample = output[0]
        if sample.shape[0] == 2 * BATCH:  # the batched call (classifier-free guidance doubles it), not a retry
            sample[poisoned_position] = float("nan")
            sample[BATCH + poisoned_position] = float("nan")
        return output

    handle = batched.denoiser.register_forward_hook(plant_nan)
    try:
        results = batched.generate_batch(_requests(batched))
    finally:
        handle.remove()
    by_token = dict(zip(TOKENS, results))
    poisoned = by_token.pop(6)
    assert [a.guard for a in poisoned.attempts] == ["latents_nonfinite", None]  # rejected at once, then retried
    assert poisoned.attempts[0].step == 0 and poisoned.ok and poisoned.accepted_attempt == 1
    assert poisoned.provenance["batch"] == {"size": 1, "position": 0}  # the retry ran alone
    for token, result in by_token.items():
        assert [a.guard for a in result.attempts] == [None], token
        assert result.png == clean[TOKENS.index(token)].png  # the NaN did not reach its mates


@pytest.mark.slow
def test_a_collection_at_batch_size_4_gives_the_same_bytes_on_two_runs(tmp_path: Path) -> None:
    from mintprep.collection.config import load_collection
    from mintprep.state.ledger import Ledger
    from mintprep.commands import run_collection
    from tests.conftest import write_collection

    pngs = []
    for run in ("a", "b"):
        path = write_collection(tmp_path / run, size=6, generator__steps=3, generator__upscale=1,
                                generator__batch_size=BATCH)
        report = run_collection(load_collection(path))
        assert report.exit_code == 0 and report.generated == 6, report.rejected
        col = load_collection(path)
        with Ledger.open(col.state_dir, readonly=True) as ledger:
            tokens = ledger.current_manifest().manifest.tokens
            pngs.append({t.token_id: t.provenance["png_sha256"] for t in tokens})
            assert {t.provenance["batch"]["size"] for t in tokens} == {BATCH}
    assert pngs[0] == pngs[1] and len(set(pngs[0].values())) == 6
