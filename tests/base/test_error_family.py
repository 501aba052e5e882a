"""One error family (mintprep.base.errors): every error mintprep raises on purpose is a MintprepError, so the CLI's
exit funnel reports it by its kind and exit code rather than as an internal error, and the tree the module's
docstring draws is the tree the classes form."""

from __future__ import annotations

import re

import pytest

from mintprep.base import errors
from mintprep.cli.app import describe_failure

FAMILY = [value for value in vars(errors).values()
          if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == errors.__name__]


def drawn_tree() -> dict[str, str]:
    """class -> its parent, as the docstring draws them (indentation of the tree's branches)."""
    parents: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for line in errors.__doc__.splitlines():
        found = re.match(r"^(\s*(?:[│ ]\s*)*(?:[├└]── )?)([A-Z]\w+)", line)
        if not found or not any(mark in line for mark in "├└") and not line.strip().startswith("MintprepError"):
            continue
        depth, name = len(found.group(1)), found.group(2)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            parents[name] = stack[-1][1]
        stack.append((depth, name))
    return parents


def test_every_error_is_a_mintprep_error():
    assert len(FAMILY) > 20
    assert [cls.__name__ for cls in FAMILY if not issubclass(cls, errors.MintprepError)] == []


def test_the_docstring_draws_the_family_as_it_is():
    tree = drawn_tree()
    assert set(tree) | {"MintprepError"} == {cls.__name__ for cls in FAMILY}
    for cls in FAMILY:
        if cls is not errors.MintprepError:
            assert tree[cls.__name__] == cls.__mro__[1].__name__, cls


@pytest.mark.parametrize("error, kind, code", [
    (errors.BlockNotFound("bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"), "unreadable", 1),
    (errors.FileTooLarge("a 1 GB image"), "unreadable", 1),
    (errors.NotAcceptable("not a PNG"), "input", 2),
    (errors.YamlRefused("line 3: duplicate key"), "config", 2),
    (errors.TemplateError("{flower:>9}"), "config", 2),
    (errors.TooDeep("JSON nested deeper than 64 levels"), "too-deep", 1),
    (errors.Rejected("nsfw", "flagged"), "rejected", 1),
])
def test_an_error_that_escapes_is_reported_by_its_kind_not_as_internal(error, kind, code):
    assert describe_failure(error) == (kind, code, str(error))
