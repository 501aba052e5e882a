// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @notice Bench only: MintprepDrop's mint loop on OpenZeppelin ERC721 (one _safeMint per token), nothing else.
contract BenchOZ is ERC721 {
    uint256 public totalMinted;

    constructor() ERC721("Bench", "B") {}

    function mint(uint256 quantity) external payable {
        uint256 minted = totalMinted;
        totalMinted = minted + quantity;
        for (uint256 i = 1; i <= quantity; ++i) {
            _safeMint(msg.sender, minted + i);
        }
    }
}
