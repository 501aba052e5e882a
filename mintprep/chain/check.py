"""Config versus chain: does the deployed drop say what collection.yaml and the ledger say?

`compare_drop` reads the contract and compares it with an `ExpectedDrop`; `check_collection` builds that
expectation from a collection and its ledger. A field is a mismatch (ok False), agrees (ok True) or is only
shown (ok None: nothing to compare it with, or not readable because an earlier row failed).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any, Callable

from web3 import Web3
from web3.contract import Contract
from web3.exceptions import BadFunctionCallOutput, ContractLogicError

from mintprep.chain.artifact import load_artifact
from mintprep.chain.costs import MintCost, describe_estimate_failure, estimate_mint_cost
from mintprep.chain.deploy import deployed_address
from mintprep.chain.networks import Network
from mintprep.chain.rpc import RPC_FAILURES, connect, describe_failure, redact_url
from mintprep.chain.settings import WEI_PER_ETH
from mintprep.config import Collection
from mintprep.contract import find_contract
from mintprep.errors import UserError
from mintprep.ledger import Ledger
from mintprep.manifest import base_uri_for

# Fields whose disagreement means the page would show or charge something the config does not say.
COMPARED_FIELDS = ("chain_id", "code", "mint_price", "max_per_wallet", "max_supply", "owner", "base_uri")


@dataclass(frozen=True)
class ExpectedDrop:
    network: Network
    address: str
    mint_price_wei: int
    max_per_wallet: int
    max_supply: int
    owner: str | None  # None: nothing to compare (no owner configured, no deployment recorded)
    base_uri: str | None  # None: no metadata pinned yet


@dataclass(frozen=True)
class CheckRow:
    field: str
    expected: str | None
    on_chain: str | None
    ok: bool | None
    fix: str | None = None  # the owner call that makes the chain agree with the config

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CheckReport:
    rpc_url: str  # redacted
    address: str
    rows: tuple[CheckRow, ...]
    mint_cost: MintCost | None
    mint_cost_note: str | None = None

    @property
    def mismatches(self) -> list[str]:
        return [row.field for row in self.rows if row.ok is False]

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def row(self, field: str) -> CheckRow:
        return next(row for row in self.rows if row.field == field)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "rpc_url": self.rpc_url,
            "address": self.address,
            "mismatches": self.mismatches,
            "rows": [row.to_json() for row in self.rows],
            "mint_cost": self.mint_cost.to_json() if self.mint_cost else None,
            "mint_cost_note": self.mint_cost_note,
        }


def format_wei(wei: int) -> str:
    eth = (Decimal(wei) / WEI_PER_ETH).normalize()
    return f"{wei} wei ({eth:f} ETH)"


def _row(field: str, expected: Any, on_chain: Any, show: Callable[[Any], str] = str, fix: str | None = None) -> CheckRow:
    if expected is None:
        return CheckRow(field, None, show(on_chain), None)
    ok = expected == on_chain
    return CheckRow(field, show(expected), show(on_chain), ok, None if ok else fix)


def _read(contract: Contract, name: str) -> Any:
    return getattr(contract.functions, name)().call()


def compare_drop(w3: Web3, rpc_url: str, expected: ExpectedDrop) -> CheckReport:
    """Read the drop at `expected.address` and compare every field; RPC failures raise UserError (exit 2)."""
    try:
        return _compare(w3, rpc_url, expected)
    except RPC_FAILURES as exc:
        raise UserError(f"the RPC at {redact_url(rpc_url)} failed during the check: {describe_failure(exc)}") from None


def _compare(w3: Web3, rpc_url: str, expected: ExpectedDrop) -> CheckReport:
    chain_id = w3.eth.chain_id
    rows = [_row("chain_id", expected.network.chain_id, chain_id, fix=f"point chain.rpc_url at {expected.network.name}")]
    code = w3.eth.get_code(expected.address)
    rows.append(
        CheckRow("code", "contract code", f"{len(code)} bytes" if code else "none", bool(code),
                 None if code else "deploy with `mintprep contract deploy`, or fix chain.contract")
    )
    report = dict(rpc_url=redact_url(rpc_url), address=expected.address)
    if not code:
        skipped = [CheckRow(f, None, "not read: no code at the address", None) for f in COMPARED_FIELDS[2:]]
        return CheckReport(**report, rows=tuple(rows + skipped), mint_cost=None, mint_cost_note="no contract")
    drop = w3.eth.contract(address=expected.address, abi=load_artifact().abi)
    try:
        price = _read(drop, "mintPrice")
        rows += [
            _row("mint_price", expected.mint_price_wei, price, format_wei,
                 f"correct chain.mint_price, or if the config is right call setMintPrice({expected.mint_price_wei})"),
            _row("max_per_wallet", expected.max_per_wallet, _read(drop, "maxPerWallet"),
                 fix=f"correct chain.max_per_wallet, or if the config is right call "
                     f"setMaxPerWallet({expected.max_per_wallet})"),
            _row("max_supply", expected.max_supply, _read(drop, "maxSupply"),
                 fix="maxSupply is immutable: redeploy, or set `size` to the deployed supply"),
            _row("owner", expected.owner, _read(drop, "owner"), fix="transferOwnership from the current owner"),
            _row("base_uri", expected.base_uri, _read(drop, "baseURI"),
                 fix="`mintprep contract set-base-uri` (or --print for a multisig)"),
            _row("total_minted", None, _read(drop, "totalMinted")),
        ]
    except (ContractLogicError, BadFunctionCallOutput) as exc:
        # Code is there but it does not answer MintprepDrop's views: some other contract.
        rows.append(CheckRow("interface", "MintprepDrop views", f"call failed ({type(exc).__name__})", False,
                             "chain.contract does not point at a MintprepDrop"))
        return CheckReport(**report, rows=tuple(rows), mint_cost=None, mint_cost_note="not a MintprepDrop")
    try:
        return CheckReport(**report, rows=tuple(rows), mint_cost=estimate_mint_cost(w3, drop, price))
    except (*RPC_FAILURES, ContractLogicError) as exc:
        # The estimate is shown beside the price; failing it (sold out, node without state overrides) is no drift.
        return CheckReport(**report, rows=tuple(rows), mint_cost=None, mint_cost_note=describe_estimate_failure(exc))


def expected_drop(col: Collection, ledger: Ledger | None, network: Network) -> ExpectedDrop:
    """What the chain should say, from collection.yaml plus the ledger's deployment and current metadata root."""
    chain = col.spec.chain
    address = deployed_address(col, ledger, network)
    deployment = ledger.latest_deployment(network.chain_id) if ledger else None
    manifest = ledger.current_manifest() if ledger else None
    return ExpectedDrop(
        network=network,
        address=address,
        mint_price_wei=chain.mint_price_wei,
        max_per_wallet=chain.max_per_wallet,
        max_supply=col.spec.size,
        owner=chain.owner or (deployment.deployer if deployment and deployment.address == address else None),
        base_uri=base_uri_for(manifest.metadata_root) if manifest else None,
    )


def check_collection(col: Collection, ledger: Ledger | None, rpc_url: str | None = None) -> CheckReport:
    """Compare collection.yaml (and the ledger's metadata root) with the deployed contract.

    UserError (exit 2) when there is no contract to check or the RPC cannot be reached, naming the RPC URL.
    """
    network, url = col.spec.chain.endpoint(rpc_url=rpc_url)
    expected = expected_drop(col, ledger, network)
    return compare_drop(connect(url), url, expected)


def check_if_deployed(col: Collection, ledger: Ledger | None, rpc_url: str | None = None) -> CheckReport | None:
    """`check_collection` when a contract is configured (chain.contract or a recorded deployment), else None.

    For `mintprep run`: a collection with no contract yet has nothing to drift from.
    """
    network, _ = col.spec.chain.endpoint()
    return check_collection(col, ledger, rpc_url) if find_contract(col, ledger, network.chain_id) else None
