"""Hostile collection files: each is refused before any work, naming its field, never with a traceback.

Every row is one malformed or malicious collection.yaml and the field its error must name. Each row runs
in-process through the CLI (fast), with the pipeline replaced by a tripwire: a file that is accepted would
reach it and fail the row. A few rows also run as a real subprocess, and a hypothesis test fuzzes files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mintprep.cli import app
from tests.conftest import EXAMPLE

BASE = yaml.safe_load(EXAMPLE.read_text())
BASE["size"] = 3
BASE_TEXT = EXAMPLE.read_text().replace("size: 77", "size: 3")
SECRET = "s3cr3t-PASSWORD-9f1e"


def changed(**changes: Any) -> str:
    """The example collection with `a__b` keys set (None deletes), as YAML text."""
    data = json.loads(json.dumps(BASE))
    for key, value in changes.items():
        target = data
        *parents, leaf = key.split("__")
        for parent in parents:
            target = target.setdefault(parent, {})
        if value is None:
            target.pop(leaf, None)
        else:
            target[leaf] = value
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def raw(line_from: str, line_to: str) -> str:
    assert line_from in BASE_TEXT
    return BASE_TEXT.replace(line_from, line_to, 1)


LAUGHS = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
) + "name: *i\n"

# (row id, collection text, a string the error must contain: the field, or the file's problem)
ROWS: list[tuple[str, str, str]] = [
    ("duplicate-mint-price", raw('  max_per_wallet: 5', '  max_per_wallet: 5\n  mint_price: "10"'), "mint_price"),
    ("duplicate-top-key", BASE_TEXT + "size: 5\n", "size"),
    ("duplicate-trait-value", raw("style: {pixel art: 3, woodcut: 1}", "style: {pixel art: 3, pixel art: 1}"),
     "pixel art"),
    ("billion-laughs", BASE_TEXT.replace("name: Sunflower Study\n", "") + LAUGHS, "alias"),
    ("billion-laughs-unknown-key", BASE_TEXT + LAUGHS.replace("name: *i", "x: *i"), "alias"),
    ("many-unknown-keys", BASE_TEXT + "".join(f"y{i}: {i}\n" for i in range(3000)), "y0"),
    ("deep-nesting", BASE_TEXT + "description: " + "[" * 5000 + "]" * 5000 + "\n", "nest"),
    ("huge-int-literal", raw("seed: 1234", "seed: " + "9" * 5000), "seed"),
    ("python-tag", BASE_TEXT + "x: !!python/object/apply:os.system ['true']\n", "YAML"),
    ("size-true", changed(size=True), "size"),
    ("size-string", changed(size="4"), "size"),
    ("size-float", changed(size=4.0), "size"),
    ("size-zero", changed(size=0), "size"),
    ("size-huge", changed(size=10**9), "size"),
    ("seed-string", changed(seed="12"), "seed"),
    ("seed-negative", changed(seed=-1), "seed"),
    ("seed-2-64", changed(seed=2**64), "seed"),
    ("price-underscore", changed(chain__mint_price="1_0"), "mint_price"),
    ("price-padded", changed(chain__mint_price=" 1 "), "mint_price"),
    ("price-1e27", changed(chain__mint_price="1e27"), "mint_price"),
    ("price-1e400", changed(chain__mint_price="1e400"), "mint_price"),
    ("price-nan", changed(chain__mint_price="NaN"), "mint_price"),
    ("price-infinity", changed(chain__mint_price="Infinity"), "mint_price"),
    ("price-negative", changed(chain__mint_price="-1"), "mint_price"),
    ("price-float", changed(chain__mint_price=0.1), "mint_price"),
    ("price-hex", changed(chain__mint_price="0x10"), "mint_price"),
    ("price-sub-wei", changed(chain__mint_price="0.0000000000000000001"), "mint_price"),
    ("price-absurd", changed(chain__mint_price="123456789012"), "mint_price"),
    ("price-unicode-digits", changed(chain__mint_price="１"), "mint_price"),
    ("weight-inf", raw("sunflower: 3,", "sunflower: .inf,"), "flower"),
    ("weight-nan", raw("sunflower: 3,", "sunflower: .nan,"), "flower"),
    ("weight-negative", raw("sunflower: 3,", "sunflower: -3,"), "flower"),
    ("weight-zero", raw("sunflower: 3,", "sunflower: 0,"), "flower"),
    ("weight-string", raw("sunflower: 3,", "sunflower: '3',"), "flower"),
    ("weight-bool", raw("sunflower: 3,", "sunflower: true,"), "flower"),
    ("weight-huge", raw("sunflower: 3,", "sunflower: 1e308, rose: 1e308,"), "flower"),
    ("trait-empty", changed(prompt__traits__palette={}), "palette"),
    ("piece-unknown-value", changed(pieces={1: {"traits": {"flower": "cactus"}}}), "cactus"),
    ("piece-unknown-trait", changed(pieces={1: {"traits": {"colour": "red"}}}), "colour"),
    ("piece-id-zero", changed(pieces={0: {"prompt": "x"}}), "pieces"),
    ("piece-id-beyond-size", changed(pieces={99: {"prompt": "x"}}), "pieces"),
    ("piece-id-word", changed(pieces={"first": {"prompt": "x"}}), "pieces"),
    ("piece-generator-upscale", changed(pieces={1: {"generator": {"upscale": 2}}}), "pieces.1.generator.upscale"),
    ("piece-generator-steps-bool", changed(pieces={1: {"generator": {"steps": True}}}), "steps"),
    ("template-format-spec", changed(prompt__template="a {flower:>50000000}"), "prompt.template"),
    ("template-attribute", changed(prompt__template="a {style.v2}"), "prompt.template"),
    ("template-index", changed(prompt__template="a {flower[0]}"), "prompt.template"),
    ("template-conversion", changed(prompt__template="a {flower!r}"), "prompt.template"),
    ("template-positional", changed(prompt__template="a {} flower"), "prompt.template"),
    ("template-numbered", changed(prompt__template="a {0} flower"), "prompt.template"),
    ("template-unbalanced", changed(prompt__template="a {flower"), "prompt.template"),
    ("template-stray-brace", changed(prompt__template="a flower}"), "prompt.template"),
    ("template-unknown", changed(prompt__template="a {colour} rose"), "colour"),
    ("steps-true", changed(generator__steps=True), "generator.steps"),
    ("steps-string", changed(generator__steps="4"), "generator.steps"),
    ("steps-zero", changed(generator__steps=0), "generator.steps"),
    ("width-not-multiple", changed(generator__width=65), "generator.width"),
    ("guidance-nan", changed(generator__guidance=float("nan")), "generator.guidance"),
    ("guidance-string", changed(generator__guidance="7"), "generator.guidance"),
    ("upscale-bool", changed(generator__upscale=True), "generator.upscale"),
    ("safety-checker-string", changed(generator__safety_checker="yes"), "generator.safety_checker"),
    ("fallback-fp8", changed(generator__fallback=["fp8"]), "generator.fallback"),
    ("scheduler-unknown", changed(generator__scheduler="NoSuchScheduler"), "generator.scheduler"),
    ("scheduler-not-a-scheduler", changed(generator__scheduler="StableDiffusionPipeline"), "generator.scheduler"),
    ("scheduler-dunder", changed(generator__scheduler="__class__"), "generator.scheduler"),
    ("scheduler-config-key", changed(generator__scheduler_config={"no_such_key": 1}), "generator.scheduler_config"),
    ("scheduler-config-value", changed(generator__scheduler="EulerDiscreteScheduler",
                                       generator__scheduler_config={"beta_schedule": "bogus"}),
     "generator.scheduler_config"),
    ("page-out-etc", changed(page__out="/etc"), "page.out"),
    ("page-out-parent", changed(page__out=".."), "page.out"),
    ("page-out-dot", changed(page__out="."), "page.out"),
    ("page-out-state", changed(page__out=".mintprep"), "page.out"),
    ("page-out-inside-state", changed(page__out=".mintprep/site"), "page.out"),
    ("page-out-escapes", changed(page__out="site/../../elsewhere"), "page.out"),
    ("page-out-empty", changed(page__out=""), "page.out"),
    ("page-out-foreign", changed(page__out="notes"), "page.out"),
    ("publish-dir-etc", changed(page__publish={"target": "dir", "dir": "/etc"}), "page.publish.dir"),
    ("gateway-ftp", changed(ipfs__gateway="ftp://ipfs.io"), "ipfs.gateway"),
    ("gateway-javascript", changed(ipfs__gateway="javascript:alert(1)"), "ipfs.gateway"),
    ("gateway-credentials", changed(ipfs__gateway=f"https://me:{SECRET}@gw.example"), "ipfs.gateway"),
    ("gateway-no-host", changed(ipfs__gateway="https://"), "ipfs.gateway"),
    ("api-url-file", changed(ipfs__backend="kubo", ipfs__api_url="file:///etc/passwd"), "ipfs.api_url"),
    ("api-url-scheme-secret", changed(ipfs__backend="kubo", ipfs__api_url=f"gopher://me:{SECRET}@x:5001"),
     "ipfs.api_url"),
    ("rpc-url-ftp", changed(chain__rpc_url="ftp://rpc.example"), "chain.rpc_url"),
    ("rpc-url-secret", changed(chain__rpc_url=f"file://me:{SECRET}@rpc.example"), "chain.rpc_url"),
    ("page-rpc-javascript", changed(page__rpc_url="javascript:alert(1)"), "page.rpc_url"),
    ("page-gateway-credentials", changed(page__gateway=f"https://me:{SECRET}@gw.example"), "page.gateway"),
    ("netlify-api-ftp", changed(page__publish={"target": "netlify", "netlify_site_id": "x",
                                               "netlify_api_url": "ftp://api"}), "netlify_api_url"),
    ("external-url-javascript", changed(metadata={"external_url": "javascript:alert(document.cookie)"}),
     "metadata.external_url"),
    ("external-url-data", changed(metadata={"external_url": "data:text/html,<script>1</script>"}),
     "metadata.external_url"),
    ("background-hash", changed(metadata={"background_color": "#ffffff"}), "metadata.background_color"),
    ("max-per-wallet-bool", changed(chain__max_per_wallet=True), "chain.max_per_wallet"),
    ("royalty-string", changed(chain__royalty_bps="500"), "chain.royalty_bps"),
    ("network-unknown", changed(chain__network="mainnet"), "chain.network"),
    ("contract-short", changed(chain__contract="0x123"), "chain.contract"),
    ("executor-kind", changed(executor={"kind": "slurm"}), "executor.kind"),
    ("executor-workers-bool", changed(executor={"kind": "ray", "num_workers": True}), "executor.num_workers"),
    ("pin-timeout-inf", changed(ipfs__pin_timeout_s=float("inf")), "ipfs.pin_timeout_s"),
    ("name-number", changed(name=123), "name"),
    ("negative-prompt-number", changed(prompt__negative=5), "prompt.negative"),
    ("markup-key", changed(**{"[/x]": 1}), "[/x]"),
    ("markup-value", changed(chain__network="[bold red]mainnet[/]"), "[bold red]mainnet[/]"),
    ("typo-key", changed(szie=3), "szie"),
    ("top-level-list", "- name: x\n", "mapping"),
    ("top-level-scalar", "42\n", "mapping"),
    ("empty-file", "", "mapping"),
    ("tab-indent", BASE_TEXT.replace("  template", "\ttemplate"), "YAML"),
]

PREPARE: dict[str, Callable[[Path], None]] = {
    "page-out-foreign": lambda folder: (folder / "notes").mkdir() or (folder / "notes" / "todo.txt").write_text("x"),
}


def small_png(folder: Path) -> Path:
    from PIL import Image

    path = folder / "piece.png"
    Image.new("RGB", (16, 16), (200, 40, 40)).save(path)
    return path


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


@pytest.fixture
def tripwire(monkeypatch):
    """A file that passes validation reaches the pipeline: make that a loud failure, not a run."""
    import mintprep.commands.run.driver

    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("this collection was accepted: the pipeline would have started")

    monkeypatch.setattr(mintprep.commands.run.driver, "run_collection", refuse)


def assert_refused(result, folder: Path, before: dict, field: str, *, as_json: bool) -> None:
    out = result.stdout
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    # Click keeps the SystemExit of a non-zero exit as the result's exception; anything else is a crash it caught.
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert SECRET not in result.output
    if as_json:
        answer = json.loads(out)  # exactly one JSON object, nothing else on stdout
        assert answer["ok"] is False and answer["exit_code"] == 2 and answer["error"]["kind"] == "config"
        assert field in answer["error"]["message"], answer
    else:
        assert field in result.stderr, result.stderr
    assert snapshot(folder) == before, "a refused collection must leave its folder byte-identical"


@pytest.mark.parametrize(("text", "field"), [(text, field) for _, text, field in ROWS], ids=[r[0] for r in ROWS])
def test_hostile_collection_is_refused_naming_its_field(tmp_path: Path, tripwire, text: str, field: str, request):
    folder = tmp_path / "col"
    folder.mkdir()
    PREPARE.get(request.node.callspec.id, lambda _: None)(folder)
    path = folder / "collection.yaml"
    path.write_text(text, encoding="utf-8")
    before = snapshot(folder)
    runner = CliRunner()
    assert_refused(runner.invoke(app, ["run", str(path), "--json"]), folder, before, field, as_json=True)
    assert_refused(runner.invoke(app, ["status", str(path)]), folder, before, field, as_json=False)


def test_table_has_at_least_sixty_rows():
    assert len(ROWS) >= 60 and len({r[0] for r in ROWS}) == len(ROWS)


@pytest.mark.parametrize("row", ["billion-laughs", "duplicate-mint-price", "markup-key", "gateway-credentials"])
def test_hostile_rows_in_a_real_process(tmp_path: Path, row: str):
    """The same refusals from `python -m mintprep`: real stdout/stderr, real exit status, bounded memory."""
    text, field = next((t, f) for name, t, f in ROWS if name == row)
    path = tmp_path / "collection.yaml"
    path.write_text(text, encoding="utf-8")
    image = small_png(tmp_path)
    before = snapshot(tmp_path)
    done = subprocess.run([sys.executable, "-m", "mintprep", "validate", "--config", str(path), "--json",
                           str(image)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr and SECRET not in done.stdout + done.stderr
    assert field in json.loads(done.stdout)["error"]["message"]
    assert field in done.stderr
    assert snapshot(tmp_path) == before


# Values and keys a careless or hostile editor might write; hypothesis mixes them into the example file.
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.sampled_from(["{x}", "{flower:>9}", "../..", "/etc", "1e400", "[/x]", "javascript:x",
                                           "http://u:p@h", "NaN", "0x10", "", " 1 "]),
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                      max_leaves=6)
PATHS = st.sampled_from(["name", "size", "seed", "description", "prompt__template", "prompt__traits__flower",
                         "prompt__traits__flower__tulip", "generator__steps", "generator__width", "generator__kind",
                         "generator__scheduler", "generator__scheduler_config", "ipfs__backend", "ipfs__gateway",
                         "chain__mint_price", "chain__rpc_url", "page__out", "page__publish", "metadata",
                         "pieces", "executor", "guards", "x"])
YAML_TRICKS = st.sampled_from(["", "\nsize: 3\n", "\n&a x: *a\n", "\n? [a, b]\n: 1\n", "\nz: !!binary aGk=\n",
                               "\nz: !!set {a, b}\n", "\nz: 2001-12-14\n", "\n%TAG ! tag:x,2000:\n", "\n...\n",
                               "\n---\nsize: 4\n", "\nz: *undefined\n"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.dictionaries(PATHS, VALUES, min_size=1, max_size=3), trick=YAML_TRICKS)
def test_fuzzed_collection_files_never_crash(tmp_path_factory, edits: dict, trick: str):
    """Random keys, types and YAML features: exit 0/1/2, never a traceback, nothing written on exit 2.

    `validate --config` loads the collection and checks one image: it exercises every config check
    without generating anything.
    """
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "collection.yaml"
    try:
        text = changed(**edits) + trick
    except (ValueError, TypeError):  # a value JSON cannot carry (an int past JSON's range is fine; NaN is not)
        text = yaml.safe_dump({**BASE, **{k.split("__")[0]: v for k, v in edits.items()}}) + trick
    path.write_text(text, encoding="utf-8")
    image = small_png(folder)
    before = snapshot(folder)
    result = CliRunner().invoke(app, ["validate", "--config", str(path), "--json", str(image)])
    assert result.exit_code in (0, 1, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    answer = json.loads(result.stdout)
    assert isinstance(answer, dict)
    if result.exit_code == 2:
        assert answer["ok"] is False and answer["error"]["message"]
        assert snapshot(folder) == before
