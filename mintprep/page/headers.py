"""The site's `_headers` file (Netlify's format, also read by Cloudflare Pages): the CSP as a real header.

A header CSP can do what the `<meta>` one cannot: `frame-ancestors` (no framing of the mint button
by another site). Format (docs.netlify.com "Custom headers"): a path pattern at the start of a line,
then its headers indented beneath it, `Name: value`; `*` at the end of a pattern matches any rest.
`serve` applies the same rules so the local preview sends what the host will.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

HeaderRules = Sequence[tuple[str, Mapping[str, str]]]


def site_header_rules(csp: str) -> list[tuple[str, dict[str, str]]]:
    return [
        ("/*", {
            "Content-Security-Policy": f"{csp}; frame-ancestors 'none'",
            "Referrer-Policy": "no-referrer",
            "X-Content-Type-Options": "nosniff",
        }),
        # Chunk folders are named by their content: a new gallery is a new URL.
        ("/gallery/*", {"Cache-Control": "public, max-age=31536000, immutable"}),
    ]


def render_headers(rules: HeaderRules) -> bytes:
    lines: list[str] = []
    for pattern, headers in rules:
        lines.append(pattern)
        lines.extend(f"  {name}: {value}" for name, value in headers.items())
    return ("\n".join(lines) + "\n").encode()


def parse_headers(text: str) -> list[tuple[str, dict[str, str]]]:
    rules: list[tuple[str, dict[str, str]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            rules.append((line.strip(), {}))
            continue
        name, colon, value = line.strip().partition(":")
        if not rules or not colon:
            raise ValueError(f"_headers line {number}: expected `Name: value` under a path, got {line.strip()!r}")
        rules[-1][1][name.strip()] = value.strip()
    return rules


def headers_for(rules: HeaderRules, path: str) -> dict[str, str]:
    """Every header the rules give `path` (later rules win a name both set, as on Netlify)."""
    merged: dict[str, str] = {}
    for pattern, headers in rules:
        matches = path.startswith(pattern[:-1]) if pattern.endswith("*") else path == pattern
        if matches:
            merged.update(headers)
    return merged
