"""collection.yaml → a validated CollectionSpec, or a ConfigError naming the YAML path of every problem."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from mintprep.collection.chain_settings import ChainSettings
from mintprep.base import STATE_DIR_NAME, ConfigError, StateDir, StrictModel, TemplateError
from mintprep.executors import ExecutorSettings
from mintprep.generate import GeneratorSettings
from mintprep.ipfs import IpfsSettings
from mintprep.collection.own_folders import check_own_folders
from mintprep.collection.page_settings import PageSettings
from mintprep.collection.template import template_names
from mintprep.net import PublicUrl
from mintprep.guards import GuardSettings
from mintprep.collection.yaml_loader import YamlRefused, load_document

class PromptSpec(StrictModel):
    template: str = Field(description="prompt with {trait} placeholders, e.g. 'a {flower} in {style} style'")
    negative: str = ""
    traits: dict[str, dict[str, float]] = Field(
        default_factory=dict, description="trait name -> {value: weight}; weights need not sum to 1"
    )

    @field_validator("template")
    @classmethod
    def _plain_placeholders(cls, template: str) -> str:
        try:
            template_names(template)
        except TemplateError as exc:  # pydantic reports a ValueError under the field's YAML path
            raise ValueError(str(exc)) from None
        return template

    @field_validator("traits")
    @classmethod
    def _positive_weights(cls, traits: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        for trait, values in traits.items():
            if not values:
                raise ValueError(f"trait {trait!r} has no values")
            for value, weight in values.items():
                if not weight > 0:
                    raise ValueError(f"trait {trait!r} value {value!r}: weight must be > 0, got {weight}")
            if not math.isfinite(sum(values.values())):
                raise ValueError(f"trait {trait!r}: the weights add up past the largest number; use smaller ones")
        return traits

    @model_validator(mode="after")
    def _placeholders_are_traits(self) -> "PromptSpec":
        missing = sorted(set(template_names(self.template)) - set(self.traits))
        if missing:
            raise ValueError(f"template uses {', '.join(missing)} but prompt.traits does not define them")
        return self


# Generator settings a single piece may change: sampling only, so one loaded model serves every piece.
PIECE_GENERATOR_FIELDS = ("steps", "guidance", "width", "height", "precision", "fallback", "max_attempts")


class PieceOverride(StrictModel):
    """Per-token changes: fix a trait, replace the prompt outright, give the seed, or sample this piece differently."""

    traits: dict[str, str] = Field(default_factory=dict)
    prompt: str | None = None
    negative: str | None = None
    seed: int | None = Field(None, ge=0, lt=2**64, description="the seed of this piece's first attempt (the "
                             "creator's own, e.g. from their generation log); default: derived from `seed`")
    generator: dict[str, Any] = Field(default_factory=dict, description=f"any of {', '.join(PIECE_GENERATOR_FIELDS)}")


class MetadataSettings(StrictModel):
    """Optional OpenSea fields; `{id}` in external_url is replaced by the token id."""

    external_url: PublicUrl | None = Field(None, description="http(s) page of each token; {id} is its id")
    background_color: str | None = Field(None, pattern=r"^[0-9a-fA-F]{6}$", description="six hex digits, no #")

    def token_extras(self, token_id: int) -> dict[str, str]:
        extras = {}
        if self.external_url:
            extras["external_url"] = self.external_url.replace("{id}", str(token_id))
        if self.background_color:
            extras["background_color"] = self.background_color
        return extras


class CollectionSpec(StrictModel):
    name: str = Field(min_length=1, max_length=200)
    symbol: str = Field(min_length=1, max_length=16)
    description: str = ""
    size: int = Field(ge=1, le=100_000, description="number of pieces = max supply; token ids 1..size")
    seed: int = Field(ge=0, lt=2**63, description="collection seed; piece and retry seeds derive from it")
    prompt: PromptSpec
    generator: GeneratorSettings = GeneratorSettings()
    guards: GuardSettings = GuardSettings()
    ipfs: IpfsSettings = IpfsSettings()
    chain: ChainSettings = ChainSettings()
    page: PageSettings = PageSettings()
    metadata: MetadataSettings = MetadataSettings()
    executor: ExecutorSettings = ExecutorSettings()
    pieces: dict[int, PieceOverride] = Field(default_factory=dict, description="per-token overrides, by token id")

    @model_validator(mode="after")
    def _overrides_fit(self) -> "CollectionSpec":
        for token_id, override in self.pieces.items():
            if not 1 <= token_id <= self.size:
                raise ValueError(f"pieces.{token_id}: token ids run from 1 to size ({self.size})")
            for trait, value in override.traits.items():
                if trait not in self.prompt.traits:
                    raise ValueError(f"pieces.{token_id}.traits.{trait}: not a trait in prompt.traits")
                if value not in self.prompt.traits[trait]:
                    raise ValueError(f"pieces.{token_id}.traits.{trait}: {value!r} is not one of its values in "
                                     f"prompt.traits ({', '.join(self.prompt.traits[trait])})")
            for key in override.generator:
                if key not in PIECE_GENERATOR_FIELDS:
                    raise ValueError(f"pieces.{token_id}.generator.{key}: a piece may only change "
                                     f"{', '.join(PIECE_GENERATOR_FIELDS)}")
            try:
                self.generator_for(token_id)
            except ValidationError as exc:
                raise ValueError(f"pieces.{token_id}.generator: " + "; ".join(describe_errors(exc))) from None
        return self

    def generator_for(self, token_id: int, logged: Mapping[str, Any] | None = None) -> GeneratorSettings:
        """The piece's settings: `generator:`, then what its generation log gave (`logged`), then `pieces.<id>`."""
        override = self.pieces.get(token_id)
        changes = {**(logged or {}), **(override.generator if override else {})}
        if not changes:
            return self.generator
        return GeneratorSettings.model_validate({**self.generator.model_dump(), **changes})


MAX_FILE_BYTES = 4 * 1024 * 1024  # ten thousand per-piece overrides fit in well under this
MAX_PROBLEMS_SHOWN = 10


@dataclass(frozen=True)
class Collection:
    """A loaded collection file: where it is and what it says."""

    path: Path
    spec: CollectionSpec

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def state_dir(self) -> Path:
        return self.base_dir / STATE_DIR_NAME

    @property
    def state(self) -> StateDir:
        """Every path under the state folder."""
        return StateDir(self.state_dir)

    @property
    def page_dir(self) -> Path:
        return (self.base_dir / self.spec.page.out).resolve()


def load_collection(path: Path | str) -> Collection:
    return read_collection(path)[0]


def read_collection(path: Path | str) -> tuple[Collection, bytes]:
    """`load_collection`, and the bytes it validated (what `status` keeps its inputs by)."""
    path = Path(path)
    try:
        if not path.is_file():
            raise ConfigError(f"{path}: no such file" if not path.exists() else f"{path}: not a regular file",
                              path=str(path))
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ConfigError(f"{path}: {path.stat().st_size} bytes; a collection file is at most {MAX_FILE_BYTES}",
                              path=str(path))
        source = path.read_bytes()
        text = source.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read ({exc})", path=str(path)) from None
    col = Collection(path=path.resolve(), spec=parse_collection(text, source=str(path)))
    check_folders(col)
    return col, source


def parse_collection(text: str, source: str = "collection.yaml") -> CollectionSpec:
    try:
        data = load_document(text)
    except YamlRefused as exc:
        raise ConfigError(f"{source}: not accepted as YAML: {exc}", path=source) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{source}:{where}: not valid YAML: {problem}", path=source) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of settings at the top level, got {type(data).__name__}",
                          path=source)
    try:
        return CollectionSpec.model_validate(data)
    except ValidationError as exc:
        problems = describe_errors(exc)
        shown = problems[:MAX_PROBLEMS_SHOWN] + ([f"and {len(problems) - MAX_PROBLEMS_SHOWN} more"]
                                                 if len(problems) > MAX_PROBLEMS_SHOWN else [])
        raise ConfigError(f"{source}: " + "; ".join(shown), path=source,
                          field=problems[0].partition(": ")[0]) from None


def replaced_folders(col: Collection) -> dict[str, Path]:
    """The folders mintprep replaces whole, by the setting that names them."""
    folders = {"page.out": col.page_dir}
    if col.spec.page.publish.dir:
        folders["page.publish.dir"] = (col.base_dir / col.spec.page.publish.dir).resolve()
    return folders


def check_folders(col: Collection) -> None:
    check_own_folders(col.path, replaced_folders(col))


def describe_errors(exc: ValidationError) -> list[str]:
    """One line per problem: `generator.steps: must be ≥ 1, got 0`."""
    lines = []
    for error in exc.errors():
        path = ".".join(str(part) for part in error["loc"])
        # A top-level validator's message starts with the field it is about (`pieces.3.traits.flower: ...`).
        lines.append(f"{path}: {_describe(error)}" if path else _describe(error))
    return lines


def _describe(error: dict[str, Any]) -> str:
    kind, ctx, got = error["type"], error.get("ctx") or {}, error.get("input")
    shown = json.dumps(got, default=str) if not isinstance(got, (dict, list)) else f"a {type(got).__name__}"
    shown = shown if len(shown) <= 80 else shown[:80] + "…"
    bounds = {"greater_than_equal": "≥ {ge}", "greater_than": "> {gt}", "less_than_equal": "≤ {le}",
              "less_than": "< {lt}", "multiple_of": "a multiple of {multiple_of}"}
    if kind in bounds:
        return f"must be {bounds[kind].format(**ctx)}, got {shown}"
    if kind == "extra_forbidden":
        return "unknown key (check the spelling; `mintprep schema` lists the keys)"
    if kind == "missing":
        return "required but missing"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}, got {shown}"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{message}, got {shown}" if kind.endswith(("_type", "_parsing")) else message


def collection_schema() -> dict[str, Any]:
    """JSON Schema of collection.yaml, for editors (yaml-language-server) and `mintprep schema`."""
    schema = CollectionSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "mintprep collection.yaml"
    return schema
