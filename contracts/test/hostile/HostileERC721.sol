// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// A stranger's ERC-721 as an attacker writes it, for mintprep's hostile-input tests (tests/hostile): it emits
/// whatever Transfer events it is told to, claims whatever totalSupply() it was given, and reverts tokenURI for one
/// id. `shape` picks what it claims to be: 0 per-token URIs (ERC-4906), 1 HashLips-style enumerable, 2 ERC721A-style;
/// it has every family's identifying functions, so a test declares which family it is read as (chain.profile).
contract HostileERC721 {
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

    string private base;
    uint256 public immutable revertingId;
    uint256 public immutable totalSupply;
    uint8 public immutable shape;
    address public immutable owner;

    constructor(string memory base_, uint256 revertingId_, uint8 shape_, uint256 totalSupply_) {
        base = base_;
        revertingId = revertingId_;
        shape = shape_;
        totalSupply = totalSupply_;
        owner = msg.sender;
    }

    function mint(uint256[] calldata ids) external {
        for (uint256 i = 0; i < ids.length; ++i) emit Transfer(address(0), msg.sender, ids[i]);
    }

    function mintRange(uint256 first, uint256 count) external {
        for (uint256 i = 0; i < count; ++i) emit Transfer(address(0), msg.sender, first + i);
    }

    function supportsInterface(bytes4 id) external view returns (bool) {
        if (id == 0x80ac58cd || id == 0x01ffc9a7) return true;
        return (shape == 0 && id == 0x49064906) || (shape == 1 && id == 0x780e9d63);
    }

    function ownerOf(uint256) external view returns (address) {
        return owner;
    }

    function setTokenURI(uint256, string calldata) external pure {}

    function setBaseURI(string calldata) external pure {}

    function notRevealedUri() external pure returns (string memory) {
        return "";
    }

    function tokenURI(uint256 id) external view returns (string memory) {
        require(id != revertingId, "hostile: no URI for this id");
        return string.concat(base, Strings.toString(id), ".json");
    }

    function baseExtension() external view returns (string memory) {
        require(shape == 1, "hostile: not enumerable");
        return ".json";
    }

    function revealed() external pure returns (bool) {
        return true;
    }

    function tokenByIndex(uint256 index) external pure returns (uint256) {
        return index + 1;
    }
}
