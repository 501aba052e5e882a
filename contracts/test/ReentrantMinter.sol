// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";

interface IMintprepDrop {
    function mint(uint256 phaseId, uint256 quantity, bytes32[] calldata proof) external payable;
}

/// @notice Test-only attacker: on every received token it tries to mint one more (public phase 0) from inside
///         onERC721Received, recording whether that re-entry succeeded and why it failed.
contract ReentrantMinter is IERC721Receiver {
    IMintprepDrop public immutable drop;
    uint256 public immutable price;
    uint256 public reentryAttempts;
    uint256 public reentrySuccesses;
    bytes public lastReentryError;

    constructor(address drop_, uint256 price_) {
        drop = IMintprepDrop(drop_);
        price = price_;
    }

    /// @notice Mint `quantity` paying exactly; any extra value stays here to fund the re-entries.
    function attack(uint256 quantity) external payable {
        drop.mint{value: price * quantity}(0, quantity, new bytes32[](0));
    }

    function onERC721Received(address, address, uint256, bytes calldata) external returns (bytes4) {
        if (address(this).balance >= price) {
            ++reentryAttempts;
            try drop.mint{value: price}(0, 1, new bytes32[](0)) {
                ++reentrySuccesses;
            } catch (bytes memory reason) {
                lastReentryError = reason;
            }
        }
        return IERC721Receiver.onERC721Received.selector;
    }
}
