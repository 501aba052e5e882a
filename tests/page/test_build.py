"""build_page: deterministic, swapped in whole, hostile text kept inert, bad input refused before writing."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from mintprep.base.errors import UserError
from mintprep.page import build_page, read_page_config
from mintprep.base import sitedir
from mintprep.page.abi import signature
from mintprep.page.mint_call import drop_description
from mintprep.base.sitedir import read_tree
from tests.page.conftest import HOSTILE_TRAIT, sample_collection

CONTRACT = "0x5fbdb2315678afecb367f032d93f642f64180aa3"
TARGET = dict(chain_id=8453, rpc_url="https://mainnet.base.org", gateway="https://ipfs.io/")


def test_same_inputs_give_identical_bytes_and_no_rewrite(collection, tmp_path: Path) -> None:
    manifest = sample_collection(5).manifest
    first = build_page(collection, manifest, tmp_path / "a", contract=CONTRACT, **TARGET)
    second = build_page(collection, copy.deepcopy(manifest), tmp_path / "b", contract=CONTRACT, **TARGET)
    assert first.written and second.written
    assert read_tree(first.out_dir) == read_tree(second.out_dir)
    assert first.site_digest == second.site_digest
    stamp = (first.index.stat().st_mtime_ns, first.index.stat().st_ino)
    again = build_page(collection, manifest, tmp_path / "a", contract=CONTRACT, **TARGET)
    assert not again.written and (again.index.stat().st_mtime_ns, again.index.stat().st_ino) == stamp


def test_page_embeds_root_contract_chain_and_tokens(collection, tmp_path: Path) -> None:
    manifest = sample_collection(3).manifest
    build = build_page(collection, manifest, tmp_path / "site", contract=CONTRACT, **TARGET)
    config = read_page_config(build.index)
    assert config["metadata_root"] == manifest["metadata_root"]
    assert config["contract"] == "0x5FbDB2315678afecb367f032d93F642f64180aa3"  # EIP-55 checksummed
    assert config["chain"]["id"] == 8453 and config["chain"]["hex"] == "0x2105"
    assert config["chain"]["add"]["rpcUrls"] == ["https://mainnet.base.org"]
    assert config["gateway"] == "https://ipfs.io"
    assert [t[0] for t in config["tokens"]] == [1, 2, 3]
    assert config["tokens"][0][2] == manifest["tokens"][0]["image_cid"]
    gallery = config["gallery"]
    assert set(build.files) == {"index.html", "_headers", "app.js", "style.css", f"{gallery['path']}0.json"}
    assert (gallery["chunks"], gallery["tokens"], gallery["unreadable"]) == (1, 3, [])


def test_the_drop_page_calls_and_reads_the_drop_through_its_abi_selectors() -> None:
    drop = drop_description()
    mint = drop["functions"][drop["mint"]["call"]]
    assert mint["selector"] == "0xe6d37b88"  # keccak("mint(uint256,uint256,bytes32[])")[:4]
    assert [p["type"] for p in mint["inputs"]] == ["uint256", "uint256", "bytes32[]"]
    assert drop["functions"]["mintedInPhase(uint256,address)"]["selector"] == "0xce436f92"
    # phase(i) returns one struct of static fields.
    (phase,) = drop["functions"]["phase(uint256)"]["outputs"]
    assert phase["type"] == "tuple"
    assert [c["type"] for c in phase["components"]] == ["uint64", "uint64", "uint128", "uint32", "uint32", "bytes32"]
    by_name = {e["name"]: sel for sel, e in drop["errors"].items()}
    assert by_name["WrongPayment"] == "0x0dd32d1c"
    assert {"SoldOut", "WalletLimit", "ZeroQuantity"} <= set(by_name)
    assert signature({"name": "f", "inputs": [{"type": "tuple", "components": [{"type": "uint8"}]}]}) == "f((uint8))"


def test_hostile_text_cannot_escape_the_json_element(collection, tmp_path: Path) -> None:
    sample = sample_collection(4, hostile_token=2)
    sample.manifest["name"] = 'Evil </script><script>alert(1)</script> "quoted"'
    build = build_page(collection, sample.manifest, tmp_path / "site", contract=None, **TARGET)
    html = build.index.read_text()
    assert html.count("<script") == 2 and html.count("</script>") == 2  # the config element and app.js only
    assert "<img src=x" not in html
    assert "<title>Evil &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot;</title>" in html
    config = read_page_config(build.index)
    assert config["collection"]["name"] == sample.manifest["name"]
    assert config["tokens"][1][3][0] == ["flower", HOSTILE_TRAIT]


def test_csp_allows_only_own_scripts_the_rpc_and_the_gateway(collection, tmp_path: Path) -> None:
    manifest = sample_collection(2).manifest
    deployed = build_page(collection, manifest, tmp_path / "a", contract=CONTRACT, chain_id=8453,
                          rpc_url="https://rpc.example.org/v1", gateway="https://gw.example.net/")
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', deployed.index.read_text()).group(1)
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["script-src"] == "'self'" and directives["default-src"] == "'none'"
    assert directives["connect-src"] == "'self' https://rpc.example.org"  # 'self': the gallery chunks
    assert directives["img-src"] == "'self' data: https://gw.example.net"
    gallery_only = build_page(collection, manifest, tmp_path / "b", contract=None, **TARGET)
    assert "connect-src 'self';" in gallery_only.index.read_text()
    js = (deployed.out_dir / "app.js").read_text()
    assert ".innerHTML" not in js and ".outerHTML" not in js and "insertAdjacentHTML" not in js and "eval(" not in js


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m, t: t.update(contract="0x1234"), "chain.contract"),
        (lambda m, t: t.update(rpc_url="ftp://node"), "RPC URL"),
        (lambda m, t: t.update(rpc_url="https://user:secret@rpc.example.org"), "credentials"),
        (lambda m, t: t.update(gateway="ipfs.io"), "gateway"),
        (lambda m, t: t.update(chain_id=0), "chain id"),
        (lambda m, t: m.pop("metadata_root"), "manifest.metadata_root"),
        (lambda m, t: m["tokens"][1].update(image_cid="../../etc/passwd"), "manifest.tokens[1].image_cid"),
        (lambda m, t: m["tokens"][0].update(token_id="1"), "manifest.tokens[0].token_id"),
        (lambda m, t: m["tokens"][0].update(attributes="flower"), "manifest.tokens[0].attributes"),
    ],
)
def test_bad_input_is_named_and_nothing_is_written(collection, tmp_path: Path, change, message: str) -> None:
    manifest = sample_collection(2).manifest
    target = dict(TARGET, contract=CONTRACT)
    change(manifest, target)
    with pytest.raises(UserError, match=re.escape(message)) as raised:
        build_page(collection, manifest, tmp_path / "site", **target)
    assert "secret" not in str(raised.value)
    assert not (tmp_path / "site").exists()


def test_a_crash_mid_write_leaves_the_old_site_whole(collection, tmp_path: Path, monkeypatch) -> None:
    manifest = sample_collection(3).manifest
    old = build_page(collection, manifest, tmp_path / "site", contract=None, **TARGET)
    before = read_tree(old.out_dir)
    real_write = sitedir._write_file
    written: list[Path] = []

    def crash_on_second_file(path: Path, data: bytes) -> None:
        if written:
            raise OSError("disk full")
        written.append(path)
        real_write(path, data)

    monkeypatch.setattr(sitedir, "_write_file", crash_on_second_file)
    with pytest.raises(OSError, match="disk full"):
        build_page(collection, manifest, tmp_path / "site", contract=CONTRACT, **TARGET)
    assert read_tree(old.out_dir) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["col", "site"], "no temp folder left behind"
    monkeypatch.undo()
    new = build_page(collection, manifest, tmp_path / "site", contract=CONTRACT, **TARGET)
    assert new.written and read_page_config(new.index)["contract"] is not None


def test_refuses_to_replace_a_folder_it_did_not_write(collection, tmp_path: Path) -> None:
    manifest = sample_collection(1).manifest
    foreign = tmp_path / "docs"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="did not write"):
        build_page(collection, manifest, foreign, contract=None, **TARGET)
    assert (foreign / "notes.txt").read_text() == "mine"
    with pytest.raises(UserError, match="contains"):
        build_page(collection, manifest, collection.base_dir, contract=None, **TARGET)
    assert collection.path.exists()


def test_shipped_scripts_are_the_sources_compacted_and_compacting_is_safe_for_them(collection, tmp_path) -> None:
    """compact_source drops indentation and whole-line comments: safe only while no literal spans lines."""
    from importlib import resources

    from mintprep.page.build import compact_source

    static = resources.files("mintprep.page").joinpath("static")
    for name in ("app.js", "style.css"):
        source = static.joinpath(name).read_text(encoding="utf-8")
        for number, line in enumerate(source.splitlines(), 1):
            assert line.count("`") % 2 == 0 and not line.rstrip().endswith("\\"), f"{name}:{number} spans lines"
        shipped = compact_source(source)
        assert len(shipped) < len(source) and "\n  " not in shipped
        assert [l.strip() for l in source.splitlines() if l.strip() and not l.strip().startswith("//")] == \
            shipped.splitlines(), "only indentation, blank lines and comment lines are removed"
    # style.css also loses the spaces around its punctuation, never inside a string, never before a pseudo-class.
    from mintprep.page.build import compact_css

    css = static.joinpath("style.css").read_text(encoding="utf-8")
    assert not re.search(r"\s:[a-z:]", css.replace(": ", ""))
    shipped_css = compact_css(css)
    assert len(shipped_css) < len(compact_source(css)) and 'content:": "' in shipped_css
    kept = "\n".join(line for line in compact_source(css).splitlines() if not line.startswith("/*"))
    assert re.sub(r"[\s{};:,>]", "", shipped_css) == re.sub(r"[\s{};:,>]", "", kept)
