"""The families mintprep knows, each a small declarative entry: the functions that identify it, and its roles.

A family is recognised by the functions its contract has (from a verified ABI or from the runtime code's
dispatcher), never by ERC-165 answers alone: Zora's ERC721Drop answers for ERC-4906 (0x49064906) though its URIs
come from a renderer. Where several entries match, the one whose identifying set contains the others' wins; two
that do not contain each other are ambiguous and nothing is guessed.

Sources of each shape: MintprepDrop is contracts/MintprepDrop.sol; the HashLips tutorial contracts are
`contract/SimpleNft.sol` and `contract/SimpleNftLowerGas.sol` of github.com/HashLips/hashlips_nft_contract;
thirdweb's DropERC721 is npm @thirdweb-dev/contracts 3.15.0; Zora's ERC721Drop and DropMetadataRenderer are npm
@zoralabs/nft-drop-contracts 1.14.1; Manifold's ERC721Creator is npm @manifoldxyz/creator-core-solidity 3.0.0;
ERC721URIStorage is OpenZeppelin's; the ERC721A shape is npm erc721a with a `setBaseURI(string)`."""

from __future__ import annotations

from dataclasses import dataclass, field

from mintprep.collection.contract_roles import UriForm

ERC721 = ("ownerOf(uint256)", "tokenURI(uint256)")  # every family has these
THIRDWEB_CLAIM = "claim(address,uint256,address,uint256,(bytes32[],uint256,uint256,address),bytes)"


@dataclass(frozen=True)
class FamilyEntry:
    name: str
    uri_form: UriForm
    first_id: int | None  # None: the first minted id, else 0
    identified_by: tuple[str, ...]  # signatures that must all be present (ERC721's are added); each one a role's,
    # so that a declared profile is recognised by the same rule
    roles: dict[str, str]  # role -> signature, bound when the contract has it (renderer roles always)
    admin_role: str | None = None
    renderer_roles: dict[str, str] = field(default_factory=dict)

    @property
    def required(self) -> frozenset[str]:
        return frozenset(self.identified_by + ERC721)


_OWNABLE = {"token_uri": "tokenURI(uint256)", "owner_of": "ownerOf(uint256)", "owner": "owner()"}

KNOWN: tuple[FamilyEntry, ...] = (
    FamilyEntry("mintprep-drop", "base", 1,
                ("phase(uint256)", "baseURI()", "setBaseURI(string,string)"),
                {**_OWNABLE, "base_uri": "baseURI()", "set_base_uri": "setBaseURI(string,string)",
                 "max_supply": "maxSupply()", "total_minted": "totalMinted()", "total_supply": "totalSupply()",
                 "revealed": "revealed()", "hidden_uri": "placeholderURI()", "reveal_offset": "startingOffset()",
                 "paused": "paused()", "sale_config": "phase(uint256)", "phase_count": "phaseCount()",
                 "minted_by_wallet": "mintedInPhase(uint256,address)", "mint": "mint(uint256,uint256,bytes32[])"}),
    FamilyEntry("hashlips-simple", "base", 1,  # SimpleNft.sol: ERC721Enumerable, baseURI internal
                ("baseExtension()", "setBaseURI(string)", "notRevealedUri()"),
                {**_OWNABLE, "uri_suffix": "baseExtension()", "set_base_uri": "setBaseURI(string)",
                 "revealed": "revealed()", "hidden_uri": "notRevealedUri()", "max_supply": "maxSupply()",
                 "total_supply": "totalSupply()", "token_by_index": "tokenByIndex(uint256)", "price": "cost()",
                 "max_per_tx": "maxMintAmount()", "paused": "paused()", "mint": "mint(uint256)",
                 "set_price": "setCost(uint256)", "set_max_per_tx": "setmaxMintAmount(uint256)",
                 "set_paused": "pause(bool)"}),
    FamilyEntry("hashlips-lower-gas", "base", 1,  # SimpleNftLowerGas.sol: a counter, uriPrefix + uriSuffix
                ("uriPrefix()", "uriSuffix()", "setUriPrefix(string)"),
                {**_OWNABLE, "base_uri": "uriPrefix()", "uri_suffix": "uriSuffix()", "set_base_uri": "setUriPrefix(string)",
                 "revealed": "revealed()", "hidden_uri": "hiddenMetadataUri()", "max_supply": "maxSupply()",
                 "total_supply": "totalSupply()", "price": "cost()", "max_per_tx": "maxMintAmountPerTx()",
                 "paused": "paused()", "mint": "mint(uint256)", "set_price": "setCost(uint256)",
                 "set_max_per_tx": "setMaxMintAmountPerTx(uint256)", "set_paused": "setPaused(bool)"}),
    FamilyEntry("erc721a", "base", None,  # ids from `_startTokenId()` (not public), tokenURI = base + id
                ("setBaseURI(string)",),
                {**_OWNABLE, "base_uri": "baseURI()", "set_base_uri": "setBaseURI(string)",
                 "total_supply": "totalSupply()", "max_supply": "maxSupply()"}),
    FamilyEntry("uri-storage", "per-token", 1,  # OpenZeppelin ERC721URIStorage
                ("setTokenURI(uint256,string)",),
                {**_OWNABLE, "set_token_uri": "setTokenURI(uint256,string)"}),
    FamilyEntry("manifold-creator", "base", 1,  # a token's own URI when set, else base + id
                ("setBaseTokenURI(string)", "setTokenURI(uint256,string)", "isAdmin(address)"),
                {**_OWNABLE, "set_base_uri": "setBaseTokenURI(string)", "set_token_uri": "setTokenURI(uint256,string)",
                 "is_admin": "isAdmin(address)", "total_supply": "totalSupply()"}),
    FamilyEntry("thirdweb-drop", "batches", 0,  # lazyMint batches, each its own base; behind a proxy
                ("getBaseURICount()", "getBatchIdAtIndex(uint256)", "updateBatchBaseURI(uint256,string)"),
                {**_OWNABLE, "batch_count": "getBaseURICount()", "batch_id_at": "getBatchIdAtIndex(uint256)",
                 "set_batch_base_uri": "updateBatchBaseURI(uint256,string)", "batch_frozen": "batchFrozen(uint256)",
                 "encrypted_batch": "isEncryptedBatch(uint256)", "next_id": "nextTokenIdToMint()",
                 "total_minted": "totalMinted()", "has_role": "hasRole(bytes32,address)",
                 "claim_condition": "getActiveClaimConditionId()", "sale_config": "getClaimConditionById(uint256)",
                 "minted_by_wallet": "getSupplyClaimedByWallet(uint256,address)", "mint": THIRDWEB_CLAIM},
                admin_role="METADATA_ROLE"),
    FamilyEntry("zora-drop", "renderer", 1,  # tokenURI from its DropMetadataRenderer
                ("metadataRenderer()", "salesConfig()", "purchase(uint256)"),
                {**_OWNABLE, "renderer": "metadataRenderer()", "is_admin": "isAdmin(address)",
                 "total_supply": "totalSupply()", "sale_config": "salesConfig()", "mint": "purchase(uint256)",
                 "sale_details": "saleDetails()", "mint_fee": "zoraFeeForAmount(uint256)",
                 "minted_by_wallet": "mintedPerAddress(address)"},
                renderer_roles={"renderer_base": "metadataBaseByContract(address)",
                                "set_renderer_base": "updateMetadataBase(address,string,string)"}),
)
BY_NAME = {entry.name: entry for entry in KNOWN}
