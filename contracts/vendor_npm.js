#!/usr/bin/env node
// Unpack the npm packages listed under "vendorPackages" in package.json into vendor-npm/<name>, for compiling
// their Solidity sources only. They cannot be plain dependencies: @zoralabs/nft-drop-contracts depends on GitHub
// URLs (forge-std, ds-test), and @manifoldxyz/creator-core-solidity on truffle test tooling (hundreds of packages)
// that no contract imports. `npm pack` fetches the registry tarball, which must have the integrity pinned here.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const HERE = __dirname;
const TARGET = path.join(HERE, 'vendor-npm');
const wanted = JSON.parse(fs.readFileSync(path.join(HERE, 'package.json'), 'utf8')).vendorPackages;

for (const [name, { version, integrity }] of Object.entries(wanted)) {
  const into = path.join(TARGET, name);
  const manifest = path.join(into, 'package.json');
  if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, 'utf8')).version === version) continue;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vendor-npm-'));
  try {
    let packed;
    try {
      [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', scratch,
        `${name}@${version}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
    } catch (error) {
      console.error(`npm pack ${name}@${version} failed (is the npm registry reachable?): ${error.message}`);
      process.exit(1);
    }
    if (packed.integrity !== integrity) {
      console.error(`${name}@${version}: the registry tarball's integrity ${packed.integrity} is not the pinned ${integrity}`);
      process.exit(1);
    }
    fs.rmSync(into, { recursive: true, force: true });
    fs.mkdirSync(into, { recursive: true });
    execFileSync('tar', ['xzf', path.join(scratch, packed.filename), '--strip-components=1', '-C', into]);
    console.log(`unpacked ${name}@${version} into ${path.relative(HERE, into)}`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
