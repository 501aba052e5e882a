"""Gallery chunks and the `_headers` file: pure cores, then a built 2,000-token site read back from disk."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from mintprep.stages.audit import page_differences
from mintprep.base.errors import UserError
from mintprep.base import sitedir
from mintprep.page import build_page, page_config, read_page_config
from mintprep.page.gallery import CHUNK_BYTES, read_gallery, split_gallery
from mintprep.page.headers import headers_for, parse_headers, render_headers, site_header_rules
from mintprep.base.sitedir import read_tree

TARGET = dict(chain_id=8453, rpc_url="https://mainnet.base.org", gateway="https://ipfs.io")
CONTRACT = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
PAGE_BUDGET = 50 * 1024  # the goal: page weight without images, whatever the collection size


def entry(token_id: int, name_length: int = 20) -> list:
    return [token_id, "n" * name_length, f"bafk{token_id:06d}", [["flower", "tulip"]]]


def test_chunks_respect_the_byte_budget_and_keep_order() -> None:
    entries = [entry(i, name_length=i % 37) for i in range(1, 501)]
    gallery = split_gallery(entries, chunk_bytes=2000)
    bodies = [gallery.files[f"{gallery.section['path']}{i}.json"] for i in range(gallery.section["chunks"])]
    assert len(bodies) == len(gallery.files) > 10
    assert all(len(body) <= 2000 for body in bodies)
    assert all(len(body) > 2000 - 120 for body in bodies[:-1]), "each chunk is filled before the next starts"
    assert [e for body in bodies for e in json.loads(body)] == entries
    assert gallery.section["tokens"] == 500
    oversized = split_gallery([entry(1, name_length=5000), entry(2)], chunk_bytes=2000)
    assert oversized.section["chunks"] == 2, "an entry larger than the budget still gets a chunk of its own"
    assert split_gallery([]).section == {"path": split_gallery([]).section["path"], "chunks": 0, "tokens": 0}


def test_chunk_folder_is_named_by_content() -> None:
    entries = [entry(i) for i in range(1, 301)]
    same, changed = split_gallery(entries, 2000), split_gallery([*entries[:-1], entry(999)], 2000)
    assert split_gallery(copy.deepcopy(entries), 2000) == same
    assert changed.section["path"] != same.section["path"]
    renamed = {rel.rsplit("/", 1)[1]: body for rel, body in changed.files.items()}
    kept = [name for name, body in renamed.items() if same.files[same.section["path"] + name] == body]
    assert len(kept) == len(renamed) - 1, "one changed token changes one chunk's bytes"


@pytest.mark.parametrize("section", [None, {"path": "gallery/../../etc/", "chunks": 1},
                                     {"path": "/abs/", "chunks": 1}, {"path": "gallery/0123456789abcdef", "chunks": 1}])
def test_read_gallery_refuses_paths_outside_the_chunk_folders(tmp_path: Path, section) -> None:
    with pytest.raises(ValueError, match="not a gallery section"):
        read_gallery(tmp_path, section)


def test_headers_file_round_trips_and_matches_paths() -> None:
    rules = site_header_rules("default-src 'none'")
    text = render_headers(rules).decode()
    assert parse_headers("# comment\n\n" + text) == rules
    index = headers_for(rules, "/index.html")
    assert index["Content-Security-Policy"] == "default-src 'none'; frame-ancestors 'none'"
    assert "Cache-Control" not in index
    chunk = headers_for(rules, "/gallery/0123456789abcdef/3.json")
    assert chunk["Cache-Control"].endswith("immutable") and "frame-ancestors" in chunk["Content-Security-Policy"]
    with pytest.raises(ValueError, match="line 1"):
        parse_headers("  X-Orphan: 1\n")


def test_2000_tokens_keep_index_html_small_and_read_back_whole(collection, large_sample, tmp_path: Path) -> None:
    small = build_page(collection, large_sample.manifest | {"tokens": large_sample.manifest["tokens"][:77]},
                       tmp_path / "small", contract=CONTRACT, **TARGET)
    large = build_page(collection, large_sample.manifest, tmp_path / "large", contract=CONTRACT, **TARGET)
    index = large.index.stat().st_size
    assert index < PAGE_BUDGET
    assert abs(index - small.index.stat().st_size) < 64, "index.html does not grow with the collection"
    config = read_page_config(large.index)
    gallery = config["gallery"]
    assert gallery["chunks"] > 10 and gallery["unreadable"] == []
    expected = page_config(large_sample.manifest, contract=CONTRACT, **TARGET)["tokens"]
    assert config["tokens"] == expected
    first_load = sum((large.out_dir / rel).stat().st_size
                     for rel in ("index.html", "app.js", "style.css", f"{gallery['path']}0.json"))
    assert first_load < PAGE_BUDGET, f"the first load weighs {first_load} bytes"
    assert all(len(data) <= CHUNK_BYTES for rel, data in read_tree(large.out_dir).items() if rel.startswith("gallery/"))


def test_csp_header_is_the_meta_csp_plus_frame_ancestors(collection, tmp_path: Path, large_sample) -> None:
    build = build_page(collection, large_sample.manifest | {"tokens": large_sample.manifest["tokens"][:3]},
                       tmp_path / "site", contract=CONTRACT, **TARGET)
    meta = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', build.index.read_text()).group(1)
    rules = parse_headers((build.out_dir / "_headers").read_text())
    header = headers_for(rules, "/index.html")["Content-Security-Policy"]
    assert header == meta.replace("&quot;", '"') + "; frame-ancestors 'none'"
    assert "connect-src 'self' https://mainnet.base.org;" in header


def test_2000_token_build_is_deterministic_and_a_repair_touches_one_chunk(collection, large_sample,
                                                                          tmp_path: Path) -> None:
    manifest = large_sample.manifest
    first = build_page(collection, manifest, tmp_path / "a", contract=None, **TARGET)
    second = build_page(collection, copy.deepcopy(manifest), tmp_path / "b", contract=None, **TARGET)
    assert read_tree(first.out_dir) == read_tree(second.out_dir) and first.site_digest == second.site_digest
    repaired = copy.deepcopy(manifest)
    repaired["tokens"][1500]["image_cid"] = "bafkreirepairedimage0000000000000000000000000000000000000"
    fixed = build_page(collection, repaired, tmp_path / "a", contract=None, **TARGET)
    before, after = read_tree(second.out_dir), read_tree(fixed.out_dir)
    old_chunks = {data for rel, data in before.items() if rel.startswith("gallery/")}
    new_chunks = [rel for rel, data in after.items() if rel.startswith("gallery/") and data not in old_chunks]
    assert len(new_chunks) == 1, "only the chunk holding token 1501 has new bytes (a host uploads only it)"
    assert not any(rel.startswith("gallery/") for rel in set(before) & set(after)), "…under a new folder name"
    assert page_differences(read_page_config(fixed.index), repaired, None) == []
    [stale] = page_differences(read_page_config(second.index), repaired, None)
    assert (stale["field"], stale["tokens"]) == ("tokens", [1501])


def test_a_crash_while_writing_chunks_leaves_the_old_site_whole(collection, large_sample, tmp_path: Path,
                                                                monkeypatch) -> None:
    old = build_page(collection, large_sample.manifest | {"tokens": large_sample.manifest["tokens"][:5]},
                     tmp_path / "site", contract=None, **TARGET)
    before = read_tree(old.out_dir)
    real_write = sitedir._write_file
    chunks_written: list[Path] = []

    def crash_on_fifth_chunk(path: Path, data: bytes) -> None:
        if "gallery" in path.parts:
            if len(chunks_written) == 4:
                raise OSError("disk full")
            chunks_written.append(path)
        real_write(path, data)

    monkeypatch.setattr(sitedir, "_write_file", crash_on_fifth_chunk)
    with pytest.raises(OSError, match="disk full"):
        build_page(collection, large_sample.manifest, tmp_path / "site", contract=None, **TARGET)
    assert read_tree(old.out_dir) == before
    assert [t[0] for t in read_page_config(old.index)["tokens"]] == [1, 2, 3, 4, 5]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["col", "site"], "no temp folder left behind"


def test_a_missing_chunk_shows_as_absent_tokens_that_audit_reports(collection, large_sample, tmp_path: Path) -> None:
    build = build_page(collection, large_sample.manifest, tmp_path / "site", contract=None, **TARGET)
    config = read_page_config(build.index)
    lost = f"{config['gallery']['path']}1.json"
    lost_ids = [e[0] for e in json.loads((build.out_dir / lost).read_bytes())]
    (build.out_dir / lost).unlink()
    damaged = read_page_config(build.index)
    assert damaged["gallery"]["unreadable"] == [lost]
    assert len(damaged["tokens"]) == 2000 - len(lost_ids)
    [stale] = page_differences(damaged, large_sample.manifest, None)
    assert stale["field"] == "tokens" and stale["tokens"] == lost_ids


def test_a_page_without_a_valid_gallery_section_is_named(tmp_path: Path) -> None:
    index = tmp_path / "index.html"
    index.write_text('<script type="application/json" id="mintprep-config">{"format": 2, "gallery": '
                     '{"path": "../../", "chunks": 1}}</script>')
    with pytest.raises(UserError, match=re.escape(str(index))):
        read_page_config(index)
