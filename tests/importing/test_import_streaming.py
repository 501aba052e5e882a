"""An import holds a batch of images at a time, never the collection: from a contract (whose minted tokens must all
be readable before anything is written) as from an `ipfs://` root, through the directory pins at the end. A
contract's minted tokens are read once to check them and again as they are recorded; one that cannot be read the
second time stops the import before any manifest, and the rerun finishes it.

Measured with tracemalloc (Python's own allocations, image bytes included) on a collection whose images weigh far
more than the batch and block-cache bounds, which the test shrinks. Before, a contract import read every token into
a list first, and the block cache kept every block it had verified, so both held the whole collection's images.
The contract is on anvil; the collection's own IPFS node is a local trustless gateway (the IPFS HTTP Gateway
spec's `?format=raw` block requests, specs.ipfs.tech/http-gateways/trustless-gateway)."""

from __future__ import annotations

import importlib
import io
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import tests.support.foreign as foreign
from mintprep.base.errors import UserError
from mintprep.collection.config import load_collection
from mintprep.commands.importing import import_collection, recording, tokens
from mintprep.ipfs.cid import CID
from mintprep.ipfs.errors import BlockNotFound
from mintprep.ipfs.gateway import serve_gateway
from mintprep.ipfs.store import BlockStore
from mintprep.state.ledger import Ledger
from tests.conftest import write_collection
from tests.ipfs.fakes import Script, running
from tests.ipfs.served import KeptAliveGateway
from tests.support.anvil import Chain, DropParams, deploy_test_drop

SIZE = 160
MINTED = 5
PRICE_WEI = 630_000_000_000_000


def _noise_png(token_id: int) -> bytes:
    """About 48 KiB that no compressor shrinks: the images' bytes, not the bookkeeping, dominate memory."""
    pixels = np.random.default_rng(token_id).integers(0, 256, (128, 128, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


# The code an import runs loads on first use (evmole, the contract profile, numpy.fft for the guards): about
# 0.75 MiB of Python objects, loaded before the measurement so its peak counts what the import holds.
IMPORT_CODE = ("evmole", "statistics", "numpy.fft", "mintprep.chain.profile.live", "mintprep.chain.reads",
               "mintprep.commands.importing.contract", "mintprep.commands.importing.ipfs_root", "mintprep.stages.screen")


def load_the_import_code() -> None:
    for name in IMPORT_CODE:
        importlib.import_module(name)


@pytest.mark.parametrize("source", ["contract", "ipfs"])
def test_an_import_holds_a_batch_of_images_not_the_collection(source: str, chain: Chain, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(foreign, "healthy_png", _noise_png)
    collection = foreign.make_foreign_collection(tmp_path / "their-node", SIZE, {})
    images = sum(len(_noise_png(t)) for t in range(1, SIZE + 1))
    monkeypatch.setattr(recording, "BATCH_IMAGE_BYTES", 256 * 1024)
    monkeypatch.setattr(tokens, "BLOCK_CACHE_BYTES", 768 * 1024)
    monkeypatch.setattr(recording, "DIRECTORY_CACHE_BYTES", 128 * 1024)
    drop = deploy_test_drop(chain.w3, chain.owner, DropParams(max_supply=SIZE,
                                                              base_uri=f"ipfs://{collection.metadata_root}/")).contract
    drop.functions.mint(0, MINTED, []).transact({"from": chain.accounts[1].address, "value": MINTED * PRICE_WEI})
    col = load_collection(write_collection(tmp_path / "col", size=SIZE, generator__upscale=1,
                                           chain__rpc_url=chain.node.url))
    server = serve_gateway(collection.store)
    load_the_import_code()  # once per process, not images held: the faces load a package's modules on first use
    try:
        tracemalloc.start()
        plan = import_collection(col, drop.address if source == "contract" else f"ipfs://{collection.metadata_root}",
                                 gateways=(f"http://127.0.0.1:{server.server_address[1]}",))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        server.shutdown()
    assert len(plan.tokens) == SIZE and not plan.skipped
    assert peak < images / 2, f"peak {peak / 2**20:.1f} MiB of Python allocations for {images / 2**20:.1f} MiB of images"


class _ServesOnce(BlockStore):
    """Their node, but one block (an image's: a metadata file read once is kept) it serves only once: a gateway
    that loses a block between two reads."""

    def __init__(self, root: Path, flaky: CID) -> None:
        super().__init__(root)
        self.flaky, self.served = flaky, 0

    def get(self, cid):
        if CID.parse(str(cid)) == self.flaky:
            self.served += 1
            if self.served > 1:
                raise BlockNotFound(str(cid))
        return super().get(cid)


def test_a_minted_token_lost_between_the_check_and_the_recording_stops_the_import_before_the_manifest(
        chain: Chain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    collection = foreign.make_foreign_collection(tmp_path / "their-node", 12, {})
    drop = deploy_test_drop(chain.w3, chain.owner, DropParams(max_supply=12,
                                                              base_uri=f"ipfs://{collection.metadata_root}/")).contract
    drop.functions.mint(0, MINTED, []).transact({"from": chain.accounts[1].address, "value": MINTED * PRICE_WEI})
    col = load_collection(write_collection(tmp_path / "col", size=12, generator__upscale=1,
                                           chain__rpc_url=chain.node.url))
    monkeypatch.setattr(tokens, "BLOCK_CACHE_BYTES", 0)  # every block read from the source each time
    flaky = _ServesOnce(collection.store.root, CID.parse(collection.image_cids[2]))
    server = serve_gateway(flaky)
    try:
        with pytest.raises(UserError, match="minted token.s. 2 could not be imported"):
            import_collection(col, drop.address, gateways=(f"http://127.0.0.1:{server.server_address[1]}",))
        assert flaky.served == 2  # read intact by the check, then lost
        with Ledger.open(col.state_dir, readonly=True) as ledger:
            assert ledger.current_manifest() is None and ledger.pieces() == {}
    finally:
        server.shutdown()
    healthy = serve_gateway(collection.store)
    try:
        plan = import_collection(col, drop.address, gateways=(f"http://127.0.0.1:{healthy.server_address[1]}",))
    finally:
        healthy.shutdown()
    assert sorted(t.token_id for t in plan.tokens) == list(range(1, 13)) and not plan.skipped
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        assert ledger.current_manifest() is not None and sorted(ledger.pieces()) == list(range(1, 13))


def test_an_ipfs_import_reads_tokens_side_by_side_in_token_order_and_each_file_once(tmp_path: Path):
    """`ipfs.pin_concurrency` reads at once through a gateway whose every request takes a round trip (the stand-in
    of tests/ipfs/served.py over mintprep's gateway app); what is imported is what one reader imports, in token
    order; a token costs its metadata file and its image, each read once: the metadata directory pinned at the
    end is walked from the files already read (it was fetched again, a third round trip per token)."""
    size = 40
    collection = foreign.make_foreign_collection(tmp_path / "their-node", size, {})
    imported, scripts = {}, {}
    for threads in (1, 8):
        scripts[threads] = Script(delay_s=0.02)
        col = load_collection(write_collection(tmp_path / f"col-{threads}", size=size, generator__upscale=1,
                                               ipfs__pin_concurrency=threads))
        with running(KeptAliveGateway(collection.store, scripts[threads])) as gateway:
            imported[threads] = import_collection(col, f"ipfs://{collection.metadata_root}",
                                                  gateways=(gateway,)).to_json()["imported"]
    assert imported[8] == imported[1] and [t["token_id"] for t in imported[8]] == list(range(1, size + 1))
    assert scripts[1].max_in_flight == 1 and scripts[8].max_in_flight >= 4
    directories = 4  # the metadata and image directories' nodes: listed when read, walked again when pinned
    assert len(scripts[8].requests) == len(scripts[1].requests) == 2 * size + directories, scripts[8].requests[-8:]
