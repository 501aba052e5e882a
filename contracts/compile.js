#!/usr/bin/env node
// Compile mintprep's contracts offline with solc-js and write the artifacts mintprep commits and loads.
//
//   node compile.js                  write every artifact to its committed path
//   node compile.js --check          write nothing; list each committed artifact that differs from a fresh
//                                    compile and exit 1 if there is one
//
// The published platform contracts the tests deploy are built by compile_platforms.js (same code, solc_build.js).
'use strict';
const { main } = require('./solc_build');

// Fixed here, recorded in the artifact: source verification (Basescan, Sourcify) must repeat them exactly.
const SETTINGS = { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 } };
const target = (source, contract, out) =>
  ({ source, contract, out, settings: SETTINGS, packages: ['@openzeppelin/contracts'] });

const TARGETS = [
  target('MintprepDrop.sol', 'MintprepDrop', '../mintprep/chain/artifacts/MintprepDrop.json'),
  target('test/ReentrantMinter.sol', 'ReentrantMinter', '../tests/chain/artifacts/ReentrantMinter.json'),
  // Contracts in the shapes real collections use, for the contract-family tests.
  ...['AzukiStyle', 'PerTokenURIs', 'SimpleNft', 'SimpleNftLowerGas'].map((name) => target(
    `test/families/${name}.sol`, name === 'SimpleNft' ? 'NFT' : name, `../tests/chain/artifacts/${name}.json`)),
  // A stranger's contract as an attacker writes it, for the hostile-input tests (tests/hostile).
  target('test/hostile/HostileERC721.sol', 'HostileERC721', '../tests/chain/artifacts/HostileERC721.json'),
];

main(TARGETS, process.argv.slice(2));
