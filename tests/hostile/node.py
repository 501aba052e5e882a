"""A lying Ethereum node: a JSON-RPC 2.0 stand-in on 127.0.0.1 (the Ethereum JSON-RPC API's methods), for the
rows anvil cannot play: a node that reports another chain, or answers every eth_call with a 10 MB string."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tests.support.servers import JsonHandler, http_server


def abi_bool(value: bool) -> str:
    return "0x" + f"{int(value):064x}"


def abi_string(size: int) -> str:
    """An ABI-encoded `string` of `size` bytes ('a'), as a contract's eth_call answer (0x hex)."""
    words = (size + 31) // 32
    return "0x" + f"{32:064x}" + f"{size:064x}" + "61" * size + "00" * (words * 32 - size)


@contextmanager
def lying_node(chain_id: int, call_answer: str = "0x",
               logs: Callable[[dict], list | None] | None = None,
               calls: dict[str, str] | None = None, code: str = "0x6080") -> Iterator[str]:
    """A node reporting `chain_id` and answering every eth_call with `call_answer`, or `calls[its input data]`
    where given; `code` at every address; eth_getLogs answered by `logs(filter)`, a JSON-RPC error (-32005, as
    providers refuse wide ranges) for None."""
    encoded_calls = {data: json.dumps(answer).encode() for data, answer in (calls or {}).items()}
    answers = {"eth_chainId": hex(chain_id), "net_version": str(chain_id), "eth_blockNumber": "0x10",
               "eth_getCode": code, "eth_call": call_answer, "eth_getLogs": []}
    encoded = {method: json.dumps(answer).encode() for method, answer in answers.items()}  # once, not per request

    class Handler(JsonHandler):
        def do_POST(self) -> None:  # noqa: N802 (stdlib name)
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            batch = request if isinstance(request, list) else [request]
            parts: list[bytes] = []  # the answer written as it is held, never joined into one more copy
            for index, call in enumerate(batch):
                head = b'{"jsonrpc":"2.0","id":%s,' % json.dumps(call["id"]).encode()
                if call["method"] == "eth_getLogs" and logs is not None:
                    found = logs(call["params"][0])
                    answer = (b'"error":{"code":-32005,"message":"query exceeds max block range"}' if found is None
                              else b'"result":' + json.dumps(found).encode())
                    parts += [b"," if index else b"", head, answer, b"}"]
                    continue
                answer = encoded.get(call["method"], b'"0x"')
                if call["method"] == "eth_call":
                    answer = encoded_calls.get(call["params"][0].get("data", ""), answer)
                parts += [b"," if index else b"", head, b'"result":', answer, b"}"]
            if isinstance(request, list):
                parts = [b"[", *parts, b"]"]
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(sum(map(len, parts))))
            self.end_headers()
            for part in parts:
                self.wfile.write(part)

    with http_server(Handler) as url:
        yield url
