"""One HTTP layer for every remote service: a total deadline per request, retries with backoff, capped bodies.

Timeouts, connection errors, 429 and 5xx (JSON or plain text) are retried; when they persist a
RemoteError says which URL failed, how, and after how long, never a silent success. A request has a
deadline for all of it that fits its payload: a fixed allowance plus the bytes it sends and receives
at a minimum throughput (`RetryPolicy.min_bytes_per_s`), so a server that trickles a byte every few
seconds is cut off near the allowance while a slow but honest uplink sending a 32 MiB CAR is not. All
attempts together have a give-up time (grown the same way), and a body larger than the cap is refused
while it streams in, not after it filled memory. No registered secret (the session's token, a
credential in the URL) ever appears in an error, even when the server echoed it.

How the deadline holds without a thread per request: the request runs in the calling thread, which holds its
budget (_Budget), and the session's connections (DeadlineAdapter; a plain session handed in gets one) give every
socket read and write the time that budget has left, so the headers or the body trickling in a byte at a time, or
a server that stops reading the upload, end the request at its deadline, not after a timeout per byte.
"""

from __future__ import annotations

import email.utils
import functools
import http.client
import io
import json
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlsplit

import requests

from mintprep.base import (MAX_DEPTH, NOT_JSON, RemoteError, ResponseTooLarge, ServiceUnavailable, loads, nesting_depth,
                           register_secret, scrub)
from mintprep.net.urls import redact

__all__ = ["AnswerTooLarge", "DeadlineAdapter", "DeadlineSession", "ResponseTooLarge", "RetryPolicy",
           "ServiceUnavailable", "deadline_session", "json_object", "redact", "retry_after_seconds", "send"]

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
        body = loads(response.content)  # nesting bounded before decoding: mintprep.base.untrusted_json
    except NOT_JSON:
        raise RemoteError(scrub(f"{what}: expected JSON, got {response.text[:200]!r}")) from None
    if not isinstance(body, dict):
        raise RemoteError(scrub(f"{what}: expected a JSON object, got {body!r:.200}"))
    return body


class AnswerTooLarge(requests.RequestException):
    """DeadlineSession's answer past its limit, cut off as it arrived (a node's 10 MB tokenURI)."""


class _Deadline(Exception):
    """One request ran past its total deadline."""


class _TooLarge(Exception):
    """A response body ran past the cap."""


def _register_credentials(url: str, session: Any, kwargs: dict[str, Any]) -> None:
    parts = urlsplit(url)
    for part in (parts.password, parts.username):
        if part:
            register_secret(part)
    headers = {**dict(getattr(session, "headers", None) or {}), **dict(kwargs.get("headers") or {})}
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


class _Budget:
    """One request's deadline: `timeout` seconds from its start plus the bytes it sends and receives at
    `min_bytes_per_s`. The thread making the request holds it (_CURRENT); each read and write its connection
    makes waits at most what is left (_BoundedConnection), so the request ends near its deadline wherever it is."""

    __slots__ = ("started", "timeout", "per_byte", "sending", "received")

    def __init__(self, timeout: float, min_bytes_per_s: float | None, sending: int) -> None:
        self.started = time.monotonic()
        self.timeout = timeout
        self.per_byte = 1.0 / min_bytes_per_s if min_bytes_per_s else 0.0
        self.sending = sending
        self.received = 0

    def seconds(self) -> float:
        return self.timeout + (self.sending + self.received) * self.per_byte

    def bound(self, sock: Any) -> None:
        """Give the socket's next read or write the time that is left; _Deadline when none is."""
        left = self.started + self.seconds() - time.monotonic()
        if left <= 0:
            raise _Deadline(self.seconds())
        sock.settimeout(left)


_CURRENT = threading.local()  # .budget: the _Budget of the request this thread is making, if any


def _budget() -> _Budget | None:
    return getattr(_CURRENT, "budget", None)


class _BoundedReads(io.RawIOBase):
    """A connection's response bytes, each read waiting at most the time left to the request: a server that
    trickles its headers or its body a byte at a time is cut off at the deadline, not after a timeout per byte."""

    def __init__(self, sock: Any, reads: io.RawIOBase) -> None:
        super().__init__()
        self._sock = sock
        self._reads = reads  # socket.makefile's reader: it keeps the socket open while the response reads

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        budget = _budget()
        if budget is None:
            return self._reads.readinto(buffer)
        budget.bound(self._sock)
        try:
            count = self._reads.readinto(buffer)
        except TimeoutError:  # the socket waited all the time that was left
            raise _Deadline(budget.seconds()) from None
        budget.received += count or 0
        return count

    def close(self) -> None:
        self._reads.close()
        super().close()


class _BoundedResponse(http.client.HTTPResponse):
    def __init__(self, sock: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        self.fp = io.BufferedReader(_BoundedReads(sock, self.fp.detach()))


class _BoundedConnection:
    """Mixed into urllib3's connection classes: reads and writes bounded by the deadline of the request the
    calling thread makes. One write's timeout covers a whole sendall, which the payload's bytes lengthened."""

    response_class = _BoundedResponse
    sock: Any

    def send(self, data: Any) -> None:
        budget = _budget()
        if budget is not None and self.sock is not None:
            budget.bound(self.sock)
        try:
            super().send(data)  # type: ignore[misc]
        except TimeoutError:
            if budget is None:
                raise
            raise _Deadline(budget.seconds()) from None


@functools.cache
def _bounded_pool(pool: type) -> type:
    """`pool`, an urllib3 connection pool class, making its connections with _BoundedConnection mixed in."""
    if issubclass(pool.ConnectionCls, _BoundedConnection):
        return pool
    connection = type(f"Bounded{pool.ConnectionCls.__name__}", (_BoundedConnection, pool.ConnectionCls), {})
    return type(f"Bounded{pool.__name__}", (pool,), {"ConnectionCls": connection})


def _bound_pools(manager: Any) -> Any:
    manager.pool_classes_by_scheme = {scheme: _bounded_pool(pool)
                                      for scheme, pool in manager.pool_classes_by_scheme.items()}
    return manager


class DeadlineAdapter(requests.adapters.HTTPAdapter):
    """requests' adapter with connections (direct, through a proxy or SOCKS) whose reads and writes keep the
    deadline of the request `send` or DeadlineSession makes, in the calling thread: no thread per request."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        _bound_pools(self.poolmanager)

    def proxy_manager_for(self, proxy: str, **kwargs: Any) -> Any:
        return _bound_pools(super().proxy_manager_for(proxy, **kwargs))


def deadline_session(pool_size: int = 10) -> requests.Session:
    """A requests session with DeadlineAdapter connections, `pool_size` kept alive per host."""
    session = requests.Session()
    adapter = DeadlineAdapter(pool_connections=4, pool_maxsize=pool_size)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


_UPGRADING = threading.Lock()


def _with_deadlines(session: requests.Session, url: str) -> None:
    """A session a caller made itself gets a DeadlineAdapter for `url` in place of requests' plain one: the
    deadline holds whichever session a request goes through."""
    if isinstance(session.get_adapter(url), DeadlineAdapter):
        return
    with _UPGRADING:
        plain = session.get_adapter(url)
        if isinstance(plain, DeadlineAdapter):
            return
        if type(plain) is not requests.adapters.HTTPAdapter:
            raise TypeError(f"mintprep.net.http bounds requests through requests' HTTPAdapter, "
                            f"not {type(plain).__name__}")
        bounded = DeadlineAdapter(plain._pool_connections, plain._pool_maxsize, plain.max_retries, plain._pool_block)
        for prefix, adapter in list(session.adapters.items()):
            if adapter is plain:
                session.adapters[prefix] = bounded


def _attempt(session: requests.Session, method: str, url: str, kwargs: dict[str, Any], *, timeout: float,
             max_body: int, min_bytes_per_s: float | None = None,
             request: Callable[..., requests.Response] | None = None) -> requests.Response:
    """One request with its body read into memory (at most `max_body` bytes), within its deadline: `timeout`
    seconds, plus, with `min_bytes_per_s`, the time the bytes sent and received so far take at that rate.
    `request` stands for `session.request` where that would call back here (DeadlineSession)."""
    _with_deadlines(session, url)
    budget = _Budget(timeout, min_bytes_per_s, request_bytes(kwargs))
    connect = budget.seconds()  # connecting (and a TLS handshake) may take the whole deadline, no more
    _CURRENT.budget = budget
    try:
        response = (request or session.request)(method, url, stream=True, timeout=(connect, connect), **kwargs)
        body = bytearray()
        try:
            for chunk in response.iter_content(CHUNK):
                body += chunk
                if len(body) > max_body:
                    raise _TooLarge()
        finally:
            response.close()
        response._content = bytes(body)  # requests' own cache of the body: .content/.text/.json() use it
        response._content_consumed = True
        return response
    finally:
        _CURRENT.budget = None


class DeadlineSession(requests.Session):
    """A requests session whose every request has a total deadline and a capped body, for clients that bring
    their own request loop (web3's HTTPProvider): a trickling RPC ends like any other endpoint."""

    def __init__(self, timeout: float = 60.0, max_body_bytes: int = RetryPolicy.max_body_bytes,
                 answer_limit: Callable[[Any], int] | None = None) -> None:
        """`answer_limit(request body)`: the most bytes that request's answer may have, where it depends on what
        is asked (a JSON-RPC eth_call answer is small, eth_getLogs may be large); else `max_body_bytes`."""
        super().__init__()
        self._timeout = timeout
        self._max_body = max_body_bytes
        self._answer_limit = answer_limit
        self.mount("http://", DeadlineAdapter())
        self.mount("https://", DeadlineAdapter())

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        if args:  # requests' positional order (params, data, headers, ...) as keywords
            kwargs.update(zip(("params", "data", "headers", "cookies", "files", "auth"), args))
        kwargs.pop("stream", None)
        timeout = kwargs.pop("timeout", None)
        limit = min(self._timeout, timeout if isinstance(timeout, (int, float)) else self._timeout)
        max_body = self._max_body if self._answer_limit is None else self._answer_limit(kwargs.get("data"))
        try:
            response = _attempt(self, method, url, kwargs, timeout=limit, max_body=max_body, request=super().request)
        except _Deadline:
            raise requests.Timeout(f"no complete answer within {limit:.1f}s") from None
        except _TooLarge:
            raise AnswerTooLarge(f"the response is larger than {max_body} bytes") from None
        # web3 decodes the answer itself (its bytes as UTF-8), with a decoder that follows nesting as deep as the
        # recursion limit, which eth-account raises to 100,000: a node's answer nested deeper than any JSON-RPC
        # answer is refused here. Scanned as web3 will read it, not as the headers' charset would decode it.
        if nesting_depth(response.content.decode("utf-8", "replace")) > MAX_DEPTH:
            raise requests.exceptions.ContentDecodingError(f"an answer nested deeper than {MAX_DEPTH} levels")
        return response


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
    if session is None:
        with deadline_session() as own:
            return send(method, url, session=own, policy=policy, sleep=sleep, ok_status=ok_status,
                        is_answer=is_answer, **kwargs)
    kwargs.pop("stream", None)
    _register_credentials(url, session, kwargs)
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
            response = _attempt(session, method, url, call_kwargs, timeout=timeout, max_body=policy.max_body_bytes,
                                min_bytes_per_s=policy.min_bytes_per_s)
        except _TooLarge:
            raise ResponseTooLarge(f"{shown} failed: the response is larger than {policy.max_body_bytes} bytes") from None
        except _Deadline as late:
            last = (f"no complete answer within {late.args[0]:.1f}s ({timeout:.3g}s plus "
                    f"{policy.min_bytes_per_s / 1024:g} KiB/s for the bytes sent and received)")
        except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError) as exc:
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


def pooled_session(concurrency: int) -> requests.Session:
    """A session that keeps a connection per worker thread (requests' default pool holds 10)."""
    session = _EnvironmentOnce()
    adapter = DeadlineAdapter(pool_connections=4, pool_maxsize=max(concurrency, 10))
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class _EnvironmentOnce(requests.Session):
    """Reads what requests takes from the environment (proxies and NO_PROXY, REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE,
    ~/.netrc) once per host, not on every request: requests scans os.environ and stats ~/.netrc per request, which
    on a busy machine took longer than the request itself (profiled with bench/bench_pinning.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.trust_env = False  # what it would read per request is read once below, per host
        self._per_host: dict[tuple[str, str], tuple[dict[str, str], str | None, Any]] = {}

    def request(self, method: str, url: str, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        parts = urlsplit(url)
        host = (parts.scheme, parts.netloc)
        if host not in self._per_host:
            self._per_host[host] = (requests.utils.get_environ_proxies(url),
                                    os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE"),
                                    requests.utils.get_netrc_auth(url))
        proxies, bundle, netrc = self._per_host[host]
        kwargs["proxies"] = {**proxies, **(kwargs.get("proxies") or {})}
        if bundle and kwargs.get("verify") in (None, True) and self.verify is True:
            kwargs["verify"] = bundle
        if netrc and not kwargs.get("auth") and not self.auth:
            kwargs["auth"] = netrc
        return super().request(method, url, **kwargs)
