"""Verified source: the exact solc standard-JSON input submitted to Sourcify (APIv2) and Etherscan (API V2), and
whether the code deployed at an address is the committed artifact's.

Sourcify: POST {sourcify}/v2/verify/{chainId}/{address} {stdJsonInput, compilerVersion, contractIdentifier,
creationTransactionHash} answers {verificationId}; GET {sourcify}/v2/verify/{id} answers {isJobCompleted,
contract: {match}, error?}; GET {sourcify}/v2/contract/{chainId}/{address} answers {match} (404: never verified).
Etherscan V2 (one endpoint for every chain, `chainid` selects Base 8453 / Base Sepolia 84532): POST
module=contract&action=verifysourcecode (codeformat solidity-standard-json-input) answers {status, result: guid};
GET action=checkverifystatus&guid= answers "Pending in queue" / "Pass - Verified" / "Fail - …";
GET action=getsourcecode&address= answers [{SourceCode, …}] (empty SourceCode: not verified).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from mintprep.chain.artifact import CONTRACTS_DIR, Artifact
from mintprep.base import RemoteError, UserError, secret_from_env
from mintprep.net import RetryPolicy, json_object, send

if TYPE_CHECKING:
    from mintprep.collection import Collection
    from mintprep.state import Ledger

POLL_S = 3.0
SERVICE_POLICY = RetryPolicy(attempts=3, timeout=30.0)
POLL_ATTEMPTS = 40  # two minutes at the default interval
# solc's metadata (CBOR, with the IPFS hash of the metadata JSON) ends the runtime code; its length is the last
# two bytes. It changes with comments and paths, not with behaviour, so the code comparison leaves it out.
_CBOR_LENGTH_BYTES = 2


def compiler_version(artifact: Artifact) -> str:
    """"0.8.37+commit.f401782d" (solc-js reports ".Emscripten.clang" after it; the services want it without)."""
    return artifact.compiler.split(".Emscripten")[0]


def contract_identifier(artifact: Artifact) -> str:
    source = next(iter(artifact.sources))
    return f"{source}:{artifact.contract_name}"


def standard_json_input(artifact: Artifact, contracts_dir: Path = CONTRACTS_DIR) -> dict[str, Any]:
    """The compile input with every source inlined, each checked against the sha256 the artifact recorded.

    UserError when a file is missing or differs: the input would not reproduce the deployed code.
    """
    sources = {}
    for name, digest in artifact.sources.items():
        path = contracts_dir / name if (contracts_dir / name).is_file() else contracts_dir / "node_modules" / name
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            raise UserError(f"{name}: not found under {contracts_dir} (run `npm ci --prefix {contracts_dir}`)") from None
        if hashlib.sha256(text.encode()).hexdigest() != digest:
            raise UserError(f"{path} differs from the file the artifact was compiled from; run `mintprep contract build`")
        sources[name] = {"content": text}
    settings = {**artifact.settings,
                "outputSelection": {"*": {"*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"]}}}
    return {"language": "Solidity", "sources": sources, "settings": settings}


def without_metadata(code: bytes) -> bytes:
    if len(code) < _CBOR_LENGTH_BYTES:
        return code
    length = int.from_bytes(code[-_CBOR_LENGTH_BYTES:], "big") + _CBOR_LENGTH_BYTES
    return code[:-length] if length <= len(code) else code


def runtime_matches(artifact: Artifact, deployed: bytes) -> bool:
    """Deployed runtime code == the artifact's, with immutables (filled in by the constructor) and the metadata
    hash left out."""
    expected = bytearray(bytes.fromhex(artifact.deployed_bytecode[2:]))
    code = bytearray(deployed)
    if len(code) != len(expected):
        return False
    for ref in artifact.immutable_references:
        start, end = ref["start"], ref["start"] + ref["length"]
        code[start:end] = expected[start:end]
    return without_metadata(bytes(code)) == without_metadata(bytes(expected))


@dataclass(frozen=True)
class VerifyOutcome:
    service: str  # "sourcify" or "etherscan"
    verified: bool
    detail: str  # the service's own words: "exact_match", "Pass - Verified", "Fail - …"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Verifier:
    sourcify_url: str
    etherscan_url: str
    etherscan_api_key: str | None
    policy: RetryPolicy = RetryPolicy()
    sleep: Callable[[float], None] = time.sleep
    poll_s: float = POLL_S

    # -- Sourcify -------------------------------------------------------------------------------------

    def sourcify_status(self, chain_id: int, address: str) -> VerifyOutcome:
        response = send("GET", f"{self.sourcify_url}/v2/contract/{chain_id}/{address}", policy=self.policy,
                        sleep=self.sleep, ok_status=lambda s: s < 400 or s == 404)
        if response.status_code == 404:
            return VerifyOutcome("sourcify", False, "not verified")
        match = json_object(response, "Sourcify contract lookup").get("match")
        return VerifyOutcome("sourcify", match in ("exact_match", "match"), str(match or "not verified"))

    def submit_sourcify(self, chain_id: int, address: str, artifact: Artifact, std_input: dict[str, Any],
                        creation_tx: str | None) -> VerifyOutcome:
        body = {"stdJsonInput": std_input, "compilerVersion": compiler_version(artifact),
                "contractIdentifier": contract_identifier(artifact)}
        if creation_tx:
            body["creationTransactionHash"] = creation_tx
        response = send("POST", f"{self.sourcify_url}/v2/verify/{chain_id}/{address}", json=body,
                        policy=self.policy, sleep=self.sleep, ok_status=lambda s: s < 400 or s == 409)
        if response.status_code == 409:  # "already verified"
            return self.sourcify_status(chain_id, address)
        job = json_object(response, "Sourcify verify").get("verificationId")
        if not isinstance(job, str):
            raise RemoteError("Sourcify answered the verification without a verificationId")
        for _ in range(POLL_ATTEMPTS):
            answer = json_object(send("GET", f"{self.sourcify_url}/v2/verify/{job}", policy=self.policy,
                                      sleep=self.sleep), "Sourcify job")
            if answer.get("isJobCompleted"):
                if answer.get("error"):
                    return VerifyOutcome("sourcify", False, str(answer["error"].get("message", answer["error"]))[:300])
                match = (answer.get("contract") or {}).get("match")
                return VerifyOutcome("sourcify", match in ("exact_match", "match"), str(match))
            self.sleep(self.poll_s)
        raise RemoteError(f"Sourcify job {job} did not complete after {POLL_ATTEMPTS} polls")

    # -- Etherscan ------------------------------------------------------------------------------------

    def _etherscan(self, method: str, chain_id: int, what: str, **fields: str) -> dict[str, Any]:
        if not self.etherscan_api_key:
            raise UserError("Etherscan needs an API key: set the variable chain.verify.etherscan_api_key_env names")
        query = {"chainid": str(chain_id), "apikey": self.etherscan_api_key}
        # The key travels as a parameter, never in the URL mintprep prints in errors.
        if method == "POST":
            response = send("POST", self.etherscan_url, params={"chainid": str(chain_id)},
                            data={**fields, "apikey": self.etherscan_api_key}, policy=self.policy, sleep=self.sleep)
        else:
            response = send("GET", self.etherscan_url, params={**query, **fields}, policy=self.policy, sleep=self.sleep)
        return json_object(response, what)

    def etherscan_status(self, chain_id: int, address: str) -> VerifyOutcome:
        answer = self._etherscan("GET", chain_id, "Etherscan getsourcecode", module="contract",
                                 action="getsourcecode", address=address)
        result = answer.get("result")
        source = result[0].get("SourceCode") if isinstance(result, list) and result and isinstance(result[0], dict) else ""
        return VerifyOutcome("etherscan", bool(source), "verified" if source else "not verified")

    def submit_etherscan(self, chain_id: int, address: str, artifact: Artifact, std_input: dict[str, Any],
                         constructor_args: str) -> VerifyOutcome:
        answer = self._etherscan(
            "POST", chain_id, "Etherscan verifysourcecode", module="contract", action="verifysourcecode",
            codeformat="solidity-standard-json-input", sourceCode=json.dumps(std_input), contractaddress=address,
            contractname=contract_identifier(artifact), compilerversion="v" + compiler_version(artifact),
            constructorArguements=constructor_args.removeprefix("0x"),  # sic: Etherscan's spelling
        )
        guid = answer.get("result")
        if str(answer.get("status")) != "1" or not isinstance(guid, str):
            if "already verified" in str(guid).lower():
                return VerifyOutcome("etherscan", True, str(guid))
            return VerifyOutcome("etherscan", False, str(guid)[:300])
        for _ in range(POLL_ATTEMPTS):
            status = str(self._etherscan("GET", chain_id, "Etherscan checkverifystatus", module="contract",
                                         action="checkverifystatus", guid=guid).get("result"))
            if not status.lower().startswith("pending"):
                return VerifyOutcome("etherscan", status.startswith("Pass") or "already verified" in status.lower(),
                                     status[:300])
            self.sleep(self.poll_s)
        raise RemoteError(f"Etherscan verification {guid} still pending after {POLL_ATTEMPTS} polls")


def verifier_for(settings: Any) -> Verifier:
    """A Verifier from chain.verify (URLs and the name of the variable holding the Etherscan key)."""
    key = secret_from_env(settings.etherscan_api_key_env)  # registered before any request can carry it
    return Verifier(settings.sourcify_url.rstrip("/"), settings.etherscan_url, key, policy=SERVICE_POLICY,
                    poll_s=POLL_S)


def verify_collection(col: "Collection", ledger: "Ledger", services: tuple[str, ...] = ("sourcify", "etherscan"),
                      verifier: Verifier | None = None) -> list[VerifyOutcome]:
    """Submit the collection's deployed drop to each service and wait for its verdict.

    The constructor arguments come from the deploy transaction the ledger recorded (its input after the
    creation code), so they are exactly what was deployed.
    """
    from mintprep.chain.artifact import load_artifact
    from mintprep.chain.rpc import require_chain
    from mintprep.state import deployed_address
    from mintprep.chain.rpc import connect
    from mintprep.collection import VerifySettings

    network, url = col.spec.chain.endpoint()
    address = deployed_address(col, ledger, network)
    deployment = ledger.latest_deployment(network.chain_id)
    if deployment is None or deployment.address != address or not deployment.tx_hash:
        raise UserError(f"{col.path}: the ledger holds no deploy transaction for {address}; verify needs it for the "
                        "constructor arguments (deploy with `mintprep contract deploy`)")
    artifact = load_artifact()
    w3 = connect(url)
    chain_id = require_chain(w3, network)
    if not runtime_matches(artifact, bytes(w3.eth.get_code(address))):
        raise UserError(f"{address}: the deployed code is not the committed artifact's; verifying it would fail")
    creation = bytes(w3.eth.get_transaction(deployment.tx_hash)["input"]).hex()
    bytecode = artifact.bytecode.removeprefix("0x")
    if not creation.startswith(bytecode):
        raise UserError(f"deploy transaction {deployment.tx_hash} did not create the committed artifact")
    std_input = standard_json_input(artifact)
    verifier = verifier or verifier_for(col.spec.chain.verify or VerifySettings())
    outcomes = []
    if "sourcify" in services:
        outcomes.append(verifier.submit_sourcify(chain_id, address, artifact, std_input, deployment.tx_hash))
    if "etherscan" in services:
        outcomes.append(verifier.submit_etherscan(chain_id, address, artifact, std_input, creation[len(bytecode):]))
    return outcomes
