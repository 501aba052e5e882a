"""The contracts creators on Base already have, each deployed on anvil with a 20-token collection made elsewhere.

Every family's contract comes from its publisher's own source, compiled with solc-js into tests/chain/artifacts
(contracts/compile.js, contracts/compile_platforms.js):

- `hashlips-simple`, `hashlips-lower-gas`: HashLips' SimpleNft.sol / SimpleNftLowerGas.sol (GitHub
  HashLips/hashlips_nft_contract; not on npm) on OpenZeppelin 5, in contracts/test/families;
- `erc721a` (npm erc721a), `uri-storage` (OpenZeppelin ERC721URIStorage): contracts/test/families;
- `mintprep-drop`: mintprep's own MintprepDrop;
- `thirdweb-drop`: DropERC721 from npm @thirdweb-dev/contracts 3.15.0 behind OpenZeppelin 4.9.6 ERC1967Proxy
  (and, as `thirdweb-drop@eip1167-clone`, behind an EIP-1167 clone as thirdweb's factory deploys it);
- `zora-drop`: ERC721Drop + ERC721DropProxy + DropMetadataRenderer from npm @zoralabs/nft-drop-contracts 1.14.1,
  ProtocolRewards from npm @zoralabs/protocol-rewards 1.1.0;
- `manifold-creator`: ERC721Creator from npm @manifoldxyz/creator-core-solidity 3.0.0 (and, as
  `manifold-creator@studio-proxy`, its ERC721CreatorImplementation behind an ERC-1967 proxy).

`deploy_platform(family, chain, node)` publishes the collection (tests.support.foreign: 20 pieces, 3 broken — black,
grey, noise — one of them minted) to a local IPFS node at `node`, deploys the family's contract from the admin
(the chain's owner), points it at the collection and has a collector wallet mint 3 tokens the family's own way;
it returns a `PlatformCollection` saying what a test may expect. Every family sells at PRICE_WEI with a limit of
LIMIT (per transaction on the HashLips shapes, per wallet elsewhere). The module-scoped `platforms` fixture deploys
all of them once on a rolled-back snapshot (import it into a test module; pair it with `chain` so each test's
own changes are rolled back).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import pytest
from eth_abi import encode
from eth_account.signers.local import LocalAccount
from web3 import Web3
from web3.contract import Contract

from tests.support.foreign import Foreign, make_foreign_collection, publish_metadata_directory
from tests.support.anvil import (AnvilNode, Chain, DropParams, deploy_artifact, deploy_clone, deploy_test_drop,
                                 rolled_back)

SIZE = 20
MINTED = 3  # the collector's tokens: the family's first three ids
PRICE_WEI = 630_000_000_000_000  # 0.00063 ETH
LIMIT = 5  # tokens per transaction (HashLips) or per wallet (thirdweb, Zora, MintprepDrop)
ZORA_MINT_FEE_WEI = 777_000_000_000_000  # Zora's protocol fee per token (0.000777 ETH)
NATIVE_TOKEN = "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE"  # thirdweb's "pay in the chain's coin"
THIRDWEB_BATCH = 10  # thirdweb: two lazy-mint batches of 10, each with its own base


@dataclass(frozen=True)
class PlatformCollection:
    """A family's contract on anvil with its collection: what a test may expect of it."""

    family: str  # what a contract profile should name it
    variant: str  # how it was deployed, when a family has several ways ("eip1167-clone"); "" otherwise
    suffix: str  # after the id in a metadata file's name
    contract: Contract  # the token contract (a proxy is seen through its implementation's ABI)
    foreign: Foreign  # the creator's IPFS node: store, roots, documents, image CIDs
    ids: tuple[int, ...]  # every token of the collection
    minted_ids: tuple[int, ...]  # held by the collector (sold)
    broken: dict[int, str]  # token id -> "black" | "grey" | "noise"
    admin: LocalAccount
    collector: LocalAccount
    token_uris: dict[int, str]  # what tokenURI(id) answers now, for every id the contract serves
    bases: tuple[str, ...] = ()  # the base URI(s): thirdweb one per batch, in batch order
    held_ids: tuple[int, ...] = ()  # minted and still held by the admin (Manifold mints everything to itself)
    renderer: Contract | None = None  # Zora: the DropMetadataRenderer holding the base
    extra: dict[str, Contract] = field(default_factory=dict)  # the implementation behind a proxy, ProtocolRewards

    @property
    def address(self) -> str:
        return self.contract.address

    @property
    def w3(self) -> Web3:
        return self.contract.w3

    def transact(self, call, sender: LocalAccount | None = None, value: int = 0) -> None:
        """Send `call` (a bound contract function) from the admin unless `sender` is given; assert it succeeded."""
        tx = call.transact({"from": (sender or self.admin).address, "value": value})
        assert self.w3.eth.get_transaction_receipt(tx)["status"] == 1


@dataclass(frozen=True)
class Family:
    """One family's test case: its first id, the metadata file suffix, whether tokenURI answers for an id nobody
    minted yet, and how to deploy it (`variant` names a second way to deploy the same family)."""

    name: str
    first_id: int
    suffix: str
    deploy: Callable[[Chain, Foreign, "Family"], PlatformCollection]
    serves_unminted: bool = False
    variant: str = ""

    @property
    def key(self) -> str:
        """The family's key in FAMILIES: its name, or name@variant."""
        return f"{self.name}@{self.variant}" if self.variant else self.name

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(range(self.first_id, self.first_id + SIZE))

    @property
    def minted_ids(self) -> tuple[int, ...]:
        return self.ids[:MINTED]

    @property
    def broken(self) -> dict[int, str]:
        """Three broken pieces: the second minted token, and two nobody minted."""
        return {self.first_id + 1: "black", self.first_id + 7: "grey", self.first_id + 14: "noise"}

    def base_uris(self, base: str, ids: tuple[int, ...]) -> dict[int, str]:
        return {t: f"{base}{t}{self.suffix}" for t in ids}

    def collection(self, chain: Chain, foreign: Foreign, contract: Contract, **fields) -> PlatformCollection:
        base = f"ipfs://{foreign.metadata_root}/"
        fields.setdefault("bases", (base,))
        fields.setdefault("token_uris", self.base_uris(base, self.ids if self.serves_unminted else self.minted_ids))
        return PlatformCollection(family=self.name, variant=self.variant, suffix=self.suffix, contract=contract,
                                  foreign=foreign, ids=self.ids, minted_ids=self.minted_ids, broken=self.broken,
                                  admin=chain.owner, collector=chain.accounts[1], **fields)


def deploy_platform(family: str, chain: Chain, node: Path) -> PlatformCollection:
    """The family's contract (a FAMILIES key) on `chain` with its 20-token collection published to the IPFS node
    at `node`."""
    spec = FAMILIES[family]
    foreign = make_foreign_collection(node, SIZE, spec.broken, first_id=spec.first_id, suffix=spec.suffix)
    return spec.deploy(chain, foreign, spec)


def _hashlips_simple(chain: Chain, foreign: Foreign, family: Family) -> PlatformCollection:
    base = f"ipfs://{foreign.metadata_root}/"
    contract = deploy_artifact(chain, "SimpleNft", "Sunflower Study", "SUNF", base, "", SIZE)
    made = family.collection(chain, foreign, contract)
    made.transact(contract.functions.setCost(PRICE_WEI))
    made.transact(contract.functions.setmaxMintAmount(LIMIT))
    made.transact(contract.functions.reveal())
    made.transact(contract.functions.mint(MINTED), made.collector, MINTED * PRICE_WEI)
    return made


def _hashlips_lower_gas(chain: Chain, foreign: Foreign, family: Family) -> PlatformCollection:
    contract = deploy_artifact(chain, "SimpleNftLowerGas", "Sunflower Study", "SUNF", "", PRICE_WEI, SIZE, LIMIT)
    made = family.collection(chain, foreign, contract)
    made.transact(contract.functions.setUriPrefix(made.bases[0]))
    made.transact(contract.functions.setRevealed(True))
    made.transact(contract.functions.setPaused(False))
    made.transact(contract.functions.mint(MINTED), made.collector, MINTED * PRICE_WEI)
    return made


def _erc721a(chain: Chain, foreign: Foreign, family: Family) -> PlatformCollection:
    contract = deploy_artifact(chain, "AzukiStyle", f"ipfs://{foreign.metadata_root}/")
    made = family.collection(chain, foreign, contract)
    made.transact(contract.functions.mint(MINTED), made.collector)
    return made


def _uri_storage(chain: Chain, foreign: Foreign, family: Family) -> PlatformCollection:
    """Per-token URIs exist only for minted tokens: the owner mints all 20, 3 of them to the collector."""
    contract = deploy_artifact(chain, "PerTokenURIs")
    uris = {t: f"ipfs://{foreign.metadata_cids[t]}" for t in family.ids}
    made = family.collection(chain, foreign, contract, bases=(), token_uris=uris,
                             held_ids=family.ids[MINTED:])
    for token_id in family.ids:
        receiver = made.collector if token_id in family.minted_ids else made.admin
        made.transact(contract.functions.mint(receiver.address, uris[token_id]))
    return made


def _mintprep_drop(chain: Chain, foreign: Foreign, family: Family) -> PlatformCollection:
    params = DropParams(max_supply=SIZE, base_uri=f"ipfs://{foreign.metadata_root}/", mint_price_wei=PRICE_WEI,
                        max_per_wallet=LIMIT)
    contract = deploy_test_drop(chain.w3, chain.owner, params).contract
    made = family.collection(chain, foreign, contract)
    made.transact(contract.functions.mint(0, MINTED, []), made.collector, MINTED * PRICE_WEI)
    return made


def _thirdweb_drop(chain: Chain, foreign: Foreign, family: Family) -> PlatformCollection:
    """DropERC721 behind an ERC-1967 proxy initialised in the proxy's constructor (a creator deploying it
    themselves), or, as the `eip1167-clone` variant, an EIP-1167 clone initialised next (thirdweb's own factory);
    two lazy-mint batches (ids 0..9 and 10..19), each uploaded as its own folder; one public claim condition the
    collector claims 3 from."""
    implementation = deploy_artifact(chain, "DropERC721")
    admin = chain.owner.address
    init_args = [admin, "Sunflower Study", "SUNF", "", [], admin, admin, 0, 0, admin]
    if family.variant == "eip1167-clone":
        contract = deploy_clone(chain, implementation)
        contract.functions.initialize(*init_args).transact({"from": admin})
    else:
        contract = deploy_artifact(chain, "ERC1967Proxy", implementation.address,
                                   implementation.encode_abi("initialize", init_args), abi_of="DropERC721")
    batches = [family.ids[i:i + THIRDWEB_BATCH] for i in range(0, SIZE, THIRDWEB_BATCH)]
    bases = tuple(f"ipfs://{publish_metadata_directory(foreign, ids, family.suffix)}/" for ids in batches)
    uris = {t: uri for base, ids in zip(bases, batches) for t, uri in family.base_uris(base, ids).items()}
    made = family.collection(chain, foreign, contract, bases=bases, token_uris=uris,
                             extra={"implementation": implementation})
    for base, ids in zip(bases, batches):
        made.transact(contract.functions.lazyMint(len(ids), base, b""))
    condition = (0, SIZE, 0, LIMIT, b"\x00" * 32, PRICE_WEI, NATIVE_TOKEN, "")
    made.transact(contract.functions.setClaimConditions([condition], False))
    public = ([], 0, 2**256 - 1, "0x" + "00" * 20)  # AllowlistProof for a condition without an allowlist
    made.transact(contract.functions.claim(made.collector.address, MINTED, NATIVE_TOKEN, PRICE_WEI, public, b""),
                  made.collector, MINTED * PRICE_WEI)
    return made


def freeze_batch(made: PlatformCollection, index: int) -> None:
    """thirdweb: freeze batch `index`'s base URI (updateBatchBaseURI refuses it from then on)."""
    made.transact(made.contract.functions.freezeBatchBaseURI(index))


def add_encrypted_batch(made: PlatformCollection, amount: int, placeholder_base: str, revealed_base: str,
                        key: bytes) -> int:
    """thirdweb: lazy-mint `amount` more tokens as a delayed-reveal batch (tokenURI = placeholder_base + "0" until
    `reveal(index, key)` decrypts `revealed_base`); its batch index."""
    contract = made.contract
    encrypted = contract.functions.encryptDecrypt(revealed_base.encode(), key).call()
    provenance = Web3.solidity_keccak(["bytes", "bytes", "uint256"],
                                      [revealed_base.encode(), key, made.w3.eth.chain_id])
    made.transact(contract.functions.lazyMint(amount, placeholder_base, encode(["bytes", "bytes32"],
                                                                               [encrypted, provenance])))
    return contract.functions.getBaseURICount().call() - 1


def _zora_drop(chain: Chain, foreign: Foreign, family: Family) -> PlatformCollection:
    """ERC721Drop behind ERC721DropProxy, the base held by a DropMetadataRenderer; a public sale the collector
    buys 3 from at (price + Zora's mint fee) each."""
    admin = chain.owner.address
    rewards = deploy_artifact(chain, "ProtocolRewards")
    fee_recipient = chain.accounts[9].address
    implementation = deploy_artifact(chain, "ERC721Drop", "0x" + "00" * 20, "0x" + "00" * 20, "0x" + "00" * 20,
                                     ZORA_MINT_FEE_WEI, fee_recipient, rewards.address)
    renderer = deploy_artifact(chain, "DropMetadataRenderer")
    base = f"ipfs://{foreign.metadata_root}/"
    init = implementation.encode_abi("initialize", ["Sunflower Study", "SUNF", admin, admin, SIZE, 0, [],
                                                    renderer.address, encode(["string", "string"], [base, ""]),
                                                    "0x" + "00" * 20])
    contract = deploy_artifact(chain, "ERC721DropProxy", implementation.address, init, abi_of="ERC721Drop")
    made = family.collection(chain, foreign, contract, renderer=renderer,
                             extra={"implementation": implementation, "protocol_rewards": rewards})
    made.transact(contract.functions.setSaleConfiguration(PRICE_WEI, LIMIT, 0, 2**64 - 1, 0, 0, b"\x00" * 32))
    made.transact(contract.functions.purchase(MINTED), made.collector, MINTED * (PRICE_WEI + ZORA_MINT_FEE_WEI))
    return made


def _manifold_creator(chain: Chain, foreign: Foreign, family: Family) -> PlatformCollection:
    """ERC721Creator as the npm package ships it (the whole contract), or, as the `studio-proxy` variant,
    ERC721CreatorImplementation behind an ERC-1967 proxy that initialises it (a Manifold Studio collection). The
    creator mints all 20 to itself (mintBaseBatch), then transfers 3 to the collector; the base prefix serves
    every token but the last, which has its own URI (setTokenURI)."""
    extra = {}
    if family.variant == "studio-proxy":
        implementation = deploy_artifact(chain, "ERC721CreatorImplementation")
        init = implementation.encode_abi("initialize", ["Sunflower Study", "SUNF"])
        contract = deploy_artifact(chain, "ERC1967Proxy", implementation.address, init,
                                   abi_of="ERC721CreatorImplementation")
        extra["implementation"] = implementation
    else:
        contract = deploy_artifact(chain, "ERC721Creator", "Sunflower Study", "SUNF")
    base = f"ipfs://{foreign.metadata_root}/"
    own = family.ids[-1]
    uris = {**family.base_uris(base, family.ids), own: f"ipfs://{foreign.metadata_cids[own]}"}
    made = family.collection(chain, foreign, contract, token_uris=uris, held_ids=family.ids[MINTED:], extra=extra)
    made.transact(contract.functions.setBaseTokenURI(base))
    made.transact(contract.get_function_by_signature("mintBaseBatch(address,uint16)")(made.admin.address, SIZE))
    made.transact(contract.functions.setTokenURI(own, uris[own]))
    for token_id in family.minted_ids:
        made.transact(contract.functions.transferFrom(made.admin.address, made.collector.address, token_id))
    return made


FAMILIES = {f.key: f for f in (
    Family("hashlips-simple", 1, ".json", _hashlips_simple),
    Family("hashlips-lower-gas", 1, ".json", _hashlips_lower_gas),
    Family("erc721a", 0, "", _erc721a),
    Family("uri-storage", 1, ".json", _uri_storage),
    Family("mintprep-drop", 1, ".json", _mintprep_drop),
    Family("thirdweb-drop", 0, "", _thirdweb_drop, serves_unminted=True),
    Family("thirdweb-drop", 0, "", _thirdweb_drop, serves_unminted=True, variant="eip1167-clone"),
    Family("zora-drop", 1, "", _zora_drop),
    Family("manifold-creator", 1, "", _manifold_creator),
    Family("manifold-creator", 1, "", _manifold_creator, variant="studio-proxy"),
)}


@pytest.fixture(scope="module")
def platforms(anvil_node: AnvilNode, tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[dict[str, tuple[PlatformCollection, float]]]:
    """Every family deployed once for the module, with the seconds its deploy took (printed under `-s`)."""
    with rolled_back(anvil_node) as chain:
        made = {}
        for name in FAMILIES:
            started = time.perf_counter()
            made[name] = (deploy_platform(name, chain, tmp_path_factory.mktemp(name)),
                          time.perf_counter() - started)
            print(f"{name}: deployed with its collection in {made[name][1]:.2f} s")
        yield made
