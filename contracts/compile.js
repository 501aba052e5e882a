#!/usr/bin/env node
// Compile the contracts offline with solc-js and write the artifacts mintprep commits and loads.
//
//   node compile.js                  write every artifact to its committed path
//   node compile.js --check          write nothing; list each committed artifact that differs from a fresh
//                                    compile and exit 1 if there is one
//
// Imports resolve from node_modules only, and every resolved file's sha256 is recorded in the artifact, so a
// change of the OpenZeppelin version shows up as a changed artifact even when the bytecode happens to match.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const solc = require('solc');

const HERE = __dirname;
const TARGETS = [
  { source: 'MintprepDrop.sol', contract: 'MintprepDrop', out: '../mintprep/chain/artifacts/MintprepDrop.json' },
  { source: 'test/ReentrantMinter.sol', contract: 'ReentrantMinter', out: '../tests/chain/artifacts/ReentrantMinter.json' },
  // Contracts in the shapes real collections use, for the contract-family tests.
  ...['HashLipsTutorial', 'AzukiStyle', 'PerTokenURIs'].map((name) => (
    { source: `test/families/${name}.sol`, contract: name, out: `../tests/chain/artifacts/${name}.json`,
      packages: name === 'AzukiStyle' ? ['erc721a'] : [] })),
  // A stranger's contract as an attacker writes it, for the hostile-input tests (tests/hostile).
  { source: 'test/hostile/HostileERC721.sol', contract: 'HostileERC721', out: '../tests/chain/artifacts/HostileERC721.json' },
];
// Fixed here, recorded in the artifact: source verification (Basescan, Sourcify) must repeat them exactly.
const SETTINGS = { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 } };
const PACKAGES = ['solc', '@openzeppelin/contracts'];

const sha256 = (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
const packageVersion = (name) =>
  JSON.parse(fs.readFileSync(path.join(HERE, 'node_modules', name, 'package.json'), 'utf8')).version;

function compile({ source, contract, packages = [] }) {
  const resolved = {};
  const findImports = (importPath) => {
    const file = path.join(HERE, 'node_modules', importPath);
    if (!fs.existsSync(file)) return { error: `File not found: ${importPath} (run npm ci --prefix contracts)` };
    resolved[importPath] = fs.readFileSync(file, 'utf8');
    return { contents: resolved[importPath] };
  };
  const content = fs.readFileSync(path.join(HERE, source), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { [source]: { content } },
    settings: {
      ...SETTINGS,
      outputSelection: {
        [source]: { [contract]: ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object',
          'evm.deployedBytecode.immutableReferences'] },
      },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  const problems = (output.errors || []).filter((e) => e.severity === 'error');
  if (problems.length) {
    for (const e of problems) console.error(e.formattedMessage);
    process.exit(3); // distinct from --check's "stale" exit 1
  }
  const compiled = output.contracts[source][contract];
  const sources = { [source]: sha256(content) };
  for (const name of Object.keys(resolved).sort()) sources[name] = sha256(resolved[name]);
  return {
    abi: compiled.abi,
    bytecode: '0x' + compiled.evm.bytecode.object,
    compiler: solc.version(),
    contract_name: contract,
    deployed_bytecode: '0x' + compiled.evm.deployedBytecode.object,
    // Byte ranges of the runtime code the constructor fills with immutables: `check` masks them to compare.
    immutable_references: Object.values(compiled.evm.deployedBytecode.immutableReferences || {}).flat()
      .sort((a, b) => a.start - b.start),
    packages: Object.fromEntries([...PACKAGES, ...packages].map((name) => [name, packageVersion(name)])),
    settings: SETTINGS,
    source_path: source,
    source_sha256: sources[source],
    sources,
  };
}

function main(argv) {
  const check = argv.includes('--check');
  let stale = 0;
  for (const target of TARGETS) {
    const started = Date.now();
    const text = JSON.stringify(compile(target), null, 1) + '\n';
    const out = path.join(HERE, target.out);
    if (check) {
      const same = fs.existsSync(out) && fs.readFileSync(out, 'utf8') === text;
      if (!same) stale += 1;
      console.log(`${same ? 'fresh' : 'STALE'} ${target.contract} ${out}`);
      continue;
    }
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, text);
    console.log(`wrote ${target.contract} ${out}`);
    console.error(`${target.contract}: ${Date.now() - started} ms, ${text.length} B`);
  }
  process.exit(stale ? 1 : 0);
}

main(process.argv.slice(2));
