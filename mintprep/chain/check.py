"""Config versus chain: does the deployed drop say what collection.yaml and the ledger say?

`compare_drop` reads the contract and compares it with an `ExpectedDrop`; `check_collection` builds that
expectation from a collection and its ledger. A field is a mismatch (ok False), agrees (ok True) or is only
shown (ok None: nothing to compare it with, or not readable because an earlier row failed).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from web3 import Web3
from web3.contract import Contract
from web3.exceptions import BadFunctionCallOutput, ContractLogicError

from mintprep.chain.artifact import load_artifact
from mintprep.chain.costs import MintCost, describe_estimate_failure, estimate_mint_cost
from mintprep.chain.merkle import AllowlistTree, checksummed, roots_of_proofs
from mintprep.net import Network, redact_url
from mintprep.chain.phases import OnChainPhase, SalePhase, collection_phases
from mintprep.chain.amounts_text import format_time, format_wei
from mintprep.chain.rpc import RPC_FAILURES, connect, rpc_failure_reason
from mintprep.collection import (Collection, Placeholders, base_uri_for, placeholder_documents,
                                 ChainSettings)
from mintprep.state import Ledger, deployed_address
from mintprep.chain.verify import Verifier, runtime_matches, verifier_for
from mintprep.base import MintprepError, UserError

if TYPE_CHECKING:
    from mintprep.collection import Profile
    from mintprep.chain.profile.contract import ContractCall

# Fields whose disagreement means the page would show or charge something the config does not say.
COMPARED_FIELDS = ("chain_id", "code", "runtime_code", "max_supply", "owner", "base_uri", "contract_uri", "provenance_hash",
                   "royalty", "payouts", "phase_count")


@dataclass(frozen=True)
class ExpectedDrop:
    network: Network
    address: str
    max_supply: int
    owner: str | None  # None: nothing to compare (no owner configured, no deployment recorded)
    base_uri: str | None  # None: no metadata pinned yet
    contract_uri: str | None
    provenance_hash: str | None  # sha256 hex of the manifest
    phases: tuple[SalePhase, ...] = ()
    royalty: tuple[str, int] | None = None  # (receiver, bps); None: receiver unknown (owner not known)
    payouts: tuple[tuple[str, int], ...] | None = None  # None: chain.payouts not set (all to the owner at deploy)
    published_allowlists: dict[int, dict[str, Any]] = field(default_factory=dict)  # phase -> the page's files
    verifiers: tuple[tuple[str, Verifier], ...] = ()  # services asked whether the source is verified
    mints_unrevealed: bool = False  # chain.reveal: the base URI stays empty on chain until the reveal
    placeholders: "Placeholders | None" = None  # chain.reveal: tokenURI and contractURI until the reveal
    chain: ChainSettings | None = None  # another family's contract is read by the profile these settings lead to
    base_dir: Path | None = None  # where chain.abi is read from
    where: str = "chain.contract"  # where the address came from, for messages


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
    mint_costs: tuple[MintCost, ...]  # mint(1) and mint(5) in the phase open now
    mint_cost_note: str | None = None
    family: str = "mintprep-drop"  # the contract's family (mintprep.chain.profile)
    fix_calls: tuple[ContractCall, ...] = ()  # the owner's setter calls that make the chain agree (--print-tx)

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
            "mint_costs": [cost.to_json() for cost in self.mint_costs],
            "mint_cost_note": self.mint_cost_note,
            "family": self.family,
            "fix_transactions": [call.to_json() for call in self.fix_calls],
        }


def _hex32(value: bytes) -> str:
    return "0x" + bytes(value).hex()


def _row(field: str, expected: Any, on_chain: Any, show: Callable[[Any], str] = str, fix: str | None = None) -> CheckRow:
    if expected is None:
        return CheckRow(field, None, show(on_chain), None)
    ok = expected == on_chain
    return CheckRow(field, show(expected), show(on_chain), ok, None if ok else fix)


def _read(contract: Contract, name: str, *args: Any) -> Any:
    return getattr(contract.functions, name)(*args).call()


def compare_drop(w3: Web3, rpc_url: str, expected: ExpectedDrop, *, costs: bool = True) -> CheckReport:
    """Read the drop at `expected.address` and compare every field (and estimate a mint's cost, unless not
    `costs`); RPC failures raise UserError (exit 2)."""
    try:
        return _compare(w3, rpc_url, expected, costs)
    except RPC_FAILURES as exc:
        raise UserError(f"the RPC at {redact_url(rpc_url)} failed during the check: {rpc_failure_reason(exc)}") from None


def _compare(w3: Web3, rpc_url: str, expected: ExpectedDrop, costs: bool) -> CheckReport:
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
        return CheckReport(**report, rows=tuple(rows + skipped), mint_costs=(), mint_cost_note="no contract")
    artifact = load_artifact()
    same = runtime_matches(artifact, bytes(code))
    profile = None if same else _profile(w3, expected, chain_id)
    if profile is not None and profile.family != "mintprep-drop":
        return _profiled_report(w3, expected, profile, report, rows)
    rows.append(CheckRow("runtime_code", "the committed artifact's (metadata hash and immutables aside)",
                         "same" if same else "different code", same,
                         None if same else "the deployed MintprepDrop is another build than this checkout's: check "
                         "out the source it was built from (`mintprep contract verify` compares them)"))
    rows += [verification_row(v, expected.network.chain_id, expected.address) for v in expected.verifiers]
    drop = w3.eth.contract(address=expected.address, abi=artifact.abi)
    try:
        rows += _drop_rows(drop, expected)
        on_chain_phases = [OnChainPhase.from_tuple(_read(drop, "phase", i)) for i in range(_read(drop, "phaseCount"))]
    except (ContractLogicError, BadFunctionCallOutput) as exc:
        # Code is there but it does not answer MintprepDrop's views: some other contract.
        rows.append(CheckRow("interface", "MintprepDrop views", f"call failed ({type(exc).__name__})", False,
                             f"{expected.address} ({expected.where}) is no MintprepDrop, and mintprep could not read "
                             "its roles: declare them in chain.profile (docs/families.md)"))
        return CheckReport(**report, rows=tuple(rows), mint_costs=(), mint_cost_note="not a MintprepDrop")
    rows.append(_row("phase_count", len(expected.phases), len(on_chain_phases),
                     fix="make chain.phases list the deployed phases, or add one with setPhase"))
    for number, (phase, deployed) in enumerate(zip(expected.phases, on_chain_phases)):
        rows += phase_rows(number, phase, deployed, expected.published_allowlists.get(number))
    if not costs:
        return CheckReport(**report, rows=tuple(rows), mint_costs=(), mint_cost_note="not estimated")
    try:
        costs = estimate_open_phase_costs(w3, drop, expected.phases, on_chain_phases)
    except (*RPC_FAILURES, ContractLogicError) as exc:
        # The estimate is shown beside the price; failing it (sold out, node without state overrides) is no drift.
        return CheckReport(**report, rows=tuple(rows), mint_costs=(), mint_cost_note=describe_estimate_failure(exc))
    note = None if costs else "no phase is open now"
    return CheckReport(**report, rows=tuple(rows), mint_costs=costs, mint_cost_note=note)


def _profile(w3: Web3, expected: ExpectedDrop, chain_id: int) -> "Profile | None":
    """The contract's profile when collection settings are at hand and its roles can be read; None otherwise."""
    if expected.chain is None or expected.base_dir is None:
        return None
    from mintprep.base import ProfileError
    from mintprep.chain.profile import resolve_profile

    try:
        return resolve_profile(w3, expected.address, expected.chain, expected.base_dir, chain_id)
    except ProfileError:
        return None


def _profiled_report(w3: Web3, expected: ExpectedDrop, profile: "Profile", report: dict[str, Any],
                     rows: list[CheckRow]) -> CheckReport:
    """Another family's contract: its sale compared through its profile's roles (mintprep.chain.sale_check)."""
    from mintprep.chain.profile.contract import ProfiledContract
    from mintprep.chain.sale_check import sale_rows

    assert expected.chain is not None
    sale = sale_rows(ProfiledContract(w3, expected.address, profile), expected.chain, expected.max_supply)
    rows += [CheckRow(row.field, row.expected, row.on_chain, row.ok, row.fix) for row in sale]
    calls = tuple(row.call for row in sale if row.call is not None)
    return CheckReport(**report, rows=tuple(rows), mint_costs=(), family=profile.family, fix_calls=calls,
                       mint_cost_note=f"mint costs are estimated for MintprepDrop only ({profile.family})")


def verification_row(named: tuple[str, Verifier], chain_id: int, address: str) -> CheckRow:
    """Shown, never a mismatch: an unverified drop works, and a service being down says nothing about the drop."""
    service, verifier = named
    try:
        status = (verifier.sourcify_status if service == "sourcify" else verifier.etherscan_status)(chain_id, address)
        shown = f"{'verified' if status.verified else 'not verified'} ({status.detail})"
    except (MintprepError, *RPC_FAILURES) as exc:
        shown = f"unknown: {str(exc)[:200]}"
    return CheckRow(f"verified_{service}", None, shown, None)


def _drop_rows(drop: Contract, expected: ExpectedDrop) -> list[CheckRow]:
    receiver, amount = _read(drop, "royaltyInfo", 1, 10_000)
    payees = tuple((payee, _read(drop, "shares", payee)) for payee in _read(drop, "payees"))
    show_payees = lambda value: ", ".join(f"{a}: {n}" for a, n in value)  # noqa: E731
    revealed = _read(drop, "revealed")
    rows = [
        _row("max_supply", expected.max_supply, _read(drop, "maxSupply"),
             fix="maxSupply is fixed at deploy: set `size` to the deployed supply"),
        _row("owner", expected.owner, _read(drop, "owner"), fix="transferOwnership from the current owner"),
        _row("base_uri", "" if expected.mints_unrevealed and not revealed and expected.base_uri else expected.base_uri,
             _read(drop, "baseURI"),
             fix="`mintprep contract set-base-uri` (or --print for a multisig)"),
        _row("contract_uri", expected.placeholders.contract_uri if expected.placeholders and not revealed
             else expected.contract_uri, _read(drop, "contractURI"),
             fix="`mintprep contract set-base-uri` sets both URIs (or --print for a multisig)"),
        _row("provenance_hash", expected.provenance_hash and _hex32(bytes.fromhex(expected.provenance_hash)),
             _hex32(_read(drop, "provenanceHash")),
             fix="the provenance is fixed at deploy and the art changed since: restore the manifest it commits to "
                 "(`mintprep provenance` shows which tokens differ)"),
        _row("royalty", expected.royalty, (receiver, amount), lambda v: f"{v[1]} bps to {v[0]}",
             fix=f"call setDefaultRoyalty{expected.royalty}" if expected.royalty else None),
        _row("payouts", expected.payouts, payees, show_payees,
             fix="payees are fixed at deploy: correct chain.payouts to the deployed split"),
        _row("placeholder_uri", expected.placeholders.token_uri if expected.placeholders else None,
             _read(drop, "placeholderURI") or "none (minted revealed)", fix="the placeholder is fixed at deploy: "
             "restore chain.reveal and its image to what was deployed"),
        _row("paused", None, _read(drop, "paused")),
        _row("revealed", None, f"offset {_read(drop, 'startingOffset')}" if revealed else "no"),
        _row("total_minted", None, _read(drop, "totalMinted")),
    ]
    return rows


def phase_rows(number: int, phase: SalePhase, deployed: OnChainPhase,
               published: dict[str, Any] | None = None) -> list[CheckRow]:
    """Every field of one phase, then whether every listed address can prove itself against the on-chain root.

    The proofs come from the tree the page publishes (`published`, a StandardMerkleTree dump) when given, else
    from the allowlist file: either way they are checked against the root the contract holds.
    """
    wanted = phase.on_chain()
    shows: dict[str, Callable[[Any], str]] = {"start": format_time, "end": format_time, "price": format_wei,
                                               "allowlist_root": _hex32}
    fix = f"correct chain.phases.{number} ({phase.name}), or if the config is right call setPhase({number}, …)"
    rows = [_row(f"phases.{number}.{name}", getattr(wanted, name), getattr(deployed, name), shows.get(name, str), fix)
            for name in OnChainPhase.FIELDS]
    if phase.allowlist is not None:
        failing = allowlist_failures(phase, deployed.allowlist_root, published)
        listed = len(phase.allowlist)
        rows.append(CheckRow(f"phases.{number}.allowlist_proofs", f"{listed} of {listed} addresses prove",
                             f"{listed - len(failing)} of {listed} prove" + (f"; first failing: {failing[0]}" if failing else ""),
                             not failing, None if not failing else
                             "rebuild the page (`mintprep run`) so its allowlist file matches, and setPhase the root"))
    return rows


def allowlist_failures(phase: SalePhase, root: bytes, published: dict[str, Any] | None) -> list[str]:
    """Listed addresses whose proof does not lead to `root` (proofs from the published files when given).

    Every proof is checked at once (chain.merkle.roots_of_proofs): a million addresses in about 4 million hashes."""
    assert phase.allowlist is not None
    tree = phase.allowlist
    if published is not None:
        tree = published_tree(tree, published)
    reached = roots_of_proofs(tree.raw, tree.nodes, tree.leaf_index)
    expected = np.frombuffer(bytes(root), dtype=np.uint8)
    # The page refuses a published tree whose root is not the contract's, whatever the proofs say.
    failing = (reached != expected).any(axis=1) | bool((tree.nodes[0] != expected).any())
    return list(checksummed(tree.raw[failing]))


def published_tree(listed: AllowlistTree, published: dict[str, Any]) -> AllowlistTree:
    """The listed addresses with the leaf indices and nodes the site publishes, as written, not rebuilt: so a
    corrupt or missing file fails the proofs that need it (an address absent from its shard proves nothing)."""
    nodes = published["nodes"] if len(published["nodes"]) else np.zeros((1, 32), dtype=np.uint8)
    hexes = listed.raw.tobytes().hex()
    leaves = published.get("leaves", {})
    index = np.array([leaves.get("0x" + hexes[40 * i:40 * i + 40], 0) for i in range(len(listed))], dtype=np.int64)
    index[(index < 0) | (index >= len(nodes))] = 0  # index 0 is the root: an empty proof, which fails
    return AllowlistTree(listed.raw, nodes, index)


def estimate_open_phase_costs(w3: Web3, drop: Contract, phases: tuple[SalePhase, ...],
                              on_chain: list[OnChainPhase]) -> tuple[MintCost, ...]:
    """mint(1) and mint(5) (or the wallet cap, if lower) in the first phase open at the latest block."""
    now = w3.eth.get_block("latest")["timestamp"]
    for number, deployed in enumerate(on_chain):
        if not deployed.start <= now < deployed.end:
            continue
        tree = phases[number].allowlist if number < len(phases) else None
        buyer = tree.addresses[0] if tree else None
        proof = tree.proof(buyer) if tree and buyer else []
        return tuple(estimate_mint_cost(w3, drop, number, quantity, deployed.price, buyer, proof)
                     for quantity in sorted({1, min(5, deployed.max_per_wallet)}))
    return ()


def expected_drop(col: Collection, ledger: Ledger | None, network: Network) -> ExpectedDrop:
    """What the chain should say, from collection.yaml plus the ledger's deployment and current metadata root."""
    chain = col.spec.chain
    address = deployed_address(col, ledger, network)
    deployment = ledger.latest_deployment(network.chain_id) if ledger else None
    manifest = ledger.current_manifest() if ledger else None
    owner = chain.owner or (deployment.deployer if deployment and deployment.address == address else None)
    royalty_receiver = chain.royalty_receiver or owner
    phases = tuple(collection_phases(col))
    return ExpectedDrop(
        network=network,
        address=address,
        max_supply=col.spec.size,
        owner=owner,
        base_uri=base_uri_for(manifest.metadata_root) if manifest else None,
        contract_uri=(manifest.manifest.contract_uri or None) if manifest else None,  # empty: an imported directory
        # Compared only for a fair reveal, where it is the promise; otherwise a repaired image may change it.
        provenance_hash=manifest.provenance_hash if manifest and chain.reveal else None,
        phases=phases,
        royalty=_expected_royalty(chain.royalty_bps, royalty_receiver),
        # The default payee is whoever owned the drop at deploy; only a configured split is compared.
        payouts=tuple(chain.payouts.items()) or None,
        published_allowlists=read_published_allowlists(col, phases),
        verifiers=_verifiers(chain),
        # Unrevealed, the base URI stays empty until the reveal sets it (reading it earlier would show the art).
        mints_unrevealed=chain.reveal is not None,
        placeholders=placeholder_documents(col) if chain.reveal is not None else None,
        chain=chain,
        base_dir=col.base_dir,
        where="chain.contract" if chain.contract else "recorded in the ledger by `import` or `contract deploy`",
    )


def _verifiers(chain: Any) -> tuple[tuple[str, Verifier], ...]:
    if chain.verify is None:
        return ()
    verifier = verifier_for(chain.verify)
    named: tuple[tuple[str, Verifier], ...] = (("sourcify", verifier),)
    return named + ((("etherscan", verifier),) if verifier.etherscan_api_key else ())


def _expected_royalty(bps: int, receiver: str | None) -> tuple[str, int] | None:
    if bps == 0:
        return ("0x" + "00" * 20, 0)  # what ERC2981.royaltyInfo answers with no default royalty
    return (receiver, bps) if receiver else None


def read_published_allowlists(col: Collection, phases: tuple[SalePhase, ...]) -> dict[int, dict[str, Any]]:
    """The allowlist trees the built page serves to buyers, by phase number (none when no page is built)."""
    from mintprep.chain.allowlist_site import read_site_allowlist  # the page serves these files; check reads them back

    found = {}
    for number, phase in enumerate(phases):
        if phase.allowlist is not None:
            files = read_site_allowlist(col.page_dir, number)
            if files is not None:
                found[number] = files
    return found


def check_collection(col: Collection, ledger: Ledger | None, rpc_url: str | None = None, *,
                     costs: bool = True) -> CheckReport:
    """Compare collection.yaml (and the ledger's metadata root) with the deployed contract (`costs`: with a
    mint's estimated cost, which audit does not show).

    UserError (exit 2) when there is no contract to check or the RPC cannot be reached, naming the RPC URL.
    """
    network, url = col.spec.chain.endpoint(rpc_url=rpc_url)
    expected = expected_drop(col, ledger, network)
    return compare_drop(connect(url), url, expected, costs=costs)
