"""A collection's contract read and set through its profile: minted ids, token URIs, the base they share, and the
calls that point tokens at new metadata (the family's own setter, simulated from the account that may call it).

One class for every family: what differs is which roles the profile binds. The two shapes that need code are
here too: thirdweb's batches (each range of ids its own base, `updateBatchBaseURI(index, base)`) and Zora's
renderer (the base lives on the renderer, and the setter is sent there, naming the collection)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from web3 import Web3
from web3.contract import Contract

from mintprep.collection import ROLES, Profile, abi_fragment, argument_types
from mintprep.chain.reveal import metadata_id
from mintprep.chain.reads import checked_supply, checked_token_id, checked_token_uri, enumerated_ids, transfer_logs
from mintprep.chain.rpc import RPC_FAILURES

ZERO_TOPIC = "0x" + "00" * 32
# What a URI setter leaves as it was: ids, supply, holders, who administers the contract.
ID_ROLES = frozenset({"max_supply", "total_supply", "total_minted", "next_id", "token_by_index", "owner_of", "owner",
                      "batch_count", "batch_id_at", "renderer"})


@dataclass(frozen=True)
class ContractCall:
    """One transaction a repair needs: what a Safe or hardware wallet is given under --print-tx."""

    to: str
    data: str
    function: str  # its signature, e.g. setUriPrefix(string)
    args: tuple[Any, ...]
    role: str = "set_base_uri"  # which URI setter (mintprep.collection.contract_roles.URI_SETTERS)
    value: int = 0
    bound: Any = field(default=None, compare=False, repr=False)  # the web3 function, to send it with a key

    def to_json(self) -> dict[str, Any]:
        return {"to": self.to, "value": self.value, "data": self.data, "function": self.function,
                "args": list(self.args), "role": self.role}

    @property
    def ledger_kind(self) -> str:
        return "set-token-uri" if self.role == "set_token_uri" else "set-base-uri"

    def ledger_detail(self) -> dict[str, Any]:
        """What the ledger records of it once sent: the token and its URI, or the base (and batch) it set."""
        if self.role == "set_token_uri":
            return {"token_id": self.args[0], "uri": self.args[1]}
        if self.role == "set_batch_base_uri":
            return {"base_uri": self.args[1], "batch": self.args[0]}
        return {"base_uri": self.args[1] if self.role == "set_renderer_base" else self.args[0]}


@dataclass(frozen=True)
class Batch:
    """thirdweb: ids start..end-1 share `base` (tokenURI = base + id); `index` is what updateBatchBaseURI takes."""

    index: int
    start: int
    end: int
    base: str | None  # None: an encrypted batch (its tokens show a placeholder until revealed)
    frozen: bool


def role_abi(role: str, signature: str) -> dict[str, Any]:
    """The ABI fragment of `signature` in `role` (a read answers the role's type; a call answers nothing)."""
    return abi_fragment(signature, ROLES[role].answers)


def bound_contract(w3: Web3, address: str, roles: dict[str, str]) -> Contract:
    abi = {signature: role_abi(role, signature) for role, signature in roles.items()}
    return w3.eth.contract(address=Web3.to_checksum_address(address), abi=list(abi.values()))


@dataclass
class ProfiledContract:
    """The contract at `address`, read and set through `profile`."""

    w3: Web3
    address: str
    profile: Profile
    _holders: dict[int, str] = field(default_factory=dict, init=False, repr=False)  # from Transfer events read
    _minted: list[int] | None = field(default=None, init=False, repr=False)
    # Views already answered: one read of the contract per command (a new instance reads again).
    _answers: dict[tuple[Any, ...], Any] = field(default_factory=dict, init=False, repr=False)

    @property
    def name(self) -> str:
        return self.profile.family

    @cached_property
    def contract(self) -> Contract:
        return bound_contract(self.w3, self.address,
                              {r: s for r, s in self.profile.roles.items() if ROLES[r].on == "contract"})

    @cached_property
    def renderer(self) -> Contract | None:
        if self.profile.uri_form != "renderer":
            return None
        address = self.read("renderer")
        return bound_contract(self.w3, address, {r: s for r, s in self.profile.roles.items()
                                                 if ROLES[r].on == "renderer"})

    def function(self, role: str, *args: Any) -> Any:
        target = self.renderer if ROLES[role].on == "renderer" else self.contract
        assert target is not None
        return target.get_function_by_signature(self.profile.roles[role])(*args)

    def read(self, role: str, *args: Any) -> Any:
        """The role's answer (KeyError when the profile has no such role), read once per instance."""
        key = (role, *args)
        if key not in self._answers:
            self._answers[key] = self.function(role, *args).call()
        return self._answers[key]

    def read_or(self, role: str, default: Any, *args: Any) -> Any:
        """The role's answer, or `default` when the contract has no such role or it reverts."""
        if role not in self.profile.roles:
            return default
        try:
            return self.read(role, *args)
        except RPC_FAILURES:
            return default

    # -- who may change URIs -------------------------------------------------------------------------

    def owner(self) -> str | None:
        owner = self.read_or("owner", None)
        return None if owner is None else str(owner)

    # -- which ids exist and which are minted -----------------------------------------------------------

    def minted_ids(self) -> list[int]:
        """Ids that exist now (read once per instance): MintprepDrop's 1..totalMinted; an ERC721Enumerable's list;
        else Transfer events (minted from the zero address and not burned to it)."""
        if self._minted is None:
            self._minted = self._read_minted_ids()
        return list(self._minted)

    def _read_minted_ids(self) -> list[int]:
        if self.profile.family == "mintprep-drop":
            return list(range(1, int(self.read("total_minted")) + 1))
        holders: dict[int, str] = {}
        for log in self._transfer_logs():
            if len(log["topics"]) != 4:
                continue  # an ERC-20-style Transfer (id not indexed): not an ERC-721 mint
            token_id = checked_token_id(int.from_bytes(bytes(log["topics"][3]), "big"),
                                        f"{self.address} (Transfer in block {log.get('blockNumber')})")
            holders[token_id] = Web3.to_checksum_address(bytes(log["topics"][2])[-20:])
            if bytes(log["topics"][2]).hex() == ZERO_TOPIC[2:]:
                del holders[token_id]  # burned
        self._holders = holders
        if "token_by_index" in self.profile.roles:  # an enumeration is believed only where its history agrees
            return enumerated_ids(int(self.read("total_supply")), sorted(holders),
                                  lambda index: int(self.read("token_by_index", index)), self.address)
        return sorted(holders)

    def holders(self, minted: list[int]) -> dict[int, str]:
        """Who holds each minted token: from the Transfer events already read, else ownerOf per token."""
        return {t: self._holders[t] if t in self._holders else str(self.read("owner_of", t)) for t in minted}

    def sold_ids(self, minted: list[int]) -> tuple[list[int], str | None]:
        """The minted tokens held by a wallet other than the collection's owner (a token the creator minted to
        itself, a team reserve, is repaired like an unminted one), and the owner they were told apart from (None:
        no owner, every minted token counts as sold)."""
        owner = self.owner()
        if owner is None or int(owner, 16) == 0 or not minted:
            return list(minted), owner
        holders = self.holders(minted)
        return [t for t in minted if holders[t].lower() != owner.lower()], owner

    def _transfer_logs(self) -> list[Any]:
        """Every Transfer log since the contract's creation (mintprep.chain.reads: ranges, filter, deadline)."""
        head = self.w3.eth.block_number
        return transfer_logs(self.w3, self.address, deployment_block(self.w3, self.address, head), head)

    def first_id(self, minted: list[int]) -> int:
        if self.profile.first_id is not None:
            return self.profile.first_id
        return min(minted) if minted else 0

    def served_ids(self, minted: list[int], size: int) -> list[int]:
        """Every id the contract will serve: its batches' ids, first..max supply, or up to the next id to mint;
        `size` ids from the first where the contract does not say (an ERC721A without a max supply)."""
        if self.profile.uri_form == "batches":
            return sorted({t for b in self.batches() for t in range(b.start, b.end)} | set(minted))
        if self.profile.uri_form == "per-token":
            return list(minted)
        first = self.first_id(minted)
        last = self.read_or("max_supply", None)
        if last is None and (next_id := self.read_or("next_id", None)) is not None:
            last = int(next_id) - first
        count = checked_supply(int(last), self.address) if last else size
        return sorted(set(range(first, first + count)) | set(minted))

    # -- how URIs are formed ----------------------------------------------------------------------------

    def token_uri(self, token_id: int) -> str:
        return checked_token_uri(token_id, self.read("token_uri", token_id))

    @cached_property
    def token_suffix(self) -> str | None:
        """File name of id N in the metadata directory: f"{N}{suffix}"; None: per-token URIs."""
        if self.profile.uri_form == "per-token":
            return None
        if self.profile.family == "mintprep-drop":
            return ".json"
        if self.profile.uri_form == "renderer":
            return str(self._renderer_base()[1])
        suffix = self.read_or("uri_suffix", None)
        if suffix is not None:
            return str(suffix)
        if self.profile.uri_form == "batches":
            return ""
        for token_id in (0, 1):  # what follows the id in tokenURI, read off the first of ids 0 and 1 that exists
            try:
                uri = self.token_uri(token_id)
            except RPC_FAILURES:
                continue
            return ".json" if uri.endswith(f"{token_id}.json") else ""
        return ""

    def revealed(self) -> bool:
        """False while tokens show a placeholder: not revealed, and a placeholder set (MintprepDrop minted without
        one is revealed from the start though its `revealed` stays false until a reveal)."""
        return bool(self.read_or("revealed", True)) or not self.read_or("hidden_uri", "x")

    def base_uri(self, minted: list[int]) -> str | None:
        """The base every id's URI is formed from (read, or derived from a minted token's URI); None when unknown:
        per-token URIs, a base hidden before the reveal, or batches with different bases."""
        if self.profile.uri_form == "per-token" or not self.revealed():
            return None
        if self.profile.uri_form == "renderer":
            return str(self._renderer_base()[0])
        if self.profile.uri_form == "batches":
            bases = {b.base for b in self.batches()}
            return next(iter(bases)) if len(bases) == 1 else None
        if "base_uri" in self.profile.roles:
            return str(self.read("base_uri"))
        for token_id in minted[:1]:
            uri, tail = self.token_uri(token_id), f"{token_id}{self.token_suffix or ''}"
            return uri[: -len(tail)] if uri.endswith(tail) else None
        return None

    def uri_of(self, base: str | None, token_id: int) -> str | None:
        """What tokenURI(id) will say once `token_id` is minted under `base` (None: no pattern)."""
        if self.profile.uri_form == "batches" and base is None:
            batch = self.batch_of(token_id)
            base = batch.base if batch else None
        if base is None or self.token_suffix is None:
            return None
        return f"{base}{token_id}{self.token_suffix}"

    def formed_uris(self, minted: list[int], base: str | None) -> dict[int, str] | None:
        """tokenURI of each minted id as the family forms it (base + id, or the id a fair reveal shifted it to, +
        suffix), without a call per token; None where a token may have a URI of its own (per-token, Manifold) or
        the base is not known."""
        if self.profile.uri_form != "base" or "set_token_uri" in self.profile.roles or not base \
                or self.token_suffix is None:
            return None
        shifted = "reveal_offset" in self.profile.roles and bool(self.read("revealed"))
        offset, size = (int(self.read("reveal_offset")), int(self.read("max_supply"))) if shifted else (0, 0)
        return {t: f"{base}{metadata_id(t, offset, size) if shifted else t}{self.token_suffix}" for t in minted}

    def after_uri_change(self) -> "ProfiledContract":
        """The same contract once a setter was sent: what it said of ids and holders still holds (a setter changes
        URIs only), every URI is read again."""
        again = ProfiledContract(self.w3, self.address, self.profile)
        again._holders, again._minted = dict(self._holders), self._minted
        again._answers = {key: value for key, value in self._answers.items() if key[0] in ID_ROLES}
        return again

    def _renderer_base(self) -> tuple[str, str]:
        answer = self.read("renderer_base", self.address)
        return str(answer[0]), str(answer[1])

    @cached_property
    def _batches(self) -> list[Batch]:
        found, start = [], 0
        for index in range(int(self.read("batch_count"))):
            end = int(self.read("batch_id_at", index))
            encrypted = bool(self.read_or("encrypted_batch", False, end))
            uri = self.token_uri(start) if end > start else ""
            base = None if encrypted or not uri.endswith(str(start)) else uri[: -len(str(start))]
            found.append(Batch(index, start, end, base, bool(self.read_or("batch_frozen", False, end))))
            start = end
        return found

    def batches(self) -> list[Batch]:
        return self._batches

    def batch_of(self, token_id: int) -> Batch | None:
        return next((b for b in self.batches() if b.start <= token_id < b.end), None)

    # -- the calls that change URIs ---------------------------------------------------------------------

    def base_uri_calls(self, base_uri: str, contract_uri: str, token_ids: list[int] | None = None
                       ) -> list[ContractCall] | None:
        """The calls that point tokens at `base_uri` (for batches: each batch holding one of `token_ids`, else
        every batch); None when the contract has no setter its admin can call (missing, frozen, renounced)."""
        roles = self.profile.roles
        if self.profile.uri_form == "renderer":
            return self._if_callable("set_renderer_base", (self.address, base_uri, contract_uri))
        if self.profile.uri_form == "batches":
            calls: list[ContractCall] = []
            for batch in self.batches():
                wanted = token_ids is None or any(batch.start <= t < batch.end for t in token_ids)
                if not wanted or batch.base == base_uri:
                    continue
                one = None if batch.frozen or batch.base is None else self._if_callable(
                    "set_batch_base_uri", (batch.index, base_uri))
                if one is None:
                    return None
                calls += one
            return calls
        if "set_base_uri" not in roles:
            return None
        takes = len(argument_types(roles["set_base_uri"]))
        return self._if_callable("set_base_uri", (base_uri, contract_uri)[:takes])

    def token_uri_calls(self, uris: dict[int, str]) -> list[ContractCall] | None:
        """Per-token URI updates; None when this family points tokens at a base URI instead."""
        if self.profile.uri_form != "per-token":
            return None
        calls: list[ContractCall] = []
        for token_id, uri in sorted(uris.items()):
            one = self._if_callable("set_token_uri", (token_id, uri))
            if one is None:
                return None
            calls += one
        return calls

    def missing_setter(self) -> str:
        """What the refusal names: the setter the family would use, or that the contract has none."""
        setters = self.profile.uri_setters()
        if self.profile.uri_form == "batches":
            frozen = [str(b.index) for b in self.batches() if b.frozen]
            encrypted = [str(b.index) for b in self.batches() if b.base is None]
            if frozen or encrypted:
                return (f"{setters.get('set_batch_base_uri', 'updateBatchBaseURI')} refuses batch(es) "
                        + ", ".join([f"{i} (frozen)" for i in frozen] + [f"{i} (encrypted)" for i in encrypted]))
        return ", ".join(setters.values()) or "no token-URI setter"

    def setter_call(self, role: str, *args: Any) -> ContractCall | None:
        """The owner's call in `role` (a sale setter such as set_price), when the owner could make it now."""
        calls = self._if_callable(role, args)
        return calls[0] if calls else None

    def _if_callable(self, role: str, args: tuple[Any, ...]) -> list[ContractCall] | None:
        """The call, when the collection's admin could make it (simulated with eth_call from the owner); else None
        (no such setter, frozen, or no owner to make it: renounced)."""
        if role not in self.profile.roles:
            return None
        owner = self.owner()
        if owner is None or int(owner, 16) == 0:
            return None
        function = self.function(role, *args)
        try:
            function.call({"from": owner})
        except RPC_FAILURES:
            return None
        return [ContractCall(function.address, function._encode_transaction_data(), self.profile.roles[role], args,
                             role, bound=function)]


def deployment_block(w3: Web3, address: str, head: int) -> int:
    """The block the contract was created in (binary search on eth_getCode), or 0 when the node keeps no
    history that far back: logs are then read from genesis, still in bounded ranges."""
    low, high = 0, head
    try:
        while low < high:
            middle = (low + high) // 2
            if w3.eth.get_code(address, block_identifier=middle):
                high = middle
            else:
                low = middle + 1
    except RPC_FAILURES:
        return 0
    return low
