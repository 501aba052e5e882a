"""The built mint page in Debian's Chromium (Playwright, headless), against a real anvil node.

The wallet is tests/page/eip1193_wallet.js: an EIP-1193 provider announced through EIP-6963 that forwards
to anvil (which signs for its unlocked dev accounts). Images come from a local stand-in for an IPFS path
gateway (GET /ipfs/<cid>). Screenshots land in test-artifacts/ for a person to look at.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from mintprep.page import build_page, read_page_config
from tests.page.conftest import HOSTILE_TRAIT, path_gateway, sample_collection, serve_dir
from tests.support.anvil import DeployedDrop, DropParams, deploy_test_drop

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


class PageWatch:
    """Console errors, CSP violations, dialogs and the origins a page talks to, collected while it runs."""

    def __init__(self, page: Any) -> None:
        self.problems: list[str] = []
        self.origins: set[str] = set()
        self.urls: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.problems.append(m.text))
        page.on("pageerror", lambda e: self.problems.append(f"uncaught: {e}"))
        page.on("dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss()))
        page.on("request", self._request)

    def _request(self, request: Any) -> None:
        self.urls.append(request.url)
        self.origins.add("{0.scheme}://{0.netloc}".format(urlsplit(request.url)))


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    contexts = []

    def opener(url: str, viewport: dict[str, int] = DESKTOP, init_script: str | None = None) -> tuple[Any, PageWatch]:
        context = browser.new_context(viewport=viewport)
        contexts.append(context)
        page = context.new_page()
        watch = PageWatch(page)
        if init_script:
            page.add_init_script(init_script)
        page.goto(url)
        return page, watch

    yield opener
    for context in contexts:
        context.close()


def test_gallery_without_contract_shows_text_as_text(collection, open_page, tmp_path: Path, artifacts_dir: Path) -> None:
    sample = sample_collection(12, hostile_token=3)
    with path_gateway(sample.images) as gateway:
        build = build_page(collection, sample.manifest, tmp_path / "site", contract=None, chain_id=8453,
                           rpc_url="https://mainnet.base.org", gateway=gateway)
        with serve_dir(build.out_dir) as site:
            page, watch = open_page(site + "/index.html")
            page.wait_for_selector(".card img")
            page.wait_for_function("() => [...document.querySelectorAll('.card img')].every(i => i.complete)")

            assert page.locator("#not-deployed").is_visible()
            assert page.locator("#mint-ui").is_hidden()
            assert page.locator(".card").count() == 12
            assert page.locator("#more").is_hidden()
            assert page.inner_text("h1") == "Sunflower Study"
            hostile = page.locator('.card[data-token-id="3"] .value').first
            assert hostile.inner_text() == HOSTILE_TRAIT  # shown literally
            assert page.locator('img[src="x"]').count() == 0  # …and never parsed into an element
            assert page.evaluate("window.__pwned") is None
            loaded = page.evaluate("[...document.querySelectorAll('.card img')].map(i => i.naturalWidth)")
            assert loaded == [64] * 12, "every image came through the gateway"
            assert page.evaluate("document.querySelector('.card img').loading") == "lazy"
            page.screenshot(path=str(artifacts_dir / "page-gallery-desktop.png"), full_page=True)
            site_origin, gateway_origin = site.rstrip("/"), gateway.rstrip("/")
            assert watch.origins <= {site_origin, gateway_origin}, "no third-party requests"
            assert watch.problems == []


def test_a_hidden_drop_page_shows_no_art_before_the_reveal(collection, open_page, tmp_path: Path,
                                                          artifacts_dir: Path) -> None:
    """What `page_manifest` gives a chain.reveal drop before its reveal: no gallery entries, no metadata root."""
    sample = sample_collection(3)
    hidden = {**sample.manifest, "metadata_root": None, "tokens": [], "hidden": True}
    build = build_page(collection, hidden, tmp_path / "site", contract=None, chain_id=8453,
                       rpc_url="https://mainnet.base.org", gateway="https://ipfs.io")
    assert not [p for p in build.out_dir.rglob("*") if p.is_file() and any(
        t["image_cid"].encode() in p.read_bytes() or sample.manifest["metadata_root"].encode() in p.read_bytes()
        for t in sample.manifest["tokens"])]
    with serve_dir(build.out_dir) as site:
        page, watch = open_page(site + "/index.html")
        expect(page.locator("#gallery-title")).to_have_text("The art is shown after the reveal.")
        assert page.inner_text("#metadata-root") == "hidden until the reveal"
        assert page.locator(".card").count() == 0 and page.locator("#more").is_hidden()
        assert page.inner_text("#provenance") == sample.manifest["provenance_hash"]
        page.screenshot(path=str(artifacts_dir / "hidden-drop-before-reveal.png"), full_page=True)
        assert watch.problems == []


def _eth(wei: int) -> str:
    return f"{Decimal(wei) / Decimal(10**18):f}".rstrip("0").rstrip(".") + " ETH"


def test_connect_switch_mint_and_decoded_reverts(chain, collection, open_page, wallet_shim, tmp_path: Path,
                                                artifacts_dir: Path) -> None:
    deployed: DeployedDrop = deploy_test_drop(chain.w3, chain.owner, DropParams(max_per_wallet=3))
    drop = deployed.contract
    minter = chain.accounts[1].address
    price = drop.functions.phase(0).call()[2]
    sample = sample_collection(8)

    with path_gateway(sample.images) as gateway:
        build = build_page(collection, sample.manifest, tmp_path / "site", contract=drop.address,
                           chain_id=chain.node.chain_id, rpc_url=chain.node.url, gateway=gateway)
        with serve_dir(build.out_dir) as site:
            page, watch = open_page(site + "/index.html", init_script=wallet_shim(chain.node.url, minter))
            status = page.locator("#status")

            # Read before any wallet: price and supply come from the contract.
            expect(page.locator("#price")).to_have_text(_eth(price))
            assert page.inner_text("#supply") == f"{drop.functions.totalMinted().call()} / 77"

            assert page.locator("#qty-row").is_hidden() and page.locator("#mint").is_hidden()

            # Connect: the wallet starts on chain 1, the page switches it to the node's chain.
            page.click("#connect")
            expect(page.locator("#allowance")).to_have_text("3 of 3 left")
            calls = page.evaluate("window.__walletCalls")
            assert calls[:3] == ["eth_requestAccounts", "eth_chainId", "wallet_switchEthereumChain"]
            assert page.evaluate("window.__walletCalls").count("wallet_switchEthereumChain") == 1
            assert page.inner_text("#allowance") == "3 of 3 left"
            assert minter in page.inner_text("#account")

            # More than the allowance cannot be chosen.
            page.fill("#qty", "5")
            assert page.locator("#mint").is_disabled()
            assert "between 1 and 3" in page.inner_text("#qty-hint")
            page.fill("#qty", "2")
            page.click("#qty-up")
            assert page.input_value("#qty") == "3" and page.locator("#qty-up").is_disabled()
            page.click("#qty-down")

            page.click("#mint")
            status.filter(has_text="Minted 2.").wait_for()
            assert drop.functions.balanceOf(minter).call() == 2
            assert drop.functions.mintedInPhase(0, minter).call() == 2
            expect(page.locator("#allowance")).to_have_text("1 of 3 left")
            assert page.inner_text("#supply") == "2 / 77"
            assert page.input_value("#qty") == "1", "the choice narrows to the new allowance"
            page.screenshot(path=str(artifacts_dir / "page-minted-desktop.png"), full_page=True)
            sends = calls_of(page, "eth_sendTransaction")

            # The owner changes the price behind the page's back: the simulation catches it, nothing is sent.
            new_price = price * 2
            drop.functions.setPhase(0, (0, 2**64 - 1, new_price, 3, 0, b"\x00" * 32)).transact(
                {"from": chain.owner.address})
            page.click("#mint")
            status.filter(has_text="Wrong price").wait_for()
            assert f"expects {_eth(new_price)}" in status.inner_text()
            assert "WrongPayment(expected: " in status.inner_text()
            expect(page.locator("#price")).to_have_text(_eth(new_price))

            # The same wallet mints elsewhere, so the page's allowance is stale: the forced attempt is refused.
            drop.functions.mint(0, 1, []).transact({"from": minter, "value": new_price})
            assert page.inner_text("#allowance") == "1 of 3 left"
            page.click("#mint")
            status.filter(has_text="Over the wallet limit").wait_for()
            assert "WalletLimit(allowed: 0)" in status.inner_text()
            expect(page.locator("#allowance")).to_have_text("0 of 3 left")
            assert page.locator("#mint").is_disabled()
            assert calls_of(page, "eth_sendTransaction") == sends, "no transaction sent after a failed simulation"
            assert drop.functions.mintedInPhase(0, minter).call() == 3
            page.screenshot(path=str(artifacts_dir / "page-revert-desktop.png"), full_page=True)
            assert watch.problems == []

            phone, _ = open_page(site + "/index.html", viewport=PHONE, init_script=wallet_shim(chain.node.url, minter))
            phone.click("#connect")
            expect(phone.locator("#allowance")).to_have_text("0 of 3 left")
            assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "no sideways scroll"
            phone.screenshot(path=str(artifacts_dir / "page-phone.png"), full_page=True)


def calls_of(page: Any, method: str) -> int:
    return page.evaluate("window.__walletCalls").count(method)


# A second EIP-6963 wallet whose every request is refused by its user (EIP-1193 code 4001).
REFUSING_WALLET = """
window.addEventListener('eip6963:requestProvider', () => window.dispatchEvent(new CustomEvent(
  'eip6963:announceProvider', { detail: { info: { uuid: 'refuser', name: 'Refusing Wallet', icon: '', rdns: 'x.refuser' },
    provider: { request: async () => { throw Object.assign(new Error('User rejected'), { code: 4001 }); }, on() {} } } })));
"""


def test_wallet_picker_rejection_fallback_and_sold_out(chain, collection, open_page, wallet_shim, tmp_path: Path) -> None:
    drop = deploy_test_drop(chain.w3, chain.owner, DropParams(max_supply=2)).contract
    minter, other = chain.accounts[1].address, chain.accounts[2].address
    sample = sample_collection(2)
    with path_gateway(sample.images) as gateway:
        build = build_page(collection, sample.manifest, tmp_path / "site", contract=drop.address,
                           chain_id=chain.node.chain_id, rpc_url=chain.node.url, gateway=gateway)
        with serve_dir(build.out_dir) as site:
            # Two announced wallets: the page asks which; the refusal is reported as such.
            page, watch = open_page(site + "/index.html", init_script=wallet_shim(chain.node.url, minter) + REFUSING_WALLET)
            page.click("#connect")
            assert sorted(page.locator("#wallets button").all_inner_texts()) == ["Anvil Test Wallet", "Refusing Wallet"]
            page.click("#wallets button:has-text('Refusing Wallet')")
            expect(page.locator("#status")).to_have_text("You rejected the request in your wallet.")
            assert page.locator("#connect").is_visible()

            # A wallet that only sets window.ethereum still connects; the cap is the remaining supply (2 < 5).
            legacy, _ = open_page(site + "/index.html", init_script=wallet_shim(chain.node.url, minter, legacy=True))
            legacy.click("#connect")
            expect(legacy.locator("#allowance")).to_have_text("5 of 5 left")
            assert legacy.get_attribute("#qty", "max") == "2"

            # Someone else buys the rest first: the page's stale view is corrected by the simulation.
            drop.functions.mint(0, 2, []).transact({"from": other, "value": 2 * drop.functions.phase(0).call()[2]})
            legacy.click("#mint")
            legacy.locator("#status").filter(has_text="Sold out").wait_for()
            assert "SoldOut(remaining: 0)" in legacy.inner_text("#status")
            expect(legacy.locator("#supply")).to_have_text("2 / 2")
            expect(legacy.locator("#qty-hint")).to_contain_text("Sold out.")
            assert legacy.get_attribute("#sale-state", "data-state") == "sold-out"
            assert drop.functions.balanceOf(minter).call() == 0
            assert watch.problems == []


def test_gallery_fetches_later_chunks_as_the_visitor_scrolls(collection, large_sample, open_page, tmp_path: Path,
                                                             artifacts_dir: Path) -> None:
    with path_gateway(large_sample.images) as gateway:
        build = build_page(collection, large_sample.manifest, tmp_path / "site", contract=None, chain_id=8453,
                           rpc_url="https://mainnet.base.org", gateway=gateway)
        chunk_path = read_page_config(build.index)["gallery"]["path"]
        chunk_ids = [[e[0] for e in json.loads((build.out_dir / f"{chunk_path}{i}.json").read_bytes())]
                     for i in range(3)]
        with serve_dir(build.out_dir) as site:
            page, watch = open_page(site + "/index.html")

            def fetched() -> list[str]:
                return [url.removeprefix(f"{site}/{chunk_path}") for url in watch.urls if chunk_path in url]

            page.wait_for_selector(".card")
            page.wait_for_timeout(300)  # time for any eager fetch beyond what the first screens need
            assert fetched() == ["0.json"], "only the first chunk loads with the page"
            assert page.locator(".card").count() < len(chunk_ids[0])

            later = page.locator(f'.card[data-token-id="{chunk_ids[2][0]}"]')
            for _ in range(40):
                if later.count():
                    break
                page.mouse.wheel(0, 4000)
                page.wait_for_timeout(100)
            expect(later).to_have_count(1)
            assert fetched() == ["0.json", "1.json", "2.json"], "each chunk fetched once, in order, when needed"
            shown = page.evaluate("[...document.querySelectorAll('.card')].map(c => Number(c.dataset.tokenId))")
            assert shown == list(range(1, len(shown) + 1)), "the gallery keeps token order across chunks"
            assert later.locator("h3").inner_text() == f"Sunflower Study #{chunk_ids[2][0]}"
            later.scroll_into_view_if_needed()
            page.wait_for_function(
                f"() => document.querySelector('.card[data-token-id=\"{chunk_ids[2][0]}\"] img').naturalWidth === 64")
            page.screenshot(path=str(artifacts_dir / "page-gallery-scrolled.png"))
            assert page.locator("#more").is_visible(), "2,000 tokens: more remain after three chunks"
            assert watch.origins <= {site.rstrip("/"), gateway.rstrip("/")}
            assert watch.problems == []


def test_host_headers_carry_the_csp_and_forbid_framing(collection, open_page, tmp_path: Path) -> None:
    """The `_headers` rules as a host applies them (serve_dir does, like Netlify): the page still works under the
    header CSP, and another site cannot frame the mint button (frame-ancestors, which a <meta> CSP cannot set)."""
    sample = sample_collection(2)
    with path_gateway(sample.images) as gateway, serve_dir(tmp_path / "site") as site:
        build_page(collection, sample.manifest, tmp_path / "site", contract=None, chain_id=8453,
                   rpc_url="https://mainnet.base.org", gateway=gateway)
        page, watch = open_page(site + "/index.html")
        expect(page.locator(".card")).to_have_count(2)
        assert watch.problems == []
        response = page.request.get(site + "/index.html")
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        assert response.headers["x-content-type-options"] == "nosniff"

        # Another site frames the page, and (control: no CSP there) an image from the gateway.
        image = f"{gateway}/ipfs/{sample.manifest['tokens'][0]['image_cid']}"
        (tmp_path / "other").mkdir()
        (tmp_path / "other" / "index.html").write_text(
            f'<iframe src="{site}/index.html"></iframe><iframe src="{image}"></iframe>')
        with serve_dir(tmp_path / "other") as other:
            framing, _ = open_page(other + "/index.html")
            urls: list[str] = []
            for _ in range(50):
                urls = sorted(frame.url for frame in framing.frames[1:])
                if len(urls) == 2 and site + "/index.html" not in urls:
                    break
                framing.wait_for_timeout(100)
        assert urls[0].startswith("chrome-error://"), f"Chromium refused to frame the page: {urls}"
        assert urls[1] == image, "while the image, served without the header, framed fine"


def test_an_unreachable_chunk_is_reported_and_show_more_retries(collection, large_sample, open_page,
                                                                tmp_path: Path) -> None:
    with path_gateway(large_sample.images) as gateway:
        build = build_page(collection, large_sample.manifest, tmp_path / "site", contract=None, chain_id=8453,
                           rpc_url="https://mainnet.base.org", gateway=gateway)
        second = build.out_dir / f"{read_page_config(build.index)['gallery']['path']}1.json"
        first_of_second = json.loads(second.read_bytes())[0][0]
        held_back = second.read_bytes()
        second.unlink()
        with serve_dir(build.out_dir) as site:
            page, watch = open_page(site + "/index.html")
            status = page.locator("#gallery-status")
            for _ in range(20):
                if status.inner_text():
                    break
                page.mouse.wheel(0, 4000)
                page.wait_for_timeout(100)
            expect(status).to_contain_text("answered HTTP 404")
            assert page.locator(f'.card[data-token-id="{first_of_second}"]').count() == 0
            assert page.locator(".card").count() == first_of_second - 1, "what did load stays shown"
            watch.problems.clear()  # Chromium logs the 404 itself

            second.write_bytes(held_back)
            page.click("#more")
            expect(page.locator(f'.card[data-token-id="{first_of_second}"]')).to_have_count(1)
            expect(status).to_be_empty()
            assert watch.problems == []

        file_page, _ = open_page(build.index.as_uri())
        expect(file_page.locator("#gallery-status")).to_contain_text("mintprep serve")


# A wallet on another chain that cannot switch (nor add) the page's: the page must say which chain it needs.
STUCK_WALLET = """
window.addEventListener('eip6963:requestProvider', () => window.dispatchEvent(new CustomEvent(
  'eip6963:announceProvider', { detail: { info: { uuid: 'stuck', name: 'Stuck Wallet', icon: '', rdns: 'x.stuck' },
    provider: { request: async ({ method }) => {
      if (method === 'eth_requestAccounts') return ['0x000000000000000000000000000000000000dEaD'];
      if (method === 'eth_chainId') return '0x89';
      throw Object.assign(new Error('Unsupported'), { code: -32603 });
    }, on() {} } } })));
"""


def test_every_state_of_the_sale(chain, collection, open_page, wallet_shim, tmp_path: Path, artifacts_dir: Path) -> None:
    """Not yet open (countdown), allowlist (listed / not listed, proof from the published file), wallet limit,
    insufficient funds, token ids received, public, paused, wrong network, sold out: desktop and phone shots."""
    from mintprep.chain.merkle import AllowlistTree
    from mintprep.chain.phases import SalePhase
    from mintprep.collection.chain_settings import PhaseSettings

    listed, outsider, poor = chain.accounts[1], chain.accounts[2], chain.accounts[3]
    now = chain.w3.eth.get_block("latest")["timestamp"]
    tree = AllowlistTree.of([listed.address, chain.accounts[4].address])
    price = 10**15
    allowlist_phase = (now + 3600, now + 7200, price, 2, 0, tree.root)
    public_phase = (now + 7200, 2**64 - 1, 2 * price, 3, 0, b"\x00" * 32)
    deployed = deploy_test_drop(chain.w3, chain.owner, DropParams(max_supply=6, phases=(allowlist_phase, public_phase)))
    drop = deployed.contract
    (tmp_path / "al.txt").write_text(f"{listed.address}\n{chain.accounts[4].address}\n")
    phases = [SalePhase(PhaseSettings(name="Friends", allowlist="al.txt", max_per_wallet=2), tree),
              SalePhase(PhaseSettings(name="Public", max_per_wallet=3), None)]
    # The poor wallet keeps 0.0005 ETH: less than one token's price.
    chain.w3.provider.make_request("anvil_setBalance", [poor.address, hex(5 * 10**14)])
    sample = sample_collection(6)

    def shoot(page: Any, name: str) -> None:
        page.screenshot(path=str(artifacts_dir / f"state-{name}-desktop.png"), full_page=True)
        phone, _ = open_page(page.url, viewport=PHONE, init_script=page_wallet[page])
        if page_wallet[page]:
            phone.click("#connect")
        expect(phone.locator("#sale-state")).to_have_attribute("data-state", page.get_attribute("#sale-state", "data-state"))
        phone.wait_for_timeout(300)
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
        phone.screenshot(path=str(artifacts_dir / f"state-{name}-phone.png"), full_page=True)

    page_wallet: dict[Any, str] = {}

    def visit(account: Any = None, extra: str = "") -> Any:
        script = (wallet_shim(chain.node.url, account.address) if account else "") + extra
        page, watch = open_page(site + "/index.html", init_script=script or None)
        page_wallet[page] = script
        watches.append(watch)
        return page

    watches: list[PageWatch] = []
    with path_gateway(sample.images) as gateway:
        build = build_page(collection, sample.manifest, tmp_path / "site", contract=drop.address,
                           chain_id=chain.node.chain_id, rpc_url=chain.node.url, gateway=gateway, phases=phases)
        assert (build.out_dir / "allowlist/0/a/0.json").is_file() and (build.out_dir / "allowlist/0/n/0.bin").is_file()
        with serve_dir(build.out_dir) as site:
            # Not yet open: a countdown to the Friends phase, read from chain time.
            page = visit()
            expect(page.locator("#sale-state")).to_have_attribute("data-state", "not-open")
            assert re.match(r"Friends opens in (01:00:00|00:59:\d\d) \(", page.inner_text("#sale-state"))
            first = page.inner_text("#sale-state")
            page.wait_for_timeout(1100)
            assert page.inner_text("#sale-state") != first, "the countdown ticks"
            shoot(page, "not-open")

            # Allowlist phase: the listed wallet is told so and mints with the proof from the allowlist files of phase 0.
            chain.w3.provider.make_request("evm_setNextBlockTimestamp", [now + 3601])
            chain.w3.provider.make_request("evm_mine", [])
            page = visit(listed)
            page.click("#connect")
            expect(page.locator("#listed")).to_have_text("This wallet is on the Friends list.")
            assert page.get_attribute("#sale-state", "data-state") == "allowlist"
            expect(page.locator("#allowance")).to_have_text("2 of 2 left")
            page.fill("#qty", "2")
            page.click("#mint")
            page.locator("#status").filter(has_text="Minted 2.").wait_for()
            expect(page.locator("#received li")).to_have_text(["#1", "#2"])
            assert drop.functions.balanceOf(listed.address).call() == 2
            # Wallet limit reached: a normal state, not an error.
            expect(page.locator("#allowance")).to_have_text("0 of 2 left")
            assert "minted its limit of 2 in Friends" in page.inner_text("#qty-hint")
            assert page.get_attribute("#qty-hint", "data-reason") == "cap" and page.locator("#mint").is_disabled()
            page.screenshot(path=str(artifacts_dir / "state-minted-limit-desktop.png"), full_page=True)

            page = visit(outsider)
            page.click("#connect")
            expect(page.locator("#listed")).to_contain_text(
                "This wallet is not on the Friends list; the public sale opens at ")
            # Said once: no "0 of 2 left", no quantity 0, no dead Mint button, no hint repeating the line.
            expect(page.locator("#allowance")).to_have_text("not listed")
            body = page.inner_text("body")
            assert "of 2 left" not in body and body.count("not on the Friends list") == 1, body
            assert page.locator("#qty-row").is_hidden() and page.locator("#mint").is_hidden()
            assert page.locator("#qty-hint").is_hidden()
            shoot(page, "allowlist-not-listed")

            # Public phase: the poor wallet is told how much it needs.
            chain.w3.provider.make_request("evm_setNextBlockTimestamp", [now + 7201])
            chain.w3.provider.make_request("evm_mine", [])
            page = visit(poor)
            page.click("#connect")
            expect(page.locator("#sale-state")).to_have_attribute("data-state", "public")
            expect(page.locator("#qty-hint")).to_contain_text("Not enough ETH: minting 1 needs 0.002 ETH plus gas")
            assert "this wallet has 0.0005 ETH" in page.inner_text("#qty-hint") and page.locator("#mint").is_disabled()
            shoot(page, "insufficient-funds")

            page = visit(outsider)
            page.click("#connect")
            expect(page.locator("#allowance")).to_have_text("3 of 3 left")
            assert page.locator("#listed").is_hidden()
            shoot(page, "public")

            # Wrong network: the wallet cannot leave chain 137.
            page = visit(extra=STUCK_WALLET)
            page.click("#connect")
            expect(page.locator("#status")).to_contain_text(
                "Wrong network: your wallet is on chain 137; switch it to Base to mint.")
            shoot(page, "wrong-network")

            # Paused by the owner.
            drop.functions.pause().transact({"from": chain.owner.address})
            page = visit()
            expect(page.locator("#sale-state")).to_have_attribute("data-state", "paused")
            shoot(page, "paused")
            drop.functions.unpause().transact({"from": chain.owner.address})

            # Sold out.
            drop.functions.mint(1, 3, []).transact({"from": outsider.address, "value": 6 * price})
            drop.functions.mint(1, 1, []).transact({"from": chain.accounts[5].address, "value": 2 * price})
            page = visit()
            expect(page.locator("#sale-state")).to_have_attribute("data-state", "sold-out")
            assert page.inner_text("#supply") == "6 / 6"
            # Nothing left to connect for: the way to the collection on a marketplace instead.
            expect(page.locator("#marketplace")).to_be_visible()
            assert page.locator("#connect").is_hidden() and page.inner_text("#allowance") == "–"
            assert page.get_attribute("#marketplace", "href") == f"https://opensea.io/assets/base/{drop.address}"
            shoot(page, "sold-out")

            # 64x64 art scaled up to the card: square pixels, not a blur.
            page.wait_for_function("() => [...document.querySelectorAll('.card img')].every(i => i.complete)")
            rendering = page.eval_on_selector_all(".card img", "imgs => imgs.map(i => getComputedStyle(i).imageRendering)")
            assert rendering == ["pixelated"] * 6
            page.locator('.card[data-token-id="1"]').screenshot(path=str(artifacts_dir / "pixel-art-64.png"))
    for watch in watches:
        assert [p for p in watch.problems if "Failed to load resource" not in p] == []
