"""What typer (0.29) pays at every start and this app does without, the output unchanged: the pydantic adapters it
builds to coerce parameter values, and the two modules its help renderer imports for features the app does not use.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import typer


class _PlainValue:
    """What typer's coercion of an absent value (None), a `str` or a `Path` comes to, without the pydantic
    TypeAdapter typer (0.29) builds to do it: building one imports pydantic, ~60 ms of every start and most of what
    `status` paid beyond typer and rich. A path keeps typer's own checks (coerce_cli_path); any other value (an
    int, a flag's value from the environment) goes to typer's adapter."""

    def __init__(self, annotation: Any) -> None:
        self.annotation = annotation

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return None
        if self.annotation is str and isinstance(value, str):
            return value
        if self.annotation is Path and isinstance(value, (str, Path)):
            from typer._param_types import coerce_cli_path

            return coerce_cli_path(Path(value), param.type_descriptor.parameter_info, path_type=Path, param=param,
                                   ctx=ctx)
        from typer._coercion import build_runtime_param

        return build_runtime_param(param.type_descriptor).coerce(value, param=param, ctx=ctx)


def plain_values(command: Any) -> Any:
    """`command` (and a group's subcommands) with each single-valued parameter coerced by _PlainValue; a typer that
    builds its coercion otherwise (no `_runtime_param` slot left empty) keeps its own. The help option too, which
    click makes on first use (and keeps)."""
    help_option = command.get_help_option(typer.Context(command))
    for param in [*command.params, *([help_option] if help_option is not None else [])]:
        descriptor = getattr(param, "type_descriptor", None)
        if (descriptor is not None and getattr(param, "_runtime_param", False) is None and param.nargs == 1
                and not param.multiple and descriptor.parameter_info.parser is None
                and descriptor.parameter_info.path_type is None):
            param._runtime_param = _PlainValue(descriptor.annotation)
    for subcommand in getattr(command, "commands", {}).values():
        plain_values(subcommand)
    return command


class _Deferred(type):
    """A class standing in for one a module defines, the module not imported: calling it, or reading any of its
    attributes, imports the module and answers with the real class."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._real()(*args, **kwargs)

    def __getattr__(cls, attribute: str) -> Any:
        return getattr(cls._real(), attribute)


def _stand_in(module: str, name: str) -> type:
    return _Deferred(name, (), {"_real": staticmethod(lambda: getattr(importlib.import_module(module), name))})


# typer.rich_utils imports these for Markdown help text and pretty tracebacks: the app writes its help in rich markup
# and turns pretty exceptions off, and markdown_it and pygments (which they import) are ~40 ms of a `--help`.
UNUSED_BY_THE_HELP = {"rich.markdown": "Markdown", "rich.traceback": "Traceback"}


def help_renderer() -> None:
    """Import typer's help renderer (typer.rich_utils) with UNUSED_BY_THE_HELP standing in for their modules while it
    imports (a typer that imports more of them gets the real modules)."""
    if "typer.rich_utils" in sys.modules:
        return
    stand_ins = {module: type(sys)(module) for module in UNUSED_BY_THE_HELP if module not in sys.modules}
    for module, stand_in in stand_ins.items():
        setattr(stand_in, UNUSED_BY_THE_HELP[module], _stand_in(module, UNUSED_BY_THE_HELP[module]))
    sys.modules.update(stand_ins)
    try:
        importlib.import_module("typer.rich_utils")
    except ImportError:
        sys.modules.pop("typer.rich_utils", None)
    finally:
        for module, stand_in in stand_ins.items():
            if sys.modules.get(module) is stand_in:
                del sys.modules[module]
    importlib.import_module("typer.rich_utils")
