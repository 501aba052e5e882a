"""Connecting to a JSON-RPC endpoint: a reachable node or a UserError that names the URL and the failure."""

from __future__ import annotations

import re

import requests
from web3 import Web3
from web3.exceptions import Web3Exception
from web3.providers.rpc.utils import ExceptionRetryConfiguration

from mintprep.net import KEY_LIKE, DeadlineSession, Network, redact_url, RetryPolicy
from mintprep.base import UserError

_OS_ERROR = re.compile(r"\[Errno -?\d+\] [^'\")]+")

# Errors that mean "this endpoint did not answer usefully" rather than a bug in mintprep.
RPC_FAILURES: tuple[type[BaseException], ...] = (requests.RequestException, Web3Exception, OSError, ValueError)


def rpc_failure_reason(exc: BaseException) -> str:
    """A one-line reason without the URL (requests puts the full URL, key included, in its messages)."""
    if isinstance(exc, requests.ConnectionError):
        cause = _OS_ERROR.search(str(exc))
        return f"connection failed ({cause.group(0) if cause else 'is the node running and the URL right?'})"
    if isinstance(exc, requests.Timeout):
        return "timed out"
    if isinstance(exc, requests.HTTPError) and exc.response is not None:
        return f"HTTP {exc.response.status_code} {exc.response.reason}"
    return f"{type(exc).__name__}: {KEY_LIKE.sub('***', str(exc))[:300]}"


# A node's answer is read only so far: an eth_call (a token URI, a name, a price) at most MAX_CALL_ANSWER_BYTES of
# JSON, so a tokenURI() of 10 MB is cut off as it arrives (it took 2.6 GB before: hex, bytes, then str, each whole),
# and refused; a token URI mintprep reads is an ipfs:// address, far under the half of it left as text. Logs (the
# mint history) may be long: up to the HTTP layer's own cap.
MAX_CALL_ANSWER_BYTES = 1 << 20
MAX_LOGS_ANSWER_BYTES = RetryPolicy.max_body_bytes


def answer_limit(body: object) -> int:
    """The most bytes the answer to the JSON-RPC request `body` may have."""
    text = body if isinstance(body, (bytes, bytearray)) else str(body or "").encode()
    return MAX_LOGS_ANSWER_BYTES if b"eth_getLogs" in text else MAX_CALL_ANSWER_BYTES


# One Web3 per endpoint in a process: web3's validation asks eth_chainId before every eth_call, estimate and send
# (83 calls of an audit were 49 eth_chainId, measured); the provider caches that one answer, and every command
# that connects to the same endpoint shares it.
_CONNECTED: dict[tuple[str, float, int], Web3] = {}


def connect(rpc_url: str, timeout: float = 15.0, retries: int = 3) -> Web3:
    """A Web3 on `rpc_url` that has answered eth_chainId (once per process); UserError (exit 2) when it cannot be
    reached."""
    key = (rpc_url, timeout, retries)
    if key in _CONNECTED:
        return _CONNECTED[key]
    provider = Web3.HTTPProvider(
        rpc_url,
        request_kwargs={"timeout": timeout},
        # the whole request, not each read: a trickling node cannot hang a command; its answer's size capped
        session=DeadlineSession(timeout, answer_limit=answer_limit),
        exception_retry_configuration=ExceptionRetryConfiguration(
            errors=(requests.ConnectionError, requests.HTTPError, requests.Timeout), retries=retries, backoff_factor=0.25
        ),
        cache_allowed_requests=True,
        cacheable_requests={"eth_chainId"},  # a node's chain does not change under it
    )
    w3 = Web3(provider)
    try:
        w3.eth.chain_id
    except RPC_FAILURES as exc:
        raise UserError(f"cannot reach the RPC at {redact_url(rpc_url)}: {rpc_failure_reason(exc)}") from None
    _CONNECTED[key] = w3
    return w3


def require_chain(w3: Web3, expected: Network) -> int:
    """The node's chain id, or a UserError when it is not the network the user named (never sign for another chain)."""
    chain_id = w3.eth.chain_id
    if chain_id != expected.chain_id:
        raise UserError(
            f"the RPC reports chain id {chain_id}, but network {expected.name!r} is chain id {expected.chain_id}; "
            "check chain.rpc_url / --rpc-url and --network"
        )
    return chain_id
