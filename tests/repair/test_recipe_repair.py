"""The creator's recipe: a collection made elsewhere (tests.audit.foreign, a HashLips-style folder with one black
piece) whose creator logged each piece's seed and prompt. `audit --repair` remakes the broken piece from its own
logged recipe, byte-identical to generating that request directly with the real tiny model on CPU, and says so;
without a log it says a new seed is used; a bad log is exit 2 naming the file, the line and the field, before any
work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mintprep.cli  # noqa: F401  (registers every command)
from mintprep.base.hashing import sha256_hex
from mintprep.cli.app import app
from mintprep.collection.config import load_collection
from mintprep.generate import GenerationRequest, load_generator
from mintprep.ipfs.reader import read_file
from tests.support.foreign import make_foreign_collection
from tests.importing.test_import_folder import write_token
from tests.conftest import write_collection

SIZE, BROKEN = 3, 2
LOG = ("token_id,seed,prompt,negative_prompt,guidance_scale,num_inference_steps,model,timestamp\n"
       "1,11,\"a tulip, woodcut\",,7.5,3,default,2024-01-01\n"
       "2,18446744073709551000,\"a lotus, in pixel art style\",blurry,5.5,4,default,2024-01-02\n")


def cli(*args: str) -> tuple[int, dict | str]:
    result = CliRunner().invoke(app, list(args))
    if "--json" in args:
        return result.exit_code, json.loads(result.stdout)
    return result.exit_code, result.output


@pytest.fixture
def imported(tmp_path: Path) -> Path:
    """Three tokens imported from a HashLips-style folder; token 2's image is black."""
    foreign = make_foreign_collection(tmp_path / "node", SIZE, {BROKEN: "black"})
    for token_id, document in foreign.documents.items():
        write_token(tmp_path / "export", token_id, dict(document, image=f"{token_id}.png"),
                    read_file(foreign.image_cids[token_id], foreign.store.get))
    path = write_collection(tmp_path / "col", size=SIZE, generator__steps=3, generator__upscale=1)
    code, report = cli("import", str(path), "--from", str(tmp_path / "export"), "--json")
    assert code == 0, report
    return path


@pytest.mark.slow
def test_a_broken_imported_piece_is_remade_from_its_logged_recipe(imported: Path):
    (imported.parent / "generation-log.csv").write_text(LOG)
    text = imported.read_text().replace("generator:\n", "generator:\n  recipe_log: generation-log.csv\n", 1)
    imported.write_text(text)
    code, planned = cli("audit", str(imported), "--repair", "--dry-run")
    assert code == 1 and "from the creator's logged recipe, seed 18446744073709551000" in planned

    code, outcome = cli("audit", str(imported), "--repair", "--json")
    assert code == 0, outcome
    [token] = outcome["plan"]["tokens"]
    assert (token["token_id"], token["recipe"], token["seed"]) == (BROKEN, "logged", 18446744073709551000)
    made = outcome["plan"]["replacements"][str(BROKEN)]

    spec = load_collection(imported).spec
    settings = spec.generator.model_copy(update={"steps": 4, "guidance": 5.5})
    direct = load_generator(settings).generate(GenerationRequest(
        token_id=BROKEN, prompt="a lotus, in pixel art style", negative_prompt="blurry", collection_seed=spec.seed,
        settings=settings, guards=spec.guards, seed=18446744073709551000))
    assert made["png_sha256"] == sha256_hex(direct.png)
    assert made["provenance"]["seed"] == 18446744073709551000
    assert made["provenance"]["sampling"]["steps"] == 4 and made["provenance"]["sampling"]["guidance"] == 5.5


@pytest.mark.slow
def test_without_a_recipe_the_repair_says_a_new_seed_is_used(imported: Path):
    code, planned = cli("audit", str(imported), "--repair", "--dry-run")
    assert code == 1 and "a new seed: no recipe logged for this token" in planned
    text = imported.read_text() + f"pieces:\n  {BROKEN}: {{seed: 4242}}\n"
    imported.write_text(text)
    code, outcome = cli("audit", str(imported), "--repair", "--json")
    assert code == 0, outcome
    [token] = outcome["plan"]["tokens"]
    assert (token["recipe"], token["seed"]) == ("yaml", 4242)
    assert outcome["plan"]["replacements"][str(BROKEN)]["provenance"]["seed"] == 4242


@pytest.mark.parametrize(("log", "name", "expected"), [
    ("token_id,seed\n1,12\n2,-5\n", "gen.csv", "gen.csv line 3: seed: Input should be greater than or equal to 0"),
    ("token_id,steps\n1,0\n", "gen.csv", "gen.csv line 2: steps: Input should be greater than or equal to 1"),
    ("id,width\n1,65\n", "gen.csv", "gen.csv line 2: width: Input should be a multiple of 8"),
    ("seed,prompt\n1,a\n", "gen.csv", "gen.csv line 1: token_id: the header row names no token_id"),
    ("token_id,prompt\n1,a\n1,b\n", "gen.csv", "gen.csv line 3: token_id: token 1 is logged twice (lines 2 and 3)"),
    ("token_id,prompt\n9,a\n", "gen.csv", "gen.csv line 2: token_id: token 9, but the collection has 3 pieces"),
    ("token_id,prompt\n1,a, b\n", "gen.csv", "gen.csv line 2: prompt: 3 cells under a header of 2"),
    ('{"token_id": 1, "seed": 5}\n\n{"token_id": 2, "seed": "x"}\n', "gen.jsonl",
     "gen.jsonl line 3: seed: Input should be a valid integer"),
    ('{"token_id": 1}\n[1]\n', "gen.jsonl", "gen.jsonl line 2: a JSON list, not an object"),
    ('{"token_id": 1, "model": "runwayml/sd-1-5"}\n', "gen.jsonl",
     "gen.jsonl line 1: model: 'runwayml/sd-1-5' made this piece, but generator.model is 'default'"),
    ('{"token_id": 1, "scheduler": "EulerDiscreteScheduler"}\n', "gen.ndjson",
     "gen.ndjson line 1: scheduler: 'EulerDiscreteScheduler' made this piece, but generator.scheduler is None"),
    ("token_id\n1\n", "gen.txt", "a generation log is a .csv or .jsonl (.ndjson) file"),
])
def test_a_bad_generation_log_is_exit_2_naming_file_line_and_field(tmp_path: Path, log: str, name: str,
                                                                   expected: str):
    path = write_collection(tmp_path / "col", size=SIZE, generator__recipe_log=name)
    (path.parent / name).write_text(log)
    code, answer = cli("run", str(path), "--json")
    assert code == 2 and answer["error"]["field"] == "generator.recipe_log", answer
    assert expected in answer["error"]["message"], answer["error"]["message"]
    assert not (path.parent / ".mintprep").exists()


def test_a_log_outside_the_collection_folder_or_missing_is_refused(tmp_path: Path):
    (tmp_path / "outside.csv").write_text("token_id,seed\n1,1\n")
    for named in ("../outside.csv", "missing.csv"):
        path = write_collection(tmp_path / "col", size=SIZE, generator__recipe_log=named)
        code, answer = cli("run", str(path), "--json")
        assert code == 2 and answer["error"]["field"] == "generator.recipe_log" and named.lstrip("./") in \
            answer["error"]["message"]


def test_a_piece_seed_and_size_are_accepted_and_unknown_keys_still_refused(tmp_path: Path):
    ok = write_collection(tmp_path / "ok", size=SIZE, pieces={2: {"seed": 18446744073709551615,
                                                                 "generator": {"width": 96, "height": 48}}})
    assert load_collection(ok).spec.generator_for(2).width == 96
    bad = write_collection(tmp_path / "bad", size=SIZE, pieces={2: {"seed": 2**64}})
    code, answer = cli("schema", "--json")
    assert code == 0 and "seed" in json.dumps(answer)
    code, answer = cli("run", str(bad), "--json")
    assert code == 2 and answer["error"]["field"] == "pieces.2.seed"


@pytest.mark.slow
def test_run_says_which_recipe_gave_each_generated_piece_its_seed(tmp_path: Path):
    made = []
    for name in ("json", "human"):
        path = write_collection(tmp_path / name, size=SIZE, generator__steps=2, generator__upscale=1,
                                generator__recipe_log="gen.jsonl", pieces={3: {"seed": 4242}})
        (path.parent / "gen.jsonl").write_text('{"token_id": 1, "seed": 77, "prompt": "a tulip, woodcut"}\n')
        made.append(path)
    code, report = cli("run", str(made[0]), "--json")
    assert code == 0, report
    assert report["recipes"] == {"logged": [1], "new-seed": [2], "yaml": [3]}
    code, human = cli("run", str(made[1]))
    assert code == 0 and "seeds: from the creator's logged recipe: token(s) 1; a new seed: no recipe logged for " \
        "this token: token(s) 2; from pieces.<id>.seed: token(s) 3" in " ".join(human.split())
    assert "seeds:" not in cli("run", str(made[1]))[1]  # nothing left to generate
