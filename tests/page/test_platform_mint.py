"""The mint page on each family's own contract (tests.support.platforms: the publisher's source, compiled with solc-js,
deployed on anvil with 3 of 20 tokens sold), in Debian's Chromium through Playwright.

The collection is imported from the contract (`mintprep import --from`), and the page is the one `mintprep serve`
serves (`page.serve.preview`, what the command runs until Ctrl-C). It reads price, supply and limits from the
contract; a new collector's wallet (tests/page/eip1193_wallet.js, forwarding to anvil) mints 1 through it: one
transaction, the family's own call and value, checked on chain. Manifold's ERC721Creator mints through claim
extensions the page cannot drive: the page links to page.mint_url and offers no button, and without that URL
`serve` and `publish` refuse (exit 1)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.cli.app import app
from mintprep.collection.config import load_collection
from mintprep.ipfs.gateway import serve_gateway
from mintprep.base import PageCannotMint
from mintprep.page.serve import preview
from mintprep.state.workspace import Workspace
from tests.conftest import write_collection
from tests.page.test_browser import open_page  # noqa: F401  (fixture)
from tests.support.anvil import Chain
from tests.support.platforms import (LIMIT, MINTED, NATIVE_TOKEN, PRICE_WEI, SIZE, ZORA_MINT_FEE_WEI,
                                     FAMILIES, PlatformCollection, platforms)  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.anvil]

MINT_URL = "https://app.manifold.xyz/c/sunflower-study"


def _eth(wei: int) -> str:
    return f"{Decimal(wei) / Decimal(10**18):f}".rstrip("0").rstrip(".") + " ETH"


# family -> (the mint call's name, its arguments for 1 token to `buyer`, the value it pays, the limit shown)
def expected_call(family: str, buyer: str) -> tuple[str, list[Any], int, str]:
    if family.startswith("hashlips"):
        return "mint", [1], PRICE_WEI, f"{LIMIT} per transaction"
    if family == "mintprep-drop":
        return "mint", [0, 1, []], PRICE_WEI, f"{LIMIT} per wallet"
    if family == "thirdweb-drop":
        return ("claim", [buyer, 1, NATIVE_TOKEN, PRICE_WEI, ([], LIMIT, PRICE_WEI, NATIVE_TOKEN), b""], PRICE_WEI,
                f"{LIMIT} per wallet")
    assert family == "zora-drop"
    return "purchase", [1], PRICE_WEI + ZORA_MINT_FEE_WEI, f"{LIMIT} per wallet"


def plain(value: Any) -> Any:
    """A decoded argument as plain lists (web3 gives a struct as a dict, an array as a list or tuple)."""
    if isinstance(value, dict):
        value = list(value.values())
    return [plain(v) for v in value] if isinstance(value, (list, tuple)) else value


def imported(made: PlatformCollection, folder: Path, chain: Chain, **changes: object) -> Path:
    """A collection imported from the family's contract (its images from the creator's node)."""
    path = write_collection(folder, size=SIZE, generator__steps=3, generator__upscale=1, chain__rpc_url=chain.node.url,
                            **changes)
    server = serve_gateway(made.foreign.store)
    try:
        result = CliRunner().invoke(app, ["import", str(path), "--from", made.address, "--gateway",
                                          f"http://127.0.0.1:{server.server_address[1]}", "--json"])
    finally:
        server.shutdown()
    assert result.exit_code == 0, result.stdout
    assert json.loads(result.stdout)["family"] == made.family
    return path


@pytest.mark.parametrize("family", ["hashlips-lower-gas", "hashlips-simple", "mintprep-drop", "thirdweb-drop",
                                    "zora-drop"])
def test_a_collector_mints_one_through_the_served_page(family: str, platforms, chain: Chain, open_page, wallet_shim,
                                                       tmp_path: Path, artifacts_dir: Path) -> None:
    made: PlatformCollection = platforms[family][0]
    path = imported(made, tmp_path / "col", chain)
    buyer = chain.accounts[4].address
    name, args, value, limits = expected_call(family, buyer)
    shown_price = PRICE_WEI + (ZORA_MINT_FEE_WEI if family == "zora-drop" else 0)
    new_id = FAMILIES[family].first_id + MINTED

    with Workspace.open(load_collection(path), readonly=True) as ws, preview(ws) as served:
        assert json.loads((served.build.out_dir / "index.html").read_text().split(
            'id="mintprep-config">')[1].split("</script>")[0])["mint"]["family"] == family
        page, watch = open_page(served.url, init_script=wallet_shim(chain.node.url, buyer))
        # Read from the contract before any wallet: price (Zora's mint fee included), supply, limits.
        expect(page.locator("#price")).to_have_text(_eth(shown_price))
        expect(page.locator("#supply")).to_have_text(f"{MINTED} / {SIZE}")
        expect(page.locator("#limits")).to_have_text(limits)
        expect(page.locator("#sale-state")).to_have_attribute("data-state", "public")

        page.click("#connect")
        expect(page.locator("#mint")).to_be_enabled()
        block = chain.w3.eth.block_number
        page.click("#mint")
        page.locator("#status").filter(has_text="Minted 1.").wait_for()
        expect(page.locator("#received li")).to_have_text([f"#{new_id}"])
        page.screenshot(path=str(artifacts_dir / f"platform-mint-{family}.png"), full_page=True)
        assert page.evaluate("window.__walletCalls").count("eth_sendTransaction") == 1
        expect(page.locator("#supply")).to_have_text(f"{MINTED + 1} / {SIZE}")
        assert watch.problems == []

    assert chain.w3.eth.block_number == block + 1, "one transaction"
    (tx,) = chain.w3.eth.get_block(block + 1, full_transactions=True)["transactions"]
    assert tx["from"] == buyer and tx["to"] == made.address and tx["value"] == value
    function, called = made.contract.decode_function_input(tx["input"])
    assert function.fn_name == name
    assert plain(list(called.values())) == plain(args)
    assert made.contract.functions.ownerOf(new_id).call() == buyer


def test_manifold_links_to_its_mint_page_and_offers_no_button(platforms, chain: Chain, open_page,
                                                              tmp_path: Path) -> None:
    made: PlatformCollection = platforms["manifold-creator"][0]
    path = imported(made, tmp_path / "col", chain, page__mint_url=MINT_URL)
    with Workspace.open(load_collection(path), readonly=True) as ws, preview(ws) as served:
        page, watch = open_page(served.url)
        expect(page.locator("#mint-elsewhere")).to_be_visible()
        assert page.get_attribute("#mint-elsewhere a", "href") == MINT_URL
        assert page.locator("#mint-ui").is_hidden() and page.locator("#mint").is_hidden()
        assert page.locator("#connect").is_hidden()
        assert watch.problems == []


def test_without_a_mint_url_a_manifold_page_is_neither_served_nor_published(platforms, chain: Chain,
                                                                              tmp_path: Path) -> None:
    made: PlatformCollection = platforms["manifold-creator"][0]
    path = imported(made, tmp_path / "col", chain, page__publish__target="dir", page__publish__dir="public")
    with Workspace.open(load_collection(path), readonly=True) as ws, pytest.raises(PageCannotMint) as refused:
        with preview(ws):
            pass
    assert "page.mint_url" in str(refused.value) and "no public mint function" in str(refused.value)

    result = CliRunner().invoke(app, ["publish", str(path), "--json"])
    assert result.exit_code == 1, result.stdout
    assert "page.mint_url" in result.stdout
    assert not (path.parent / "public").exists() and not (path.parent / "site").exists()


def test_run_refuses_the_page_serve_and_publish_refuse(platforms, chain: Chain, tmp_path: Path) -> None:
    """A Manifold collection without page.mint_url: `run` names what is missing (before any check of the contract),
    `publish` exits 1 and nothing is written; with it, `publish` publishes the page that links there."""
    made: PlatformCollection = platforms["manifold-creator"][0]
    path = imported(made, tmp_path / "col", chain, page__publish__target="dir", page__publish__dir="public")
    result = CliRunner().invoke(app, ["run", str(path), "--json"])
    report = json.loads(result.stdout)
    assert result.exit_code == 1 and report["page"] is None and "page.mint_url" in report["page_blocked"], report
    published = CliRunner().invoke(app, ["publish", str(path), "--json"])
    assert published.exit_code == 1 and "page.mint_url" in published.stdout
    assert not (path.parent / "site").exists() and not (path.parent / "public").exists()

    text = path.read_text().replace("page:\n", f"page:\n  mint_url: {MINT_URL}\n", 1)
    path.write_text(text)
    published = CliRunner().invoke(app, ["publish", str(path), "--json"])
    assert published.exit_code == 0, published.stdout
    assert MINT_URL in (path.parent / "public" / "index.html").read_text()


def test_a_thirdweb_sale_priced_in_a_token_is_shown_and_not_offered(platforms, chain: Chain, open_page, wallet_shim,
                                                                    tmp_path: Path) -> None:
    """Paying an ERC-20 claim takes an approval first: the page says what the sale takes and offers no button."""
    made: PlatformCollection = platforms["thirdweb-drop"][0]
    token = "0x000000000000000000000000000000000000dEaD"
    path = imported(made, tmp_path / "col", chain)
    made.transact(made.contract.functions.setClaimConditions([(0, SIZE, 0, LIMIT, b"\x00" * 32, 5, token, "")], True))
    with Workspace.open(load_collection(path), readonly=True) as ws, preview(ws) as served:
        page, watch = open_page(served.url, init_script=wallet_shim(chain.node.url, chain.accounts[4].address))
        expect(page.locator("#sale-state")).to_have_attribute("data-state", "token")
        expect(page.locator("#sale-state")).to_contain_text(f"priced in the token {token.lower()}")
        assert page.inner_text("#price") == "5 token units"
        page.click("#connect")
        expect(page.locator("#account")).to_be_visible()
        expect(page.locator("#allowance")).to_have_text("–")
        assert page.locator("#mint").is_hidden() and page.locator("#qty-row").is_hidden()
        assert watch.problems == []


def test_a_hashlips_sale_shows_its_pause_and_its_per_transaction_cap(platforms, chain: Chain, open_page, wallet_shim,
                                                                     tmp_path: Path) -> None:
    made: PlatformCollection = platforms["hashlips-lower-gas"][0]
    path = imported(made, tmp_path / "col", chain)
    buyer = chain.accounts[4].address
    made.transact(made.contract.functions.setPaused(True))
    with Workspace.open(load_collection(path), readonly=True) as ws, preview(ws) as served:
        page, watch = open_page(served.url, init_script=wallet_shim(chain.node.url, buyer))
        expect(page.locator("#sale-state")).to_have_attribute("data-state", "paused")
        assert page.inner_text("#sale-state") == "Minting is paused by the creator."
        page.click("#connect")
        expect(page.locator("#account")).to_be_visible()
        assert page.locator("#mint").is_hidden()

        made.transact(made.contract.functions.setPaused(False))
        made.transact(made.contract.functions.setMaxMintAmountPerTx(2))
        page, _ = open_page(served.url, init_script=wallet_shim(chain.node.url, buyer))
        expect(page.locator("#limits")).to_have_text("2 per transaction")
        page.click("#connect")
        expect(page.locator("#allowance")).to_have_text("up to 2 per transaction")
        assert page.get_attribute("#qty", "max") == "2"
        page.fill("#qty", "3")
        assert page.locator("#mint").is_disabled()
        page.fill("#qty", "2")
        page.click("#mint")
        page.locator("#status").filter(has_text="Minted 2.").wait_for()
        assert made.contract.functions.balanceOf(buyer).call() == 2
        assert watch.problems == []


def test_a_zora_price_changed_behind_the_page_is_caught_by_the_simulation(platforms, chain: Chain, open_page,
                                                                          wallet_shim, tmp_path: Path) -> None:
    made: PlatformCollection = platforms["zora-drop"][0]
    path = imported(made, tmp_path / "col", chain)
    with Workspace.open(load_collection(path), readonly=True) as ws, preview(ws) as served:
        page, watch = open_page(served.url, init_script=wallet_shim(chain.node.url, chain.accounts[4].address))
        page.click("#connect")
        expect(page.locator("#allowance")).to_have_text(f"{LIMIT} of {LIMIT} left")
        made.transact(made.contract.functions.setSaleConfiguration(2 * PRICE_WEI, LIMIT, 0, 2**64 - 1, 0, 0,
                                                                   b"\x00" * 32))
        block = chain.w3.eth.block_number
        page.click("#mint")
        page.locator("#status").filter(has_text="Wrong price").wait_for()
        assert "Purchase_WrongPrice(" in page.inner_text("#status")
        assert chain.w3.eth.block_number == block and page.evaluate("window.__walletCalls").count(
            "eth_sendTransaction") == 0, "nothing sent"
        expect(page.locator("#price")).to_have_text(_eth(2 * PRICE_WEI + ZORA_MINT_FEE_WEI))
        assert watch.problems == []
