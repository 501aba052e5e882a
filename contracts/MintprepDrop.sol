// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC2981} from "@openzeppelin/contracts/token/common/ERC2981.sol";
import {IERC4906} from "@openzeppelin/contracts/interfaces/IERC4906.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// @title A fixed-price generative drop prepared by mintprep.
/// @notice Token ids run from 1 to maxSupply. Each mint pays exactly mintPrice per token; each wallet may
///         mint at most maxPerWallet tokens (a fairness nudge: several wallets can bypass it).
///         tokenURI(id) = baseURI + id + ".json"; changing the base URI emits ERC-4906 BatchMetadataUpdate
///         so marketplaces refresh the whole collection.
/// @dev No tx.origin check: smart wallets (ERC-4337, Safe, EIP-7702 accounts) must be able to mint.
contract MintprepDrop is ERC721, ERC2981, IERC4906, Ownable, ReentrancyGuardTransient {
    using Strings for uint256;

    /// @dev ERC-4906 has no interface function, so its id is the constant from the EIP.
    bytes4 private constant ERC4906_INTERFACE_ID = 0x49064906;

    uint256 public immutable maxSupply;
    uint256 public mintPrice;
    uint256 public maxPerWallet;
    uint256 public totalMinted;
    mapping(address minter => uint256 count) public mintedBy;

    string private _baseTokenURI;
    string private _contractURI;

    error ZeroQuantity();
    error SoldOut(uint256 remaining);
    error WrongPayment(uint256 expected, uint256 sent);
    error WalletLimit(uint256 allowed);
    error ZeroMaxSupply();
    error ZeroAddress();

    event MintPriceUpdated(uint256 previousPrice, uint256 newPrice);
    event MaxPerWalletUpdated(uint256 previousLimit, uint256 newLimit);
    /// @dev ERC-7572: tells indexers to re-read contractURI().
    event ContractURIUpdated();
    event Withdrawn(address indexed to, uint256 amount);

    constructor(
        string memory name_,
        string memory symbol_,
        uint256 maxSupply_,
        uint256 mintPrice_,
        uint256 maxPerWallet_,
        string memory baseURI_,
        address initialOwner,
        address royaltyReceiver,
        uint96 royaltyBps
    ) ERC721(name_, symbol_) Ownable(initialOwner) {
        if (maxSupply_ == 0) revert ZeroMaxSupply();
        maxSupply = maxSupply_;
        mintPrice = mintPrice_;
        maxPerWallet = maxPerWallet_;
        _baseTokenURI = baseURI_;
        if (royaltyBps > 0) _setDefaultRoyalty(royaltyReceiver, royaltyBps);
    }

    /// @notice Mint `quantity` tokens to the caller, paying exactly mintPrice * quantity.
    function mint(uint256 quantity) external payable nonReentrant {
        if (quantity == 0) revert ZeroQuantity();
        uint256 minted = totalMinted;
        uint256 remaining = maxSupply - minted;
        if (quantity > remaining) revert SoldOut(remaining);
        uint256 already = mintedBy[msg.sender];
        uint256 cap = maxPerWallet;
        if (already + quantity > cap) revert WalletLimit(already < cap ? cap - already : 0);
        uint256 expected = mintPrice * quantity;
        if (msg.value != expected) revert WrongPayment(expected, msg.value);

        // Effects before interactions: _safeMint calls onERC721Received on contract receivers, which must
        // already see the updated counters (the guard above also blocks re-entering mint).
        mintedBy[msg.sender] = already + quantity;
        totalMinted = minted + quantity;
        for (uint256 i = 1; i <= quantity; ++i) {
            _safeMint(msg.sender, minted + i);
        }
    }

    /// @notice Same as totalMinted (tokens are never burned); the name indexers look for.
    function totalSupply() external view returns (uint256) {
        return totalMinted;
    }

    function baseURI() external view returns (string memory) {
        return _baseTokenURI;
    }

    function contractURI() external view returns (string memory) {
        return _contractURI;
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        string memory base = _baseTokenURI;
        return bytes(base).length == 0 ? "" : string.concat(base, tokenId.toString(), ".json");
    }

    function setBaseURI(string calldata newBaseURI) external onlyOwner {
        _baseTokenURI = newBaseURI;
        emit BatchMetadataUpdate(1, type(uint256).max);
    }

    function setContractURI(string calldata newContractURI) external onlyOwner {
        _contractURI = newContractURI;
        emit ContractURIUpdated();
    }

    function setMintPrice(uint256 newPrice) external onlyOwner {
        emit MintPriceUpdated(mintPrice, newPrice);
        mintPrice = newPrice;
    }

    function setMaxPerWallet(uint256 newLimit) external onlyOwner {
        emit MaxPerWalletUpdated(maxPerWallet, newLimit);
        maxPerWallet = newLimit;
    }

    function setDefaultRoyalty(address receiver, uint96 bps) external onlyOwner {
        _setDefaultRoyalty(receiver, bps);
    }

    /// @notice Send the whole balance to `to`. sendValue forwards all gas so multisig payees work; the
    ///         guard and the call being last keep that safe.
    function withdraw(address payable to) external onlyOwner nonReentrant {
        if (to == address(0)) revert ZeroAddress();
        uint256 amount = address(this).balance;
        emit Withdrawn(to, amount);
        Address.sendValue(to, amount);
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
