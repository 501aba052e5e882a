// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC2981} from "@openzeppelin/contracts/token/common/ERC2981.sol";
import {IERC4906} from "@openzeppelin/contracts/interfaces/IERC4906.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";

/// @title A generative drop prepared by mintprep: timed sale phases, allowlists, a fair reveal, split payouts.
/// @notice Token ids run from 1 to maxSupply. The sale is a list of phases; each has a time window
///         [start, end), a price, a per-wallet cap, an optional cap on what the phase mints in all, and an
///         optional allowlist (the root of an OpenZeppelin merkle-tree StandardMerkleTree over ["address"]).
///         A buyer names the phase: mint(phaseId, quantity, proof).
/// @dev No tx.origin check: smart wallets (ERC-4337, Safe, EIP-7702 accounts) must be able to mint.
contract MintprepDrop is ERC721, ERC2981, IERC4906, Ownable, Pausable, ReentrancyGuardTransient {
    using Strings for uint256;

    struct Phase {
        uint64 start; // unix seconds, first second the phase is open
        uint64 end; // unix seconds, first second it is closed again
        uint128 price; // wei per token
        uint32 maxPerWallet; // tokens one wallet may mint in this phase
        uint32 maxMints; // tokens this phase may mint in all; 0: up to maxSupply
        bytes32 allowlistRoot; // 0: anyone may mint
    }

    /// @dev ERC-4906 has no interface function, so its id is the constant from the EIP.
    bytes4 private constant ERC4906_INTERFACE_ID = 0x49064906;
    /// @notice Blocks between startReveal and the block whose hash seeds the offset.
    uint256 public constant REVEAL_DELAY = 5;

    uint256 public immutable maxSupply;
    uint256 public totalMinted;
    Phase[] private _phases;
    /// @dev Counted only for phases with a maxMints cap (an uncapped phase saves the buyer a storage write).
    mapping(uint256 phaseId => uint256 count) public phaseMinted;
    mapping(uint256 phaseId => mapping(address minter => uint256 count)) public mintedInPhase;

    string private _baseTokenURI;
    string private _contractURI;

    // Fair reveal: fixed in the constructor, so on chain before the first mint.
    string public placeholderURI; // empty: the collection is revealed from the start
    /// @notice sha256(d1 || d2 || ... || dN): di is the raw 32-byte sha256 of the image file metadata file i.json
    ///         names (i = 1..maxSupply, before the offset), concatenated in that order and hashed once.
    bytes32 public immutable provenanceHash;
    bytes32 public immutable revealCommitment; // keccak256(abi.encode(secret))
    uint256 public revealBlock; // whose hash seeds the offset; 0: reveal not started
    bytes32 public revealSeed; // blockhash(revealBlock), once anchored
    uint256 public startingOffset; // token t shows metadata file ((t - 1 + offset) % maxSupply) + 1
    bool public revealed;

    // Payouts: each payee pulls its share of everything the contract ever received.
    address[] private _payees;
    mapping(address payee => uint256 shares) public shares;
    uint256 public totalShares;
    uint256 public totalReleased;
    mapping(address payee => uint256 amount) public released;

    error ZeroQuantity();
    error SoldOut(uint256 remaining);
    error PhaseSoldOut(uint256 remaining);
    error WrongPayment(uint256 expected, uint256 sent);
    error WalletLimit(uint256 allowed);
    error UnknownPhase(uint256 phaseId);
    error PhaseNotStarted(uint256 start);
    error PhaseEnded(uint256 end);
    error NotOnAllowlist();
    error BadPhase();
    error ZeroMaxSupply();
    error BadPayees();
    error NotPayee(address account);
    error NothingDue(address payee);
    error NoReveal();
    error AlreadyRevealed();
    error RevealPending(uint256 revealBlock);
    error RevealNotStarted();
    error SeedNotReady(uint256 revealBlock);
    error RevealWindowMissed(uint256 revealBlock);
    error WrongSecret();

    event PhaseUpdated(uint256 indexed phaseId, Phase phase);
    /// @dev ERC-7572: tells indexers to re-read contractURI().
    event ContractURIUpdated();
    event RevealStarted(uint256 revealBlock);
    event RevealSeedAnchored(uint256 revealBlock, bytes32 seed);
    event Revealed(uint256 startingOffset, string baseURI);
    event PaymentReleased(address indexed to, uint256 amount);

    /// @dev The constructor's scalar settings in one struct (fourteen separate arguments overflow the stack).
    struct Init {
        string name;
        string symbol;
        uint256 maxSupply;
        string baseURI;
        string contractURI;
        string placeholderURI;
        bytes32 provenanceHash;
        bytes32 revealCommitment;
        address owner;
        address royaltyReceiver;
        uint96 royaltyBps;
    }

    constructor(Init memory init, Phase[] memory phases_, address[] memory payees_, uint256[] memory shares_)
        ERC721(init.name, init.symbol)
        Ownable(init.owner)
    {
        if (init.maxSupply == 0) revert ZeroMaxSupply();
        maxSupply = init.maxSupply;
        _baseTokenURI = init.baseURI;
        _contractURI = init.contractURI;
        emit ContractURIUpdated();
        placeholderURI = init.placeholderURI;
        provenanceHash = init.provenanceHash;
        revealCommitment = init.revealCommitment;
        if (init.royaltyBps > 0) _setDefaultRoyalty(init.royaltyReceiver, init.royaltyBps);
        for (uint256 i = 0; i < phases_.length; ++i) {
            _phases.push();
            _setPhase(i, phases_[i]);
        }
        if (payees_.length == 0 || payees_.length != shares_.length) revert BadPayees();
        for (uint256 i = 0; i < payees_.length; ++i) {
            if (payees_[i] == address(0) || shares_[i] == 0 || shares[payees_[i]] != 0) revert BadPayees();
            _payees.push(payees_[i]);
            shares[payees_[i]] = shares_[i];
            totalShares += shares_[i];
        }
    }

    // ------------------------------------------------------------------ sale

    /// @notice Mint `quantity` tokens in phase `phaseId`, paying exactly its price per token; `proof` is the
    ///         caller's allowlist proof (empty for a public phase).
    function mint(uint256 phaseId, uint256 quantity, bytes32[] calldata proof)
        external
        payable
        nonReentrant
        whenNotPaused
    {
        if (phaseId >= _phases.length) revert UnknownPhase(phaseId);
        Phase memory phase = _phases[phaseId];
        if (block.timestamp < phase.start) revert PhaseNotStarted(phase.start);
        if (block.timestamp >= phase.end) revert PhaseEnded(phase.end);
        if (phase.allowlistRoot != bytes32(0)) {
            bytes32 leaf = keccak256(bytes.concat(keccak256(abi.encode(msg.sender))));
            if (!MerkleProof.verifyCalldata(proof, phase.allowlistRoot, leaf)) revert NotOnAllowlist();
        }
        if (quantity == 0) revert ZeroQuantity();
        uint256 minted = totalMinted;
        if (quantity > maxSupply - minted) revert SoldOut(maxSupply - minted);
        if (phase.maxMints != 0) {
            uint256 inPhase = phaseMinted[phaseId];
            if (inPhase + quantity > phase.maxMints) {
                revert PhaseSoldOut(phase.maxMints > inPhase ? phase.maxMints - inPhase : 0);
            }
            phaseMinted[phaseId] = inPhase + quantity;
        }
        uint256 already = mintedInPhase[phaseId][msg.sender];
        if (already + quantity > phase.maxPerWallet) {
            revert WalletLimit(already < phase.maxPerWallet ? phase.maxPerWallet - already : 0);
        }
        uint256 expected = uint256(phase.price) * quantity;
        if (msg.value != expected) revert WrongPayment(expected, msg.value);

        // Effects before interactions: _safeMint calls onERC721Received on contract receivers, which must
        // already see the updated counters (the guard above also blocks re-entering mint).
        mintedInPhase[phaseId][msg.sender] = already + quantity;
        totalMinted = minted + quantity;
        for (uint256 i = 1; i <= quantity; ++i) {
            _safeMint(msg.sender, minted + i);
        }
    }

    function phaseCount() external view returns (uint256) {
        return _phases.length;
    }

    function phase(uint256 phaseId) external view returns (Phase memory) {
        if (phaseId >= _phases.length) revert UnknownPhase(phaseId);
        return _phases[phaseId];
    }

    function setPhase(uint256 phaseId, Phase calldata newPhase) external onlyOwner {
        if (phaseId > _phases.length) revert UnknownPhase(phaseId);
        if (phaseId == _phases.length) _phases.push();
        _setPhase(phaseId, newPhase);
    }

    function _setPhase(uint256 phaseId, Phase memory newPhase) private {
        if (newPhase.start >= newPhase.end || newPhase.maxPerWallet == 0) revert BadPhase();
        _phases[phaseId] = newPhase;
        emit PhaseUpdated(phaseId, newPhase);
    }

    function pause() external onlyOwner {
        _pause();
    }

    function unpause() external onlyOwner {
        _unpause();
    }

    /// @notice Same as totalMinted (tokens are never burned); the name indexers look for.
    function totalSupply() external view returns (uint256) {
        return totalMinted;
    }

    // ------------------------------------------------------------------ metadata

    function baseURI() external view returns (string memory) {
        return _baseTokenURI;
    }

    function contractURI() external view returns (string memory) {
        return _contractURI;
    }

    /// @notice The metadata file token `tokenId` shows: itself until a reveal shifts every token by the offset.
    function metadataIdOf(uint256 tokenId) public view returns (uint256) {
        return revealed ? ((tokenId - 1 + startingOffset) % maxSupply) + 1 : tokenId;
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        if (!revealed && bytes(placeholderURI).length != 0) return placeholderURI;
        string memory base = _baseTokenURI;
        return bytes(base).length == 0 ? "" : string.concat(base, metadataIdOf(tokenId).toString(), ".json");
    }

    /// @notice Point at new metadata: the token directory and its collection.json (ERC-4906 and ERC-7572 events).
    function setBaseURI(string calldata newBaseURI, string calldata newContractURI) external onlyOwner {
        _baseTokenURI = newBaseURI;
        _contractURI = newContractURI;
        emit BatchMetadataUpdate(1, type(uint256).max);
        emit ContractURIUpdated();
    }

    function setContractURI(string calldata newContractURI) external onlyOwner {
        _contractURI = newContractURI;
        emit ContractURIUpdated();
    }

    function setDefaultRoyalty(address receiver, uint96 bps) external onlyOwner {
        _setDefaultRoyalty(receiver, bps);
    }

    // ------------------------------------------------------------------ fair reveal

    /// @notice Fix the block whose hash seeds the offset: REVEAL_DELAY blocks from now, so nobody knows it yet.
    ///         Once that hash is anchored it cannot be drawn again; a hash never anchored within 256 blocks
    ///         (blockhash forgets older ones) may be drawn again, visibly (RevealStarted is emitted each time).
    function startReveal() external onlyOwner {
        if (revealCommitment == bytes32(0)) revert NoReveal();
        if (revealed) revert AlreadyRevealed();
        if (revealSeed != bytes32(0) || (revealBlock != 0 && block.number <= revealBlock + 256)) {
            revert RevealPending(revealBlock);
        }
        revealBlock = block.number + REVEAL_DELAY;
        emit RevealStarted(revealBlock);
    }

    /// @notice Anyone may store the seed once its block is mined, so the owner cannot wait for a better one.
    function anchorRevealSeed() public {
        if (revealBlock == 0) revert RevealNotStarted();
        if (revealSeed != bytes32(0)) return;
        if (block.number <= revealBlock) revert SeedNotReady(revealBlock);
        bytes32 seed = blockhash(revealBlock);
        if (seed == bytes32(0)) revert RevealWindowMissed(revealBlock);
        revealSeed = seed;
        emit RevealSeedAnchored(revealBlock, seed);
    }

    /// @notice Open the committed secret: offset = keccak256(abi.encode(secret, seed)) % maxSupply, then the
    ///         real metadata replaces the placeholder.
    function reveal(bytes32 secret, string calldata newBaseURI, string calldata newContractURI) external onlyOwner {
        if (revealed) revert AlreadyRevealed();
        if (keccak256(abi.encode(secret)) != revealCommitment) revert WrongSecret();
        anchorRevealSeed();
        startingOffset = uint256(keccak256(abi.encode(secret, revealSeed))) % maxSupply;
        revealed = true;
        _baseTokenURI = newBaseURI;
        _contractURI = newContractURI;
        emit Revealed(startingOffset, newBaseURI);
        emit BatchMetadataUpdate(1, type(uint256).max);
        emit ContractURIUpdated();
    }

    // ------------------------------------------------------------------ payouts

    function payees() external view returns (address[] memory) {
        return _payees;
    }

    function releasable(address payee) public view returns (uint256) {
        uint256 received = address(this).balance + totalReleased;
        return (received * shares[payee]) / totalShares - released[payee];
    }

    /// @notice Send `payee` its share of what the contract has received and not yet paid it. Anyone may call
    ///         it; the money only ever goes to the payee. sendValue forwards all gas so multisig payees work;
    ///         the guard and the books updated first keep that safe.
    function release(address payable payee) external nonReentrant {
        if (shares[payee] == 0) revert NotPayee(payee);
        uint256 amount = releasable(payee);
        if (amount == 0) revert NothingDue(payee);
        released[payee] += amount;
        totalReleased += amount;
        emit PaymentReleased(payee, amount);
        Address.sendValue(payee, amount);
    }

    function supportsInterface(bytes4 interfaceId)
        public
        view
        override(ERC721, ERC2981, IERC165)
        returns (bool)
    {
        return interfaceId == ERC4906_INTERFACE_ID || super.supportsInterface(interfaceId);
    }
}
