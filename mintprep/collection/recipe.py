"""The creator's generation log: each piece's seed, prompt and sampling settings as their own script logged them,
so a broken piece is made again from its own recipe rather than from a seed mintprep picks.

`generator.recipe_log` names the file (relative to collection.yaml's folder): a CSV with a header row (`.csv`) or
one JSON object per line (`.jsonl`, `.ndjson`). Columns, by the names diffusers' own call arguments use too:

    token_id (or id, token, edition) · seed · prompt · negative (or negative_prompt) ·
    steps (or num_inference_steps) · guidance (or guidance_scale) · width · height · scheduler · model

Only token_id is required; an empty cell is "not logged", other columns (a timestamp, a file name) are ignored.
The file is a stranger's: read through base.untrusted_files (a regular file inside the collection's folder, size
capped before reading), and the first bad entry is exit 2 naming the file, its line and the field. A model or
scheduler the log names must be the one `generator:` loads (one loaded pipeline makes every piece), so a piece
is never "regenerated from its recipe" on another model. `pieces.<id>` in collection.yaml wins over the log,
field by field (mintprep.collection.traits.plan_piece merges them).
"""

from __future__ import annotations

import csv
import io
from copy import copy
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field, ValidationError, create_model

from mintprep.base import ConfigError, read_regular_file, TooDeep, loads
from mintprep.generate import GeneratorSettings

MAX_LOG_BYTES = 64 * 1024 * 1024  # 100,000 pieces with long prompts fit in well under this
FIELD = "generator.recipe_log"
SEED_BOUND = 2**64  # torch.Generator.manual_seed takes any unsigned 64-bit seed
# The generator settings a log may give a piece; each keeps GeneratorSettings' own bounds.
SAMPLING_FIELDS = ("steps", "guidance", "width", "height")
ALIASES = {"id": "token_id", "token": "token_id", "edition": "token_id", "negative_prompt": "negative",
           "num_inference_steps": "steps", "guidance_scale": "guidance"}
SUFFIXES = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}

def _optional(name: str) -> tuple[Any, Any]:
    """GeneratorSettings' field `name` (its type and bounds), not required."""
    info = copy(GeneratorSettings.model_fields[name])
    info.default = None
    return info.annotation | None, info


_Sampling = create_model("_Sampling", **{name: _optional(name) for name in SAMPLING_FIELDS})  # type: ignore[call-overload]


class LoggedRecipe(_Sampling):  # type: ignore[misc, valid-type]
    """One line of the log. Lax (a CSV cell is text: "42" is the number 42), unknown columns ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True, allow_inf_nan=False)

    token_id: int = Field(ge=0)
    seed: int | None = Field(None, ge=0, lt=SEED_BOUND)
    prompt: str | None = None
    negative: str | None = None
    scheduler: str | None = None
    model: str | None = None
    line: int = 0  # where it was read, for messages

    @property
    def sampling(self) -> tuple[tuple[str, Any], ...]:
        """The logged generator settings, as (name, value) pairs."""
        return tuple((name, getattr(self, name)) for name in SAMPLING_FIELDS if getattr(self, name) is not None)

    def where(self, log: str) -> str:
        return f"{log} line {self.line}"


def read_recipe_log(base_dir: Path, settings: GeneratorSettings, size: int) -> dict[int, LoggedRecipe]:
    """token id -> its logged recipe, from the file `settings.recipe_log` names ({} when none is named);
    ConfigError (exit 2) naming the file, the line and the field of the first bad entry."""
    if settings.recipe_log is None:
        return {}
    path = base_dir / settings.recipe_log
    kind = SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise ConfigError(f"{FIELD}: {path}: a generation log is a .csv or .jsonl (.ndjson) file", field=FIELD,
                          path=str(path))
    try:
        data = read_regular_file(path, MAX_LOG_BYTES, within=base_dir, what="generation log", error=ConfigError)
        text = data.decode("utf-8-sig")
    except ConfigError as exc:
        raise ConfigError(f"{FIELD}: {exc}", field=FIELD, path=str(path)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{FIELD}: {path}: not UTF-8 text (byte {exc.start})", field=FIELD, path=str(path)) from None
    rows = _csv_rows(text, path) if kind == "csv" else _jsonl_rows(text, path)
    recipes: dict[int, LoggedRecipe] = {}
    for line, row in rows:
        recipe = _recipe(row, line, path)
        _check_recipe(recipe, settings, size, path)
        if recipe.token_id in recipes:
            raise _problem(path, line, "token_id", f"token {recipe.token_id} is logged twice (lines "
                                                   f"{recipes[recipe.token_id].line} and {line})")
        recipes[recipe.token_id] = recipe
    return recipes


def _csv_rows(text: str, path: Path) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [_column(name) for name in next(reader, [])]
        if "token_id" not in header:
            raise _problem(path, 1, "token_id", "the header row names no token_id (or id, token, edition) column")
        rows = []
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) > len(header):
                raise _problem(path, reader.line_num, header[-1], f"{len(cells)} cells under a header of "
                               f"{len(header)} (a prompt with a comma must be quoted)")
            rows.append((reader.line_num, {name: cell for name, cell in zip(header, cells) if cell.strip() != ""}))
    except csv.Error as exc:
        raise _problem(path, reader.line_num, None, f"not CSV ({exc})") from None
    return rows


def _jsonl_rows(text: str, path: Path) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for line, content in enumerate(text.splitlines(), start=1):
        if not content.strip():
            continue
        try:
            row = loads(content)
        except (ValueError, TooDeep) as exc:
            raise _problem(path, line, None, f"not a JSON object ({exc})") from None
        if not isinstance(row, dict):
            raise _problem(path, line, None, f"a JSON {type(row).__name__}, not an object")
        rows.append((line, {_column(str(key)): value for key, value in row.items() if value is not None}))
    return rows


def _column(name: str) -> str:
    name = name.strip().lower()
    return ALIASES.get(name, name)


def _recipe(row: dict[str, Any], line: int, path: Path) -> LoggedRecipe:
    try:
        return LoggedRecipe.model_validate({**row, "line": line})
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"]) or None
        shown = repr(error.get("input"))[:80]
        raise _problem(path, line, field, f"{str(error['msg']).removeprefix('Value error, ')}, got {shown}") from None


def _check_recipe(recipe: LoggedRecipe, settings: GeneratorSettings, size: int, path: Path) -> None:
    if recipe.token_id > size:
        raise _problem(path, recipe.line, "token_id", f"token {recipe.token_id}, but the collection has {size} pieces")
    loaded = {"model": settings.model or ("default" if settings.kind == "tiny" else None),
              "scheduler": settings.scheduler}
    for field, value in (("model", recipe.model), ("scheduler", recipe.scheduler)):
        if value is not None and value != loaded[field]:
            raise _problem(path, recipe.line, field, f"{value!r} made this piece, but generator.{field} is "
                           f"{loaded[field]!r}: a piece is remade on the {field} that made it (set generator.{field}"
                           f" to {value!r})")


def _problem(path: Path, line: int, field: str | None, message: str) -> ConfigError:
    named = f" {field}:" if field else ""
    return ConfigError(f"{FIELD}: {path} line {line}:{named} {message}", field=FIELD, path=str(path))
