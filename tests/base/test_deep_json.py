"""JSON nested 200,000 deep, from every place mintprep reads JSON it did not write, in a process where eth-account
has raised the recursion limit to 100,000 (its py_ecc does so on import: every chain command runs so). There the C
JSON decoder followed the nesting until the C stack overflowed: a segmentation fault, measured (audit's
metadata check, a keystore). Each reader must instead refuse with its own clear error. The services are a local
HTTP server answering the deep document (standing in for a kubo node, a pinning service and a JSON-RPC node), run
in the child process with the readers; the child reports each outcome."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent('''
    import json, sys
    from pathlib import Path
    import eth_account  # noqa: F401  (py_ecc raises the recursion limit)
    assert sys.getrecursionlimit() >= 100_000, sys.getrecursionlimit()
    from mintprep.base.errors import MintprepError
    from tests.support.servers import JsonHandler, http_server

    DEEP = b"[" * 200_000 + b"]" * 200_000
    outcomes = {}

    def outcome(name, call):
        try:
            call()
            outcomes[name] = "no error"
        except (MintprepError, ValueError) as exc:
            outcomes[name] = f"{type(exc).__name__}: {str(exc)[:400]}"

    class Deep(JsonHandler):
        def answer(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))  # the request read whole: no reset
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(DEEP)))
            self.end_headers()
            self.wfile.write(DEEP)
        do_GET = do_POST = answer

    from mintprep.guards.imported_content import parse_json_document
    from mintprep.collection.token_document import metadata_errors
    from mintprep.chain.keys import load_signer
    from mintprep.ipfs.backends import KuboBackend
    from mintprep.net.http import RetryPolicy, json_object, send
    from mintprep.chain.rpc import connect

    outcome("imported document", lambda: parse_json_document(DEEP))
    outcomes["audit metadata"] = metadata_errors(DEEP)[0][0]
    keystore = Path(sys.argv[1]) / "deep.json"
    keystore.write_bytes(b"[" * 30_000 + b"]" * 30_000)
    outcome("keystore", lambda: load_signer(keystore, ask_password=lambda: "x"))
    policy = RetryPolicy(attempts=1, give_up_after=5.0)
    with http_server(Deep) as url:
        outcome("service answer", lambda: json_object(send("GET", url, policy=policy), "a pinning service"))
        outcome("kubo", lambda: KuboBackend(url, policy=policy).list_pins())
        outcome("json-rpc", lambda: connect(url, timeout=5, retries=1))
    print(json.dumps(outcomes))
''')


def test_deep_json_is_refused_everywhere_mintprep_reads_json_it_did_not_write(tmp_path):
    child = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, f"exit {child.returncode}: {child.stderr[-1500:]}"
    outcomes = json.loads(child.stdout)
    assert outcomes["imported document"] == "NotAcceptable: JSON nested deeper than 32 levels"
    assert outcomes["audit metadata"] == "JSON nested deeper than 32 levels"
    assert outcomes["keystore"].startswith("UserError: ") and "not a readable JSON keystore" in outcomes["keystore"]
    assert outcomes["service answer"].startswith("RemoteError: a pinning service: expected JSON")
    assert outcomes["kubo"].startswith("RemoteError: ") or outcomes["kubo"].startswith("KuboError: "), outcomes
    assert outcomes["json-rpc"].startswith("UserError: cannot reach the RPC") and "nested deeper" in outcomes["json-rpc"]
