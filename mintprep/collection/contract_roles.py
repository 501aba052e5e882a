"""The roles mintprep reads or calls on a collection's contract, and a profile: those roles bound to the contract's own
functions.

A role names what mintprep needs (the URI of a token, the call that moves the base URI, the price, the public mint),
never how one platform spells it: each family's entry (mintprep.collection.known_families) maps roles to its signatures.
Roles marked `on="renderer"` are functions of a separate metadata renderer contract (Zora's DropMetadataRenderer),
called with the collection's address as their first argument."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

UriForm = Literal["base", "batches", "renderer", "per-token"]


@dataclass(frozen=True)
class Role:
    """One role: what it is and, for a read, the type it answers (a call answers nothing mintprep reads)."""

    name: str
    meaning: str
    answers: str | None = None  # the ABI output type(s) of a read; None: a transaction
    on: Literal["contract", "renderer"] = "contract"


def _roles(*roles: Role) -> dict[str, Role]:
    return {role.name: role for role in roles}


ROLES: dict[str, Role] = _roles(
    # How a token's URI is formed, and changed.
    Role("token_uri", "the URI a token id resolves to", "string"),
    Role("base_uri", "the base every token URI starts with", "string"),
    Role("uri_suffix", "what follows the id in a token URI (\".json\")", "string"),
    Role("set_base_uri", "the call that points every token at a new base"),
    Role("set_token_uri", "the call that sets one token's own URI"),
    Role("batch_count", "how many batches of ids share a base (thirdweb lazyMint)", "uint256"),
    Role("batch_id_at", "the end (exclusive) of the batch at an index", "uint256"),
    Role("batch_frozen", "whether a batch's base can no longer change", "bool"),
    Role("encrypted_batch", "whether a batch still hides its base (delayed reveal)", "bool"),
    Role("set_batch_base_uri", "the call that points one batch at a new base"),
    Role("renderer", "the contract that forms token URIs (Zora's DropMetadataRenderer)", "address"),
    Role("renderer_base", "the renderer's base and extension for this collection",
         "(string,string,string,uint256)", on="renderer"),
    Role("set_renderer_base", "the renderer's call that points this collection at a new base", on="renderer"),
    Role("revealed", "whether the art is revealed (before: every token shows the placeholder)", "bool"),
    Role("hidden_uri", "the placeholder URI every token shows before the reveal", "string"),
    Role("reveal_offset", "the fair reveal's shift: token t shows file (t + offset) mod supply", "uint256"),
    # Which ids exist and which are minted.
    Role("max_supply", "how many tokens the collection can ever have", "uint256"),
    Role("total_supply", "how many tokens exist now", "uint256"),
    Role("total_minted", "how many tokens were minted (ids are sequential)", "uint256"),
    Role("next_id", "the next id to mint (every id below it is served)", "uint256"),
    Role("token_by_index", "the id at an index of ERC721Enumerable's list", "uint256"),
    Role("owner_of", "who holds a token", "address"),
    # Who may change URIs.
    Role("owner", "the Ownable owner", "address"),
    Role("has_role", "whether an account holds an AccessControl role", "bool"),
    Role("is_admin", "whether an account is the collection's admin (Zora)", "bool"),
    # The sale (`check` and the mint page).
    Role("price", "the price of one token, in wei", "uint256"),
    Role("max_per_tx", "how many tokens one mint call may take", "uint256"),
    Role("max_per_wallet", "how many tokens one wallet may mint", "uint256"),
    Role("paused", "whether minting is paused", "bool"),
    Role("sale_config", "the sale's windows, price and limits in one read"),
    Role("claim_condition", "the id of the active claim condition (thirdweb)", "uint256"),
    Role("sale_details", "the sale summed up in one read: price, window, limits, minted and max supply (Zora)"),
    Role("phase_count", "how many sale phases the contract holds (MintprepDrop)", "uint256"),
    Role("minted_by_wallet", "how many tokens a wallet minted (in a phase, or under a claim condition)", "uint256"),
    Role("mint_fee", "the platform's fee on a mint of n tokens (Zora): its recipient and amount", "(address,uint256)"),
    Role("mint", "the public mint call"),
    Role("set_price", "the call that changes the price"),
    Role("set_max_per_tx", "the call that changes the per-call cap"),
    Role("set_paused", "the call that pauses or unpauses minting"),
)
URI_SETTERS = ("set_base_uri", "set_token_uri", "set_batch_base_uri", "set_renderer_base")


@dataclass(frozen=True)
class Profile:
    """A contract's roles, bound to its own function signatures, and where that knowledge came from."""

    family: str  # a known family's name, or "declared" for a profile the user wrote that matches none
    uri_form: UriForm
    roles: dict[str, str]  # role -> function signature, e.g. {"set_base_uri": "setUriPrefix(string)"}
    first_id: int | None  # the first token id; None: the first minted id, else 0 (ERC721A's `_startTokenId`)
    source: str  # "declared", "abi-file", "sourcify", "etherscan", "blockscout" or "bytecode"
    implementation: str | None = None  # where a proxy's functions were read from
    admin_role: str | None = None  # the AccessControl role the URI setters need (thirdweb: METADATA_ROLE)

    def has(self, role: str) -> bool:
        return role in self.roles

    def uri_setters(self) -> dict[str, str]:
        return {role: self.roles[role] for role in URI_SETTERS if role in self.roles}

    def to_json(self) -> dict[str, Any]:
        return {"family": self.family, "uri_form": self.uri_form, "roles": dict(sorted(self.roles.items())),
                "first_id": self.first_id, "source": self.source, "implementation": self.implementation,
                "admin_role": self.admin_role}
