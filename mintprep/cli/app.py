"""The typer app and what every command shares: error-to-exit-code mapping and --json output."""

from __future__ import annotations

import functools
import json
import sys
from typing import Any, Callable, TypeVar

import typer
from rich.console import Console

from mintprep.errors import MintprepError

app = typer.Typer(
    name="mintprep",
    help="Prepare a generative NFT collection for minting: generate, validate, pin, manifest, page.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Humans read stderr; stdout carries only what a script asked for (--json) or the command's result.
console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def reports_errors(fn: F) -> F:
    """Turn MintprepError into a one-line message and its exit code, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MintprepError as exc:
            console.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True, soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None

    return wrapper  # type: ignore[return-value]


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, sort_keys=True, default=str) + "\n")
    sys.stdout.flush()
