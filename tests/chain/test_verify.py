"""`mintprep contract verify` and check's verification rows, against local stand-ins for Sourcify and Etherscan.

Sourcify and Etherscan cannot be reached from the tests, so two HTTP servers on 127.0.0.1 follow their documented
APIs (Sourcify APIv2: POST /v2/verify/{chainId}/{address} -> {verificationId}, GET /v2/verify/{id}, GET
/v2/contract/{chainId}/{address}; Etherscan API V2: POST/GET /v2/api?chainid=… with module=contract and
action=verifysourcecode / checkverifystatus / getsourcecode). The Sourcify stand-in really verifies: it compiles
the submitted standard-JSON input with solc-js and compares the runtime code with what the node holds.
"""

from __future__ import annotations

import json
import subprocess
import threading
import uuid
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner

from mintprep.chain.artifact import CONTRACTS_DIR, load_artifact
from mintprep.chain.check import check_collection
from mintprep.chain.verify import runtime_matches
from mintprep.cli import app
from mintprep.net.http import RetryPolicy
from mintprep.state.ledger import Ledger
from tests.chain.conftest import DeployedCollection, chain_collection
from tests.support.servers import http_server, reply_json
from tests.support.tools import require_tool

API_KEY = "etherscan-test-key-0123456789"
COMPILE = """
const solc = require('solc'); let text = ''; process.stdin.on('data', (d) => (text += d)).on('end', () => {
  const out = JSON.parse(solc.compile(text));
  const [file, name] = process.argv[1].split(':');
  const errors = (out.errors || []).filter((e) => e.severity === 'error');
  console.log(JSON.stringify(errors.length ? { error: errors[0].message } :
    { runtime: out.contracts[file][name].evm.deployedBytecode.object }));
});
"""


class Services:
    """State shared by both stand-ins: what was submitted, and what each considers verified."""

    def __init__(self, w3: Any) -> None:
        self.w3 = w3
        self.lock = threading.Lock()
        self.sourcify_jobs: dict[str, dict[str, Any]] = {}
        self.sourcify_verified: dict[str, str] = {}
        self.etherscan_jobs: dict[str, dict[str, Any]] = {}
        self.etherscan_verified: set[str] = set()
        self.submitted: list[dict[str, Any]] = []
        self.keys_seen: list[str] = []

    def sourcify_verify(self, address: str, body: dict[str, Any]) -> str:
        compiled = json.loads(subprocess.run(
            ["node", "-e", COMPILE, body["contractIdentifier"]], input=json.dumps(body["stdJsonInput"]),
            cwd=CONTRACTS_DIR, capture_output=True, text=True, check=True).stdout)
        artifact = load_artifact()
        on_chain = bytes(self.w3.eth.get_code(address))
        ok = "runtime" in compiled and runtime_matches(
            artifact.__class__(**{**artifact.__dict__, "deployed_bytecode": "0x" + compiled["runtime"]}), on_chain)
        exact = ok and compiled["runtime"] == artifact.deployed_bytecode[2:]
        return "exact_match" if exact else "match" if ok else ""


def sourcify_handler(services: Services):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def answer(self, status: int, body: dict[str, Any]) -> None:
            reply_json(self, status, body)

        def do_POST(self) -> None:  # noqa: N802
            parts = self.path.strip("/").split("/")  # v2 verify <chain> <address>
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            services.submitted.append({"service": "sourcify", **body})
            match = services.sourcify_verify(parts[3], body)
            job = str(uuid.uuid4())
            with services.lock:
                services.sourcify_jobs[job] = {"polls": 0, "match": match}
                if match:
                    services.sourcify_verified[parts[3].lower()] = match
            self.answer(202, {"verificationId": job})

        def do_GET(self) -> None:  # noqa: N802
            parts = self.path.strip("/").split("/")
            if parts[:2] == ["v2", "verify"]:
                job = services.sourcify_jobs[parts[2]]
                job["polls"] += 1
                if job["polls"] < 2:
                    return self.answer(200, {"isJobCompleted": False, "verificationId": parts[2]})
                if not job["match"]:
                    return self.answer(200, {"isJobCompleted": True, "error": {"customCode": "no_match",
                                                                               "message": "bytecode does not match"}})
                return self.answer(200, {"isJobCompleted": True, "contract": {"match": job["match"]}})
            match = services.sourcify_verified.get(parts[3].lower())
            if match is None:
                return self.answer(404, {"customCode": "not_found", "message": "contract not verified"})
            self.answer(200, {"match": match, "creationMatch": match, "runtimeMatch": match})

    return Handler


def etherscan_handler(services: Services, expected_args: dict[str, str]):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def answer(self, body: dict[str, Any]) -> None:
            reply_json(self, 200, body)

        def fields(self) -> dict[str, str]:
            query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
            if self.command == "POST":
                form = self.rfile.read(int(self.headers["Content-Length"])).decode()
                query.update({k: v[0] for k, v in parse_qs(form).items()})
            return query

        def do_POST(self) -> None:  # noqa: N802
            f = self.fields()
            services.keys_seen.append(f.get("apikey", ""))
            if f.get("apikey") != API_KEY:
                return self.answer({"status": "0", "message": "NOTOK", "result": "Invalid API Key"})
            services.submitted.append({"service": "etherscan", **f})
            good = all(f.get(k) == v for k, v in expected_args.items()) and f["chainid"] == "8453"
            guid = uuid.uuid4().hex
            services.etherscan_jobs[guid] = {"polls": 0, "good": good, "address": f["contractaddress"]}
            self.answer({"status": "1", "message": "OK", "result": guid})

        def do_GET(self) -> None:  # noqa: N802
            f = self.fields()
            services.keys_seen.append(f.get("apikey", ""))
            if f["action"] == "checkverifystatus":
                job = services.etherscan_jobs[f["guid"]]
                job["polls"] += 1
                if job["polls"] < 2:
                    return self.answer({"status": "0", "message": "NOTOK", "result": "Pending in queue"})
                if job["good"]:
                    services.etherscan_verified.add(job["address"].lower())
                    return self.answer({"status": "1", "message": "OK", "result": "Pass - Verified"})
                return self.answer({"status": "0", "message": "NOTOK", "result": "Fail - Unable to verify"})
            source = "{...}" if f["address"].lower() in services.etherscan_verified else ""
            self.answer({"status": "1", "message": "OK", "result": [{"SourceCode": source, "ContractName": ""}]})

    return Handler


@pytest.fixture
def services(deployed_collection: DeployedCollection, monkeypatch):
    require_tool("node", "Node.js runs solc-js in the Sourcify stand-in")
    monkeypatch.setattr("mintprep.chain.verify.POLL_S", 0.0)
    monkeypatch.setenv("ETHERSCAN_API_KEY", API_KEY)
    state = Services(deployed_collection.chain.w3)
    d = deployed_collection
    tx = d.chain.w3.eth.get_transaction(d.deployed.tx_hash)
    constructor = bytes(tx["input"]).hex()[len(load_artifact().bytecode) - 2:]
    expected = {"codeformat": "solidity-standard-json-input", "contractname": "MintprepDrop.sol:MintprepDrop",
                "compilerversion": "v0.8.37+commit.f401782d", "constructorArguements": constructor,
                "contractaddress": d.deployed.address}
    with http_server(sourcify_handler(state)) as sourcify, http_server(etherscan_handler(state, expected)) as etherscan:
        col = chain_collection(d.col.base_dir, d.chain.node.url, contract=d.deployed.address,
                               verify={"sourcify_url": sourcify, "etherscan_url": etherscan + "/v2/api"})
        yield state, col, constructor


def test_verify_submits_the_exact_input_to_both_and_check_reports_it(services, deployed_collection):
    state, col, constructor = services
    with Ledger.open(col.state_dir, readonly=True) as ledger:
        before = check_collection(col, ledger)
    assert before.row("verified_sourcify").on_chain == "not verified (not verified)"
    assert before.row("verified_etherscan").on_chain.startswith("not verified")
    assert before.ok, "an unverified drop is shown, not a mismatch"

    result = CliRunner().invoke(app, ["contract", "verify", str(col.path), "--json"])
    assert result.exit_code == 0, result.output
    outcomes = {o["service"]: o for o in json.loads(result.stdout)}
    assert outcomes["sourcify"] == {"service": "sourcify", "verified": True, "detail": "exact_match"}
    assert outcomes["etherscan"] == {"service": "etherscan", "verified": True, "detail": "Pass - Verified"}
    sourcify, etherscan = state.submitted
    assert sourcify["compilerVersion"] == "0.8.37+commit.f401782d"
    assert sourcify["creationTransactionHash"] == deployed_collection.deployed.tx_hash
    assert json.loads(etherscan["sourceCode"]) == sourcify["stdJsonInput"], "the same input to both"
    assert set(sourcify["stdJsonInput"]["sources"]) == set(load_artifact().sources)
    assert API_KEY not in result.output

    with Ledger.open(col.state_dir, readonly=True) as ledger:
        after = check_collection(col, ledger)
    assert after.row("verified_sourcify").on_chain == "verified (exact_match)"
    assert after.row("verified_etherscan").on_chain == "verified (verified)"


def test_a_rejected_verification_exits_1_and_an_unreachable_service_is_shown_not_fatal(services, deployed_collection,
                                                                                       monkeypatch):
    monkeypatch.setattr("mintprep.chain.verify.SERVICE_POLICY", RetryPolicy(attempts=1, timeout=2))
    state, col, _ = services
    state.sourcify_verify = lambda address, body: ""  # the stand-in's compiler "disagrees"
    result = CliRunner().invoke(app, ["contract", "verify", str(col.path), "--only", "sourcify"])
    assert result.exit_code == 1 and "bytecode does not match" in result.stderr
    down = chain_collection(col.base_dir, deployed_collection.chain.node.url, contract=deployed_collection.deployed.address,
                            verify={"sourcify_url": "http://127.0.0.1:9", "etherscan_url": "http://127.0.0.1:9/v2/api"})
    with Ledger.open(down.state_dir, readonly=True) as ledger:
        report = check_collection(down, ledger)
    assert report.ok and report.row("verified_sourcify").on_chain.startswith("unknown: ")
