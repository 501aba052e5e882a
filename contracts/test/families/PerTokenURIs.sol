// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721URIStorage, ERC721} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice Test-only: OpenZeppelin ERC721URIStorage as collections use it: each token minted with its own
///         ipfs://<cid> URI (no base URI), setTokenURI(id, uri) for the owner.
contract PerTokenURIs is ERC721URIStorage, Ownable {
    uint256 private nextId = 1;

    constructor() ERC721("Per Token URIs", "PTU") Ownable(msg.sender) {}

    function mint(address to, string calldata uri) external onlyOwner returns (uint256 tokenId) {
        tokenId = nextId++;
        _safeMint(to, tokenId);
        _setTokenURI(tokenId, uri);
    }

    function setTokenURI(uint256 tokenId, string calldata uri) external onlyOwner {
        _setTokenURI(tokenId, uri);
    }
}
