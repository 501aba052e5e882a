"""One HTTP layer for every remote service: a total deadline per request, retries with backoff, capped bodies.

Timeouts, connection errors, 429 and 5xx (JSON or plain text) are retried; when they persist a
RemoteError says which URL failed, how, and after how long, never a silent success. A request has a
deadline for all of it that fits its payload: a fixed allowance plus the bytes it sends and receives
at a minimum throughput (`RetryPolicy.min_bytes_per_s`), so a server that trickles a byte every few
seconds is cut off near the allowance while a slow but honest uplink sending a 32 MiB CAR is not. All
attempts together have a give-up time (grown the same way), and a body larger than the cap is refused
while it streams in, not after it filled memory. No registered secret (the session's token, a
credential in the URL) ever appears in an error, even when the server echoed it.
"""

from __future__ import annotations

import email.utils
import json
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlsplit

import requests

from mintprep.base.errors import RemoteError
from mintprep.base.secrets import register_secret, scrub
from mintprep.net.urls import redact

__all__ = ["DeadlineSession", "RetryPolicy", "ServiceUnavailable", "json_object", "redact", "retry_after_seconds", "send"]

RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
CHUNK = 64 * 1024
MIN_BYTES_PER_S = 64 * 1024  # 512 kbit/s: below any uplink worth pinning from; a trickle is far below it


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    timeout: float = 60.0  # one request's fixed allowance: connect, headers, and a body at no cost
    give_up_after: float = 600.0  # every attempt and wait together (plus the payload's time, as below)
    max_body_bytes: int = 64 * 1024 * 1024
    min_bytes_per_s: float = MIN_BYTES_PER_S  # each byte sent or received adds 1/this seconds to the deadline

    def payload_seconds(self, size: int) -> float:
        return size / self.min_bytes_per_s

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


def json_object(response: requests.Response, what: str) -> dict[str, Any]:
    """The response's JSON object, or a RemoteError naming `what` (a proxy's HTML error page is not an answer)."""
    try:
        body = response.json()
    except ValueError:
        raise RemoteError(scrub(f"{what}: expected JSON, got {response.text[:200]!r}")) from None
    if not isinstance(body, dict):
        raise RemoteError(scrub(f"{what}: expected a JSON object, got {body!r:.200}"))
    return body


class ServiceUnavailable(RemoteError):
    """Every attempt failed (timeouts, connection errors, retryable statuses) until the give-up time."""


class _Deadline(Exception):
    """One request ran past its total deadline."""


class _TooLarge(Exception):
    """A response body ran past the cap."""


def _register_credentials(url: str, http: Any, kwargs: dict[str, Any]) -> None:
    parts = urlsplit(url)
    for part in (parts.password, parts.username):
        if part:
            register_secret(part)
    headers = {**dict(getattr(http, "headers", None) or {}), **dict(kwargs.get("headers") or {})}
    for name, value in headers.items():
        if name.lower() in ("authorization", "x-api-key", "pinata_secret_api_key") and value:
            register_secret(str(value).partition(" ")[2] or str(value))  # "Bearer TOKEN": the token


def _size(part: Any) -> int:
    """Bytes in one body part: bytes or text, a JSON-able value, or a seekable file (from where it stands)."""
    if isinstance(part, (bytes, bytearray, memoryview)):
        return len(part)
    if isinstance(part, str):
        return len(part.encode())
    if hasattr(part, "fileno") and hasattr(part, "tell"):
        try:
            return max(0, os.fstat(part.fileno()).st_size - part.tell())
        except (OSError, ValueError):
            return 0
    if isinstance(part, tuple):  # requests' (filename, content, type) form
        return _size(part[1]) if len(part) > 1 else 0
    if isinstance(part, dict):
        return sum(len(str(key)) + _size(value) for key, value in part.items())
    return 0  # a generator: its length is unknown, the bytes received still count


def request_bytes(kwargs: dict[str, Any]) -> int:
    """The bytes a request body will send, as far as they can be known before sending."""
    files = kwargs.get("files") or {}
    parts = list(files.values()) if isinstance(files, dict) else [part for _, part in files]
    body = _size(kwargs.get("data")) + sum(_size(part) for part in parts)
    return body + (len(json.dumps(kwargs["json"])) if kwargs.get("json") is not None else 0)


def _attempt(http: Any, method: str, url: str, kwargs: dict[str, Any], *, timeout: float,
             max_body: int, min_bytes_per_s: float | None = None) -> requests.Response:
    """One request with its body read into memory (at most `max_body` bytes), within its deadline: `timeout`
    seconds, plus, with `min_bytes_per_s`, the time the bytes sent and received so far take at that rate.

    The request runs on a worker thread the caller stops waiting for at the deadline; the worker then
    stops at its next chunk (or its next per-read timeout), so an abandoned request ends by itself.
    """
    outcome: dict[str, Any] = {}
    cancelled = threading.Event()
    sending = request_bytes(kwargs)
    received = [0]

    def work() -> None:
        try:
            # The socket's timeout bounds a whole sendall of the body (and a read while the server takes it in):
            # it grows with the bytes sent. The deadline below still bounds the request as a whole.
            per_socket = timeout + (sending / min_bytes_per_s if min_bytes_per_s else 0.0)
            response = http.request(method, url, stream=True, timeout=(per_socket, per_socket), **kwargs)
            body = bytearray()
            raw = response.raw
            read = getattr(raw, "read1", None) or raw.read  # read1: what has arrived, not a full chunk
            while not cancelled.is_set():
                chunk = read(CHUNK, decode_content=True)
                if not chunk:
                    break
                body += chunk
                received[0] = len(body)
                if len(body) > max_body:
                    response.close()
                    raise _TooLarge()
            response._content = bytes(body)  # requests' own cache of the body: .content/.text/.json() use it
            response._content_consumed = True
            response.close()
            outcome["response"] = response
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            outcome["error"] = exc

    worker = threading.Thread(target=work, name=f"http {method}", daemon=True)
    started = time.monotonic()
    worker.start()
    while worker.is_alive():
        deadline = timeout + ((sending + received[0]) / min_bytes_per_s if min_bytes_per_s else 0.0)
        left = started + deadline - time.monotonic()
        if left <= 0:
            cancelled.set()
            raise _Deadline(deadline)
        worker.join(min(left, 0.25))
    if "error" in outcome:
        raise outcome["error"]
    return outcome["response"]


class DeadlineSession(requests.Session):
    """A requests session whose every request has a total deadline and a capped body, for clients that bring
    their own request loop (web3's HTTPProvider): a trickling RPC ends like any other endpoint."""

    def __init__(self, timeout: float = 60.0, max_body_bytes: int = RetryPolicy.max_body_bytes) -> None:
        super().__init__()
        self._timeout = timeout
        self._max_body = max_body_bytes

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        if args:  # requests' positional order (params, data, headers, ...) as keywords
            kwargs.update(zip(("params", "data", "headers", "cookies", "files", "auth"), args))
        kwargs.pop("stream", None)
        timeout = kwargs.pop("timeout", None)
        limit = min(self._timeout, timeout if isinstance(timeout, (int, float)) else self._timeout)
        plain = _PlainSession(self)
        try:
            return _attempt(plain, method, url, kwargs, timeout=limit, max_body=self._max_body)
        except _Deadline:
            raise requests.Timeout(f"no complete answer within {limit:.1f}s") from None
        except _TooLarge:
            raise requests.RequestException(f"the response is larger than {self._max_body} bytes") from None


class _PlainSession:
    """The session's own request method, for _attempt (DeadlineSession.request would call itself)."""

    def __init__(self, session: requests.Session) -> None:
        self._session = session

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:
        return requests.Session.request(self._session, *args, **kwargs)


def send(
    method: str,
    url: str,
    *,
    session: requests.Session | None = None,
    policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], None] = time.sleep,
    ok_status: Callable[[int], bool] = lambda s: s < 400,
    is_answer: Callable[[requests.Response], bool] = lambda response: False,
    **kwargs: Any,
) -> requests.Response:
    """Send a request, retrying transient failures; return the first response whose status is ok.

    `is_answer` accepts a retryable status that is really the service's answer (kubo's JSON command
    errors come as HTTP 500; a plain-text 500 from a proxy is an outage and is retried). A non-retryable
    error status raises at once; request bodies given as callables are re-created for each attempt
    (a consumed stream cannot be re-sent). The returned response's body is already read.
    """
    http = session or requests
    kwargs.pop("stream", None)
    _register_credentials(url, http, kwargs)
    started = time.monotonic()
    # Every attempt may need the payload's time; the give-up time leaves room for one whole attempt at least.
    give_up_at = started + policy.give_up_after + policy.payload_seconds(request_bytes(
        {k: v for k, v in kwargs.items() if not callable(v)}))
    shown = f"{method} {redact(url)}"
    last = ""
    attempts = 0
    while attempts < policy.attempts:
        remaining = give_up_at - time.monotonic()
        if remaining <= 0:
            break
        attempts += 1
        call_kwargs = {k: (v() if callable(v) and k in ("data", "files") else v) for k, v in kwargs.items()}
        timeout = min(float(call_kwargs.pop("timeout", policy.timeout) or policy.timeout), policy.timeout, remaining)
        response = None
        try:
            response = _attempt(http, method, url, call_kwargs, timeout=timeout, max_body=policy.max_body_bytes,
                                min_bytes_per_s=policy.min_bytes_per_s)
        except _TooLarge:
            raise RemoteError(f"{shown} failed: the response is larger than {policy.max_body_bytes} bytes") from None
        except _Deadline as late:
            last = (f"no complete answer within {late.args[0]:.1f}s ({timeout:g}s plus "
                    f"{policy.min_bytes_per_s / 1024:g} KiB/s for the bytes sent and received)")
        except (requests.ConnectionError, requests.Timeout) as exc:
            last = f"{type(exc).__name__}: {exc}"
        except requests.RequestException as exc:
            raise RemoteError(scrub(f"{shown} failed: {type(exc).__name__}: {exc}")) from None
        else:
            if ok_status(response.status_code) or is_answer(response):
                return response
            last = f"HTTP {response.status_code}: {response.text[:300]}"
            if response.status_code not in RETRY_STATUS:
                raise RemoteError(scrub(f"{shown} failed: {last}"))
        wait = policy.delay(attempts - 1, response)
        if attempts < policy.attempts and time.monotonic() + wait < give_up_at:
            sleep(wait)
        elif attempts < policy.attempts:
            break
    elapsed = time.monotonic() - started
    raise ServiceUnavailable(scrub(f"{shown} failed after {attempts} attempts: {last} ({elapsed:.1f}s; mintprep gives up "
                            f"after {policy.attempts} attempts or {policy.give_up_after:g}s, whichever comes first)"))
