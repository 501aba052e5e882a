// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721A} from "erc721a/contracts/ERC721A.sol";

/// @notice Bench only: the same mint on ERC721A (one batched _safeMint, ownership written once per batch).
contract BenchA is ERC721A {
    constructor() ERC721A("Bench", "B") {}

    function _startTokenId() internal pure override returns (uint256) {
        return 1;
    }

    function mint(uint256 quantity) external payable {
        _safeMint(msg.sender, quantity);
    }
}
