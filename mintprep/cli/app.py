"""The typer app and what every command shares: one error answer per failure, and stdout kept for --json.

Every failure, whatever raised it (a MintprepError, a usage error click found, a full disk, a bug),
ends here as one line on stderr and, under `--json`, one JSON object on stdout: never a traceback.
Messages are printed literally: a key named `[/x]` or a path with `[draft]` in it is not markup.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import json
import logging
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

from mintprep.cli.lean_typer import help_renderer, plain_values
from mintprep.base import DISK_FULL_ERRNOS, DiskFull, MintprepError, ScrubbingStream, UserError, scrub

# Humans read stderr; stdout carries only what a script asked for (--json) or the command's result. Everything
# the console prints (tracebacks under MINTPREP_DEBUG too) passes through scrub: no secret reaches the terminal.
# soft_wrap: a long path or message stays one line (the terminal wraps it; a log file or a pipe gets it whole).
console = Console(file=ScrubbingStream(lambda: sys.stderr), soft_wrap=True)  # type: ignore[arg-type]
# Library warnings that reach no configured handler are printed by logging's last resort: through scrub too.
logging.lastResort = logging.StreamHandler(ScrubbingStream(lambda: sys.stderr))  # type: ignore[arg-type]
logging.lastResort.setLevel(logging.WARNING)

# Where print_json writes: stdout, or under --json the real stdout saved before fd 1 was pointed at stderr.
_answer = {"stream": None}


def debug_enabled() -> bool:
    """MINTPREP_DEBUG=1 or true shows tracebacks; 0, false or anything else does not."""
    return os.environ.get("MINTPREP_DEBUG", "").strip().lower() in ("1", "true")


def _is_json(args: list[str]) -> bool:
    return "--json" in args[: args.index("--")] if "--" in args else "--json" in args


def describe_failure(exc: BaseException) -> tuple[str, int, str]:
    """(kind, exit code, message) for any exception that ends a command."""
    if isinstance(exc, MintprepError):
        return exc.kind, exc.exit_code, str(exc)
    if isinstance(exc, typer.TyperException):  # click's usage errors (typer vendors click)
        ctx = getattr(exc, "ctx", None)
        hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        return "usage", exc.exit_code, (exc.format_message() or "a command is needed") + hint
    if isinstance(exc, (typer.Abort, KeyboardInterrupt)):
        return "interrupted", 130, "interrupted; rerunning the command resumes where it stopped"
    if isinstance(exc, sqlite3.OperationalError) and "disk is full" in str(exc):
        return "disk-full", 1, "disk full at the ledger (state.db); free some space and run the command again"
    if isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS:
        return "disk-full", 1, str(DiskFull(exc.filename or "an unnamed file", None))
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return "os", 1, f"{where}{exc.strerror or exc}"
    if isinstance(exc, MemoryError):
        return "memory", 1, "out of memory"
    return "internal", 1, (f"internal error (a bug in mintprep, please report it): {type(exc).__name__}: {exc}"
                           "; set MINTPREP_DEBUG=1 for the traceback")


def report_failure(exc: BaseException, *, as_json: bool) -> int:
    kind, code, message = describe_failure(exc)
    console.print(Text.assemble(("error: ", "bold red"), message), highlight=False, soft_wrap=True)
    if as_json:
        error: dict[str, Any] = {"kind": kind, "message": message}
        for attribute in ("field", "path"):
            if getattr(exc, attribute, None):
                error[attribute] = getattr(exc, attribute)
        print_json({"ok": False, "exit_code": code, "error": error})
    return code


@contextlib.contextmanager
def _stdout_for_answers_only(as_json: bool) -> Iterator[None]:
    """Under --json, everything but print_json goes to stderr, down to the file descriptor: a library (Ray's
    log monitor, a C extension) that prints on stdout must not break the one JSON object a script parses."""
    try:
        fd = sys.stdout.fileno()
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):  # an in-memory stdout (CliRunner): Python-level swap only
        fd = None
    if not as_json:
        yield
        return
    saved_stdout, saved_fd = sys.stdout, os.dup(fd) if fd is not None else None
    _answer["stream"] = os.fdopen(saved_fd, "w", closefd=False) if saved_fd is not None else saved_stdout
    try:
        if fd is not None:
            os.dup2(sys.stderr.fileno(), fd)
        sys.stdout = sys.stderr
        yield
    finally:
        sys.stdout.flush()
        sys.stdout = saved_stdout
        if saved_fd is not None:
            _answer["stream"].flush()
            os.dup2(saved_fd, fd)
            os.close(saved_fd)
        _answer["stream"] = None


# `mintprep --help` reads in the order a user works: each panel, and each panel's commands, in this order. Each
# command is the cli module that defines it (imported when the command runs: `status` pays for no other command's
# imports) and the first paragraph of its help, which `mintprep --help` lists without importing any command
# (tests/cli/test_help_panels.py checks each against the command's own help).
HELP_PANELS: dict[str, dict[str, tuple[str, str]]] = {
    "Make a collection": {
        "run": ("run_cmd", "Run every stage in order; exit 0 when every piece is pinned, 1 when some failed, 2 on bad "
                "input."),
        "status": ("run_cmd", "What is done, per stage and per piece."),
        "review": ("review_cmd", "A self-contained HTML sheet (OUT, and its pages in OUT-pages/): every token (image, "
                   "traits, rarity rank,\nguard metrics, pin state), every rejected attempt, near-duplicate pairs side "
                   "by side, the trait table, a search\nby id and trait. Reads the ledger only."),
        "validate": ("validate_cmd", "Black, white, flat, border-only, dead tiles and noise checks (posterization is "
                     "reported, never rejected).\nExit 0 if all pass, 1 if any is rejected, 2 if a file cannot be "
                     "read as an image (each file still gets its\nown verdict); each line names the metric that "
                     "decided."),
    },
    "Adopt and repair": {
        "import": ("import_cmd", "Adopt a collection made elsewhere: verify and pin its images and metadata, record "
                   "them as imported pieces.\nExit 0 when every token was imported, 1 when some were skipped (each "
                   "named), 2 on bad input."),
        "audit": ("audit_cmd", "Verify everything already pinned and published; with --repair, fix it. Exit 0 clean, "
                  "1 problems, 2 bad input."),
        "export": ("export_cmd", "Write the collection as a HashLips-style folder: images/<id>.png, json/<id>.json, "
                   "json/_metadata.json."),
        "provenance": ("chain_cmd", "Recompute the provenance hash from the published images and compare it with the "
                       "contract's: exit 1 if they differ."),
    },
    "The contract": {
        "contract": ("chain_cmd", "Build, deploy and update the MintprepDrop contract."),
        "check": ("chain_cmd", "Compare collection.yaml with the deployed contract: exit 0 when all agree, 1 on a "
                  "mismatch, 2 if unreachable."),
        "reveal": ("chain_cmd", "Reveal an unrevealed drop from wherever it stands: startReveal, its future block, "
                   "reveal with the committed\nsecret. A rerun resumes from the chain's state; on a local dev node "
                   "that mines only on transactions the\nblocks are mined here."),
    },
    "The page": {
        "publish": ("page_cmd", "Rebuild the mint page from the ledger and publish it to page.publish.target (ipfs, "
                    "netlify or dir)."),
        "serve": ("page_cmd", "Preview the mint page on 127.0.0.1, with its images from a local IPFS gateway; Ctrl-C "
                  "stops it."),
    },
    "Tools": {
        "cid": ("ipfs_cmd", "Print the CID `ipfs add --only-hash -Q` prints for PATH with the same flags (streams: "
                "flat memory)."),
        "export-car": ("ipfs_cmd", "Write a CAR v1 of SOURCE: one root, blocks in DFS order, each once."),
        "schema": ("run_cmd", "Print the JSON Schema of collection.yaml (for editor completion)."),
    },
}
_PANEL_OF = {name: panel for panel, commands in HELP_PANELS.items() for name in commands}
_HELP_ORDER = list(_PANEL_OF)


class AnsweringGroup(TyperGroup):
    """The root command: runs a subcommand and turns whatever it raises into one answer; lists its commands in the
    panels of HELP_PANELS; builds a command only when it is asked for (its module imported then)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._listing = False  # while the help lists the commands: their summaries, nothing imported
        plain_values(self)
        for name, command in self.commands.items():
            command.rich_help_panel = _PANEL_OF.get(name)  # type: ignore[attr-defined]

    def list_commands(self, ctx: Any) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(_HELP_ORDER),
                      key=lambda name: _HELP_ORDER.index(name) if name in _HELP_ORDER else len(_HELP_ORDER))

    def get_command(self, ctx: Any, name: str) -> Any:
        if name in _PANEL_OF and name not in self.commands:
            if self._listing:
                return TyperCommand(name, help=HELP_PANELS[_PANEL_OF[name]][name][1], rich_help_panel=_PANEL_OF[name])
            self.commands[name] = _build_command(name)
            self.commands[name].rich_help_panel = _PANEL_OF[name]  # type: ignore[attr-defined]
        return super().get_command(ctx, name)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except typer.TyperException as failed:  # typer suggests a name only among the commands built so far
            names = self.list_commands(ctx)
            matches = difflib.get_close_matches(args[0], names) if args and args[0] not in names else []
            if matches and "Did you mean" not in failed.message:
                failed.message = f"{failed.message.rstrip('.')}. Did you mean {', '.join(map(repr, matches))}?"
            raise

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def main(self, args: list[str] | None = None, *pos: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        as_json = _is_json(argv)
        if not argv or "--help" in argv:
            help_renderer()
        with _stdout_for_answers_only(as_json):
            try:
                returned = super().main(argv, *pos, standalone_mode=False, **kwargs)
                code = returned if isinstance(returned, int) else 0  # click returns typer.Exit's code
            except typer.Exit as done:
                code = done.exit_code
            except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - the one place that answers
                if debug_enabled():
                    console.print_exception()
                code = report_failure(exc, as_json=as_json)
        if standalone_mode:
            sys.exit(code)
        return code


app = typer.Typer(
    name="mintprep",
    cls=AnsweringGroup,
    help="Prepare a generative NFT collection for minting: generate, validate, pin, manifest, page.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    # Does nothing: it makes typer build `app` as a group (AnsweringGroup) before any command module has registered
    # a command on it.
    pass


def _build_command(name: str) -> Any:
    """The click command `name` of HELP_PANELS, built from what its cli module registers on `app` on import."""
    importlib.import_module(f"mintprep.cli.{HELP_PANELS[_PANEL_OF[name]][name][0]}")
    for info in app.registered_commands:
        if (info.name or typer.main.get_command_name(info.callback.__name__)) == name:  # type: ignore[union-attr]
            return plain_values(typer.main.get_command_from_info(
                info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=app.rich_markup_mode))
    group = next(info for info in app.registered_groups if info.name == name)
    return plain_values(typer.main.get_group_from_info(
        group, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=app.rich_markup_mode,
        suggest_commands=app.suggest_commands))


def output_file(path: Path, option: str) -> Path:
    """A file the user names for mintprep to write: refused before any work when it is a folder (exit 2)."""
    if path.is_dir():
        raise UserError(f"{option} {path}: is a folder; give the path of the file to write", path=str(path))
    return path


def print_json(value: Any) -> None:
    stream = _answer["stream"] or sys.stdout
    stream.write(scrub(json.dumps(value, indent=2, sort_keys=True, default=str)) + "\n")
    stream.flush()
