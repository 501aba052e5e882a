// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721A} from "erc721a/contracts/ERC721A.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice Test-only: the common ERC721A drop shape (npm erc721a): ids from _startTokenId() (0, the default),
///         tokenURI = base + id with no extension (ERC721A's own tokenURI), setBaseURI(string) for the owner.
contract AzukiStyle is ERC721A, Ownable {
    string private baseTokenURI;

    constructor(string memory initBaseURI) ERC721A("Azuki Style", "AZS") Ownable(msg.sender) {
        baseTokenURI = initBaseURI;
    }

    function mint(uint256 quantity) external {
        _mint(msg.sender, quantity);
    }

    function _baseURI() internal view override returns (string memory) {
        return baseTokenURI;
    }

    function setBaseURI(string calldata newBaseURI) external onlyOwner {
        baseTokenURI = newBaseURI;
    }
}
