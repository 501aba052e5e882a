"""One HTTP layer for every remote service: timeouts, retries with backoff, Retry-After honoured.

Timeouts, connection errors, 429 and 5xx are retried; when they persist a RemoteError says which
URL failed and how, never a silent success. Authorization headers are never echoed in errors.
"""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlsplit

import requests

from mintprep.errors import RemoteError

RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    timeout: float = 60.0

    def delay(self, attempt: int, response: requests.Response | None) -> float:
        hinted = retry_after_seconds(response) if response is not None else None
        if hinted is not None:
            return min(hinted, self.max_delay)
        return min(self.base_delay * (2**attempt), self.max_delay)


def retry_after_seconds(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    if value.strip().isdigit():
        return float(value.strip())
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):  # neither seconds nor an HTTP-date: fall back to our own backoff
        return None
    return max(0.0, when.timestamp() - time.time())


def redact(url: str) -> str:
    """The URL without `user:password@`, for messages (kubo behind basic auth puts credentials there)."""
    parts = urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def json_object(response: requests.Response, what: str) -> dict[str, Any]:
    """The response's JSON object, or a RemoteError naming `what` (a proxy's HTML error page is not an answer)."""
    try:
        body = response.json()
    except ValueError:
        raise RemoteError(f"{what}: expected JSON, got {response.text[:200]!r}") from None
    if not isinstance(body, dict):
        raise RemoteError(f"{what}: expected a JSON object, got {body!r:.200}")
    return body


def send(
    method: str,
    url: str,
    *,
    session: requests.Session | None = None,
    policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], None] = time.sleep,
    ok_status: Callable[[int], bool] = lambda s: s < 400,
    **kwargs: Any,
) -> requests.Response:
    """Send a request, retrying transient failures; return the first response whose status is ok.

    A non-retryable error status raises at once; request bodies given as callables are re-created
    for each attempt (a consumed stream cannot be re-sent).
    """
    http = session or requests
    last: str = ""
    for attempt in range(policy.attempts):
        call_kwargs = {k: (v() if callable(v) and k in ("data", "files") else v) for k, v in kwargs.items()}
        call_kwargs.setdefault("timeout", policy.timeout)
        response = None
        try:
            response = http.request(method, url, **call_kwargs)
        except (requests.ConnectionError, requests.Timeout) as exc:
            last = f"{type(exc).__name__}: {exc}"
        else:
            if ok_status(response.status_code):
                return response
            last = f"HTTP {response.status_code}: {response.text[:300]}"
            if response.status_code not in RETRY_STATUS:
                raise RemoteError(f"{method} {redact(url)} failed: {last}")
        if attempt + 1 < policy.attempts:
            sleep(policy.delay(attempt, response))
    raise RemoteError(f"{method} {redact(url)} failed after {policy.attempts} attempts: {last}")
