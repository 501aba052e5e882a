"""Bidirectional controls and other invisible format characters in collection text: shown, never obeyed.

`\u202egnp.exe` reads as `exe.png`; on the page, the review sheet, the audit report and the terminal it must
show as `[U+202E]gnp.exe`."""

from __future__ import annotations

from pathlib import Path

import pytest

from mintprep.base.visible_text import shown_text
from mintprep.page import build_page, read_page_config
from tests.page.conftest import sample_collection

TRICK = "\u202egnp.exe"
TARGET = dict(chain_id=8453, rpc_url="https://mainnet.base.org", gateway="https://ipfs.io/")


@pytest.mark.parametrize(("text", "shown"), [
    (TRICK, "[U+202E]gnp.exe"),
    ("a\u200bb\u2066c\u2069\ufeff", "a[U+200B]b[U+2066]c[U+2069][U+FEFF]"),
    ("👩\u200d💻 ناز\u200cنین", "👩\u200d💻 ناز\u200cنین"),  # joiners shape scripts and emoji: kept
    ("plain ascii", "plain ascii"),
])
def test_format_characters_are_made_visible(text: str, shown: str):
    assert shown_text(text) == shown


def test_page_shows_names_traits_and_description_neutralised(collection, tmp_path: Path):
    sample = sample_collection(3)
    sample.manifest["name"] = f"Flowers {TRICK}"
    sample.manifest["description"] = f"about {TRICK}"
    sample.manifest["tokens"][0]["name"] = TRICK
    sample.manifest["tokens"][0]["attributes"] = [{"trait_type": f"file {TRICK}", "value": TRICK}]
    build = build_page(collection, sample.manifest, tmp_path / "site", contract=None, **TARGET)
    assert "\u202e" not in build.index.read_text()
    config = read_page_config(build.index)
    assert config["collection"]["name"] == "Flowers [U+202E]gnp.exe"
    assert config["collection"]["description"] == "about [U+202E]gnp.exe"
    assert config["tokens"][0][1] == "[U+202E]gnp.exe"
    assert config["tokens"][0][3] == [["file [U+202E]gnp.exe", "[U+202E]gnp.exe"]]


def test_review_and_audit_escapes_neutralise(capsys):
    from mintprep.commands import audit_report, review_pages

    assert review_pages._e(TRICK) == "[U+202E]gnp.exe" and audit_report._e(TRICK) == "[U+202E]gnp.exe"


def test_terminal_output_neutralises(capsys):
    from mintprep.cli.app import console

    console.print(f"trait {TRICK}")
    assert "trait [U+202E]gnp.exe" in capsys.readouterr().err
