// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721Enumerable, ERC721} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Enumerable.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// @notice Test-only: the shape of the HashLips tutorial contract (github.com/HashLips/hashlips_nft_contract,
///         NFT.sol), ported to OpenZeppelin 5: ERC721Enumerable, ids from 1, the base URI kept in a variable with
///         no public getter, tokenURI = base + id + baseExtension, setBaseURI(string), revealed / notRevealedUri.
contract HashLipsTutorial is ERC721Enumerable, Ownable {
    using Strings for uint256;

    string baseURI;
    string public baseExtension = ".json";
    uint256 public cost = 0;
    uint256 public maxSupply;
    bool public paused = false;
    bool public revealed = true;
    string public notRevealedUri;

    constructor(string memory initBaseURI, string memory initNotRevealedUri, uint256 maxSupply_)
        ERC721("HashLips Tutorial", "HLT") Ownable(msg.sender)
    {
        baseURI = initBaseURI;
        notRevealedUri = initNotRevealedUri;
        maxSupply = maxSupply_;
    }

    function _baseURI() internal view override returns (string memory) {
        return baseURI;
    }

    function mint(uint256 mintAmount) public payable {
        uint256 supply = totalSupply();
        require(!paused && mintAmount > 0 && supply + mintAmount <= maxSupply);
        for (uint256 i = 1; i <= mintAmount; i++) {
            _safeMint(msg.sender, supply + i);
        }
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        if (!revealed) return notRevealedUri;
        string memory currentBaseURI = _baseURI();
        return bytes(currentBaseURI).length > 0
            ? string(abi.encodePacked(currentBaseURI, tokenId.toString(), baseExtension))
            : "";
    }

    function reveal() public onlyOwner {
        revealed = true;
    }

    function setBaseURI(string memory newBaseURI) public onlyOwner {
        baseURI = newBaseURI;
    }

    function setBaseExtension(string memory newBaseExtension) public onlyOwner {
        baseExtension = newBaseExtension;
    }

    function setNotRevealedURI(string memory newNotRevealedURI) public onlyOwner {
        notRevealedUri = newNotRevealedURI;
    }
}
