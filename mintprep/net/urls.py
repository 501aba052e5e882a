"""URLs a collection names, checked offline at load: scheme, host, and credentials never shown.

A message about a URL shows it without `user:password@` (kubo behind basic auth, an RPC with a key
in its userinfo): errors and logs are often pasted into public issues.
"""

from __future__ import annotations

import re
from typing import Annotated, Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import AfterValidator

WEB = ("http", "https")
# Provider URLs often carry an API key as a path segment or query value (".../v2/<key>", "?apikey=<key>").
KEY_LIKE = re.compile(r"[A-Za-z0-9_\-]{16,}")


def redact(url: str) -> str:
    """The URL without `user:password@`, for messages."""
    try:
        parts = urlsplit(url)
        return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
    except ValueError:  # unparsable (an unbalanced `[` in the host): show nothing of it
        return "(an unparsable URL)"


def redact_url(url: str) -> str:
    """The URL with credentials and key-like path or query parts replaced by ***, safe to print."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"***@{host}" if parts.username or parts.password else host
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit(
        (parts.scheme, netloc, KEY_LIKE.sub("***", parts.path), KEY_LIKE.sub("***", parts.query), "")
    )


def _shown(url: str) -> str:
    """Scheme and host only: paths and queries often hold API keys (".../v2/<key>", "?apikey=")."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return "(an unparsable URL)"
    rest = "/…" if (parts.path.strip("/") or parts.query) else ""
    return f"{parts.scheme}://{host}{rest}" if parts.netloc else (f"{parts.scheme}:…" if parts.scheme else "…")


def checked_url(url: str, schemes: tuple[str, ...], *, credentials: bool) -> str:
    """`url` when its scheme is one of `schemes` and it names a host; ValueError (showing only scheme and
    host) otherwise.

    credentials=False refuses `user:password@` outright: used for URLs published in the page or metadata.
    """
    shown = _shown(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        raise ValueError(f"is not a valid URL, got {shown!r}") from None
    if parts.scheme.lower() not in schemes:
        raise ValueError(f"must be a {'/'.join(schemes)} URL, got {shown!r}")
    if not parts.hostname:
        raise ValueError(f"names no host, got {shown!r}")
    if not credentials and (parts.username or parts.password):
        raise ValueError(f"must not carry user:password credentials (it is published), got {shown!r}")
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise ValueError(f"contains whitespace or control characters, got {shown!r}")
    return url


def _annotated(schemes: tuple[str, ...], *, credentials: bool) -> Any:
    return Annotated[str, AfterValidator(lambda url: checked_url(url, schemes, credentials=credentials))]


# Published (page, token metadata): http(s), no credentials. Private endpoints mintprep calls may carry them.
PublicUrl = _annotated(WEB, credentials=False)
PrivateUrl = _annotated(WEB, credentials=True)
