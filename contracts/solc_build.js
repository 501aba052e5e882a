// Compile a list of contracts offline with solc-js and write (or check) the artifacts mintprep commits.
// Shared by compile.js (mintprep's own contracts) and compile_platforms.js (the platforms' published contracts).
//
// A target is { source, contract, out, solc?, settings?, packages? }:
//   source    the source unit name: a path under contracts/ for our own files, an npm import path
//             ("@thirdweb-dev/contracts/prebuilts/drop/DropERC721.sol") for a published one
//   solc      the npm package of the compiler ("solc", or an alias such as "solc-0.8.23")
//   settings  solc settings recorded in the artifact (evmVersion, optimizer, remappings)
//   packages  npm packages whose versions the artifact records, besides those the sources came from
// Imports resolve from node_modules, then vendor-npm (packages the Makefile unpacks with `npm pack`), and every
// resolved file's sha256 is recorded, so a changed dependency shows up as a changed artifact even when the
// bytecode happens to match.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const HERE = __dirname;
const PACKAGE_ROOTS = ['node_modules', 'vendor-npm'].map((dir) => path.join(HERE, dir));

const sha256 = (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

// A missing package or source is a setup problem, said in one line (exit 3, as for a compile error).
function fail(message) {
  console.error(message);
  process.exit(3);
}

function locate(name) {
  for (const root of PACKAGE_ROOTS) {
    const file = path.join(root, name);
    if (fs.existsSync(file)) return file;
  }
  return null;
}

function packageVersion(name) {
  const manifest = locate(path.join(name, 'package.json'));
  if (!manifest) fail(`package ${name} is not installed (run make tools)`);
  return JSON.parse(fs.readFileSync(manifest, 'utf8')).version;
}

// "@scope/name/dir/file.sol" -> "@scope/name"; "name/dir/file.sol" -> "name".
const packageOf = (sourceName) => sourceName.split('/').slice(0, sourceName.startsWith('@') ? 2 : 1).join('/');

function readSource(source) {
  const local = path.join(HERE, source);
  const file = fs.existsSync(local) ? local : locate(source);
  if (!file) fail(`source ${source} not found (run make tools)`);
  return { content: fs.readFileSync(file, 'utf8'), local: file === local };
}

function compile({ source, contract, solc: compiler = 'solc', settings, packages = [] }) {
  const solc = require(compiler);
  const resolved = {};
  const findImports = (importPath) => {
    const file = locate(importPath);
    if (!file) return { error: `File not found: ${importPath} (run make tools)` };
    resolved[importPath] = fs.readFileSync(file, 'utf8');
    return { contents: resolved[importPath] };
  };
  const { content, local } = readSource(source);
  const input = {
    language: 'Solidity',
    sources: { [source]: { content } },
    settings: {
      ...settings,
      outputSelection: {
        [source]: { [contract]: ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object',
          'evm.deployedBytecode.immutableReferences'] },
      },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  const problems = (output.errors || []).filter((e) => e.severity === 'error');
  if (problems.length) fail(problems.map((e) => e.formattedMessage).join('\n')); // not --check's "stale" 1
  const compiled = output.contracts[source][contract];
  const sources = { [source]: sha256(content) };
  for (const name of Object.keys(resolved).sort()) sources[name] = sha256(resolved[name]);
  const used = [...(local ? [] : [source]), ...Object.keys(resolved)].map(packageOf);
  const recorded = [...new Set([compiler, ...packages, ...used.sort()])];
  return {
    abi: compiled.abi,
    bytecode: '0x' + compiled.evm.bytecode.object,
    compiler: solc.version(),
    contract_name: contract,
    deployed_bytecode: '0x' + compiled.evm.deployedBytecode.object,
    // Byte ranges of the runtime code the constructor fills with immutables: `check` masks them to compare.
    immutable_references: Object.values(compiled.evm.deployedBytecode.immutableReferences || {}).flat()
      .sort((a, b) => a.start - b.start),
    packages: Object.fromEntries(recorded.map((name) => [name, packageVersion(name)])),
    settings,
    source_path: source,
    source_sha256: sources[source],
    sources,
  };
}

// Write each target's artifact, or with --check write nothing and print "fresh"/"STALE" per artifact (exit 1 if
// one is stale). One "<state> <Contract> <path>" line per artifact on stdout (mintprep.chain.artifact parses it);
// the time each compile took on stderr.
function main(targets, argv, extra = []) {
  const check = argv.includes('--check');
  let stale = 0;
  const write = (name, artifact, out, started) => {
    const text = JSON.stringify(artifact, null, 1) + '\n';
    if (check) {
      const same = fs.existsSync(out) && fs.readFileSync(out, 'utf8') === text;
      if (!same) stale += 1;
      console.log(`${same ? 'fresh' : 'STALE'} ${name} ${out}`);
    } else {
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, text);
      console.log(`wrote ${name} ${out}`);
    }
    console.error(`${name}: ${Date.now() - started} ms, ${text.length} B`);
  };
  for (const target of targets) {
    const started = Date.now();
    write(target.contract, compile(target), path.join(HERE, target.out), started);
  }
  for (const { contract, out, build } of extra) {
    const started = Date.now();
    write(contract, build(), path.join(HERE, out), started);
  }
  process.exit(stale ? 1 : 0);
}

module.exports = { main, locate, packageVersion, sha256 };
