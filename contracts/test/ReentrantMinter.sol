// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";

interface IMintprepDrop {
    function mint(uint256 quantity) external payable;
    function mintPrice() external view returns (uint256);
}

/// @notice Test-only attacker: on every received token it tries to mint one more from inside
///         onERC721Received, recording whether that re-entry succeeded and why it failed.
contract ReentrantMinter is IERC721Receiver {
    IMintprepDrop public immutable drop;
    uint256 public reentryAttempts;
    uint256 public reentrySuccesses;
    bytes public lastReentryError;

    constructor(address drop_) {
        drop = IMintprepDrop(drop_);
    }

    /// @notice Mint `quantity` paying exactly; any extra value stays here to fund the re-entries.
    function attack(uint256 quantity) external payable {
        drop.mint{value: drop.mintPrice() * quantity}(quantity);
    }

    function onERC721Received(address, address, uint256, bytes calldata) external returns (bytes4) {
        uint256 price = drop.mintPrice();
        if (address(this).balance >= price) {
            ++reentryAttempts;
            try drop.mint{value: price}(1) {
                ++reentrySuccesses;
            } catch (bytes memory reason) {
                lastReentryError = reason;
            }
        }
        return IERC721Receiver.onERC721Received.selector;
    }
}
