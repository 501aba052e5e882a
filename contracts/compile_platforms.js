#!/usr/bin/env node
// Compile the contracts creators on Base already have, from their publishers' npm packages, into the artifacts the
// tests deploy (tests/chain/artifacts/). Same code and --check as compile.js (solc_build.js); each platform with
// the solc version its sources pin and OpenZeppelin 4.9.6 (npm aliases beside mintprep's OpenZeppelin 5).
//
//   node compile_platforms.js [--check]
'use strict';
const fs = require('fs');
const { main, locate, packageVersion, sha256 } = require('./solc_build');

const OZ4 = [
  '@openzeppelin/contracts/=@openzeppelin/contracts-4/',
  '@openzeppelin/contracts-upgradeable/=@openzeppelin/contracts-upgradeable-4/',
];
// thirdweb's own build: solc 0.8.23, optimizer 20 runs (more runs overflow the 24,576-byte code limit).
const THIRDWEB = { solc: 'solc-0.8.23',
  settings: { evmVersion: 'shanghai', optimizer: { enabled: true, runs: 20 }, remappings: OZ4 } };
// @zoralabs/protocol-rewards 1.1.0 pins solc 0.8.17 exactly.
const ZORA = { solc: 'solc-0.8.17',
  settings: { evmVersion: 'london', optimizer: { enabled: true, runs: 50 },
    // Zora imports "erc721a-upgradeable/<file>"; the package keeps them under contracts/ (one remapping per file,
    // since a prefix remapping would apply again to the package's own relative imports).
    remappings: [...OZ4, ...['ERC721AUpgradeable.sol', 'IERC721AUpgradeable.sol'].map(
      (file) => `erc721a-upgradeable/${file}=erc721a-upgradeable/contracts/${file}`)] } };
const MANIFOLD = { solc: 'solc-0.8.23',
  settings: { evmVersion: 'shanghai', optimizer: { enabled: true, runs: 200 }, remappings: OZ4 } };

const target = (platform, source, contract) =>
  ({ ...platform, source, contract, out: `../tests/chain/artifacts/${contract}.json` });

const TARGETS = [
  target(THIRDWEB, '@thirdweb-dev/contracts/prebuilts/drop/DropERC721.sol', 'DropERC721'),
  // thirdweb's factory clones the implementation (EIP-1167); an ERC-1967 proxy is what a creator deploying it
  // themselves puts in front of it (the tests put Manifold's implementation behind it too).
  target(THIRDWEB, '@openzeppelin/contracts-4/proxy/ERC1967/ERC1967Proxy.sol', 'ERC1967Proxy'),
  target(ZORA, '@zoralabs/nft-drop-contracts/src/ERC721Drop.sol', 'ERC721Drop'),
  target(ZORA, '@zoralabs/nft-drop-contracts/src/ERC721DropProxy.sol', 'ERC721DropProxy'),
  target(ZORA, '@zoralabs/nft-drop-contracts/src/metadata/DropMetadataRenderer.sol', 'DropMetadataRenderer'),
  target(MANIFOLD, '@manifoldxyz/creator-core-solidity/contracts/ERC721Creator.sol', 'ERC721Creator'),
  // The same logic with initialize(name, symbol): what a Manifold Studio collection's EIP-1967 proxy runs.
  target(MANIFOLD, '@manifoldxyz/creator-core-solidity/contracts/ERC721CreatorImplementation.sol',
    'ERC721CreatorImplementation'),
];

// ProtocolRewards 1.1.0 imports a file its package does not ship (_imagine/Enjoy.sol): the drop needs one deployed
// (its mint fee goes there), so it comes from the package's own build output, recorded with that file's sha256.
const PROTOCOL_REWARDS = '@zoralabs/protocol-rewards/dist/artifacts/ProtocolRewards.sol/ProtocolRewards.json';
function protocolRewards() {
  const text = fs.readFileSync(locate(PROTOCOL_REWARDS), 'utf8');
  const built = JSON.parse(text);
  return {
    abi: built.abi,
    bytecode: built.bytecode.object,
    compiler: built.metadata.compiler.version,
    contract_name: 'ProtocolRewards',
    deployed_bytecode: built.deployedBytecode.object,
    immutable_references: Object.values(built.deployedBytecode.immutableReferences || {}).flat()
      .sort((a, b) => a.start - b.start),
    packages: { '@zoralabs/protocol-rewards': packageVersion('@zoralabs/protocol-rewards') },
    settings: { evmVersion: built.metadata.settings.evmVersion, optimizer: built.metadata.settings.optimizer },
    source_path: PROTOCOL_REWARDS,
    source_sha256: sha256(text),
    sources: { [PROTOCOL_REWARDS]: sha256(text) },
  };
}

main(TARGETS, process.argv.slice(2),
  [{ contract: 'ProtocolRewards', out: '../tests/chain/artifacts/ProtocolRewards.json', build: protocolRewards }]);
