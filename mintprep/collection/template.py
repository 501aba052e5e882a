"""Prompt templates: `{name}` placeholders filled with trait values, nothing more.

str.format would also run format specs (`{flower:>50000000}` builds a 50 MB string), attribute and
index access (`{style.v2}`) and conversions; a template is data, so only plain names are read.
`{{` and `}}` stand for literal braces, as in str.format.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from mintprep.base import TemplateError

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_TOKEN = re.compile(r"\{\{|\}\}|\{(" + NAME + r")\}|[{}]")


def template_names(template: str) -> list[str]:
    """The names the template uses, in order; TemplateError on anything but plain `{name}` placeholders."""
    names = []
    for match in _TOKEN.finditer(template):
        if match.group(1):
            names.append(match.group(1))
        elif match.group(0) in "{}":
            context = template[match.start():match.start() + 20]
            raise TemplateError(f"placeholders are plain names such as {{flower}} (no format specs, attributes, "
                                f"indexes or positions; {{{{ and }}}} for literal braces); found {context!r} at "
                                f"character {match.start() + 1}")
    return names


def render(template: str, values: Mapping[str, str]) -> str:
    """The template with each `{name}` replaced by values[name] (KeyError if one is missing)."""
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        return values[name] if name else match.group(0)[0]

    return _TOKEN.sub(replace, template)
