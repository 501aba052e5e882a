"""PSA pins ten pieces per status list, against a local server that follows the IPFS Pinning Service API
(https://ipfs.github.io/pinning-services-api-spec/; FakePsa in fakes.py answers HTTP 400 to a GET /pins naming more
than the spec's 10 CIDs): one list asks which pieces the service already has, one POST per piece, one list per look
at the statuses; waiting pieces hold no worker; a CID that never reaches `pinned` fails alone within the deadline.
Pins are read back through mintprep's own gateway over the blocks the service reaches.
"""

from __future__ import annotations

import math
import time

import pytest

from mintprep.base.hashing import sha256_hex
from mintprep.ipfs.backends import PsaBackend
from mintprep.ipfs.store import BlockStore
from mintprep.ipfs.unixfs import import_bytes
from mintprep.stages.pin import PinItem, PinsFailed, pin_pieces
from mintprep.state.ledger import Ledger
from tests.ipfs.fakes import FakePsa, Script, running
from tests.ipfs.test_backends import PROFILE, TOKEN, gateway_over

PIECES = 25


def _items(network: BlockStore) -> list[PinItem]:
    payloads = [f"psa piece {i} ".encode() * 30 for i in range(PIECES)]
    network.put_many(block for data in payloads for block in import_bytes(data, PROFILE).blocks)
    return [PinItem(sha256_hex(data), lambda data=data: import_bytes(data, PROFILE), "image", f"P-{i}.png")
            for i, data in enumerate(payloads)]


def _kinds(script: Script) -> list[str]:
    return [request.split("?")[0] for request in script.requests]


def test_statuses_are_asked_ten_pieces_a_request_and_uploads_do_not_wait_for_them(tmp_path) -> None:
    network = BlockStore(tmp_path / "network")
    items = _items(network)
    fake = FakePsa(TOKEN, polls_until_pinned=2)  # the first look finds `pinning`, the second `pinned`
    with running(fake) as url, gateway_over(network) as gateway, Ledger.open(tmp_path / "state") as ledger:
        backend = PsaBackend(url, token=TOKEN, gateway=gateway, concurrency=1)
        outcomes = pin_pieces(ledger, backend, PROFILE, items)
        assert [o.cid for o in outcomes] == [str(item.make_dag().root) for item in items]
        assert all(ledger.pinned_cid(item.content_sha256, PROFILE.name, backend.ledger_key) for item in items)
        kinds = _kinds(fake.script)
        lists = math.ceil(PIECES / 10)
        assert kinds.count("POST /pins") == PIECES
        assert kinds.count("GET /pins") == lists * 3  # "already pinned?", then two looks, per ten pieces
        # one worker: every share's POSTs went before any look at a status (the waits held no worker)
        assert max(i for i, kind in enumerate(kinds) if kind == "POST /pins") < len(kinds) - 2 * lists

        fake.script.requests.clear()  # a rerun that lost its ledger (killed before the rows): nothing posted twice
        with Ledger.open(tmp_path / "fresh-state") as fresh:
            pin_pieces(fresh, backend, PROFILE, items)
        assert _kinds(fake.script).count("POST /pins") == 0 and len(fake.statuses) == PIECES


def test_a_cid_that_never_reaches_pinned_fails_alone_within_the_deadline(tmp_path) -> None:
    network = BlockStore(tmp_path / "network")
    items = _items(network)[:12]
    stuck = str(items[3].make_dag().root)
    fake = FakePsa(TOKEN, polls_until_pinned=1, stuck={stuck})
    with running(fake) as url, gateway_over(network) as gateway, Ledger.open(tmp_path / "state") as ledger:
        backend = PsaBackend(url, token=TOKEN, gateway=gateway, pin_timeout=1.0, concurrency=4)
        started = time.monotonic()
        with pytest.raises(PinsFailed) as failure:
            pin_pieces(ledger, backend, PROFILE, items)
        took = time.monotonic() - started
        assert list(failure.value.failed) == ["P-3.png"]
        assert "still 'pinning' after 1s (ipfs.pin_timeout_s" in failure.value.failed["P-3.png"]
        assert took < 1.0 + 1.0  # the last look is at the deadline (the second is slack for a busy machine)
        pinned = [item.name for item in items if ledger.pinned_cid(item.content_sha256, PROFILE.name,
                                                                   backend.ledger_key)]
        assert pinned == [item.name for item in items if item.name != "P-3.png"]
