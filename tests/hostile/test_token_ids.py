"""Item 4 of issue 31: lists of token ids in messages are summarised by one function (mintprep.base.token_ids)."""

from __future__ import annotations


import pytest
from mintprep.base.errors import UserError
from mintprep.base.token_ids import id_runs, summarise_ids


def test_few_ids_are_listed_and_many_are_counted_with_their_runs():
    assert summarise_ids([3]) == "3"
    assert summarise_ids([9, 1, 2, 3, 7, 7]) == "1-3, 7, 9"
    assert summarise_ids(range(60_000)) == "0-59999 (60000 ids)"
    assert summarise_ids(range(1, 78)) == "1-77 (77 ids)"  # read after "token(s) ": the ids come first
    every_other = summarise_ids(range(0, 120_000, 2))
    assert every_other.startswith("0, 2, 4") and every_other.endswith("59992 more in 59992 more runs (60000 ids)")
    assert len(every_other) < 120
    assert id_runs([5, 1, 2, 4]) == [(1, 2), (4, 5)]


def test_an_import_lacking_60000_minted_tokens_says_so_in_a_short_refusal():
    """The issue's 60,000 Transfer mints: the refusal printed every id (411,469 bytes); now under 400 bytes."""
    from mintprep.commands.importing.tokens import ImportPlan, Source, require_minted

    plan = ImportPlan(Source("contract", "0x" + "ab" * 20), minted=list(range(0, 120_000, 2)))
    with pytest.raises(UserError) as refused:
        require_minted(plan)
    assert "token(s) 0, 2, 4" in str(refused.value) and "(60000 ids)" in str(refused.value) and len(str(refused.value)) < 400
