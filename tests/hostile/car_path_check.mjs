// An independent reader of a trustless gateway's CAR for a path (IPIP-402), for tests/hostile/test_gateway_paths.py:
// npm @ipld/car reads the CAR, npm multiformats hashes every block against its CID, npm @ipld/dag-pb decodes each
// directory on the path from the CAR's root and follows the link of each name given. None of mintprep's code runs.
//
//   node car_path_check.mjs FILE.car NAME...   prints {"roots", "blocks", "terminal", "terminal_in_car"} as JSON
import fs from 'node:fs';
import { CarReader } from '@ipld/car';
import * as dagPB from '@ipld/dag-pb';
import { sha256 } from 'multiformats/hashes/sha2';

const [file, ...names] = process.argv.slice(2);
const reader = await CarReader.fromBytes(fs.readFileSync(file));
const roots = await reader.getRoots();
const blocks = new Map();
for await (const { cid, bytes } of reader.blocks()) {
  const digest = (await sha256.digest(bytes)).digest;
  if (cid.multihash.code !== sha256.code || Buffer.compare(Buffer.from(digest), Buffer.from(cid.multihash.digest))) {
    throw new Error(`block ${cid} does not hash to its CID`);
  }
  blocks.set(cid.toString(), bytes);
}
let cid = roots[0];
for (const name of names) {
  const bytes = blocks.get(cid.toString());
  if (!bytes) throw new Error(`the CAR lacks ${cid}, on the path before ${name}`);
  const link = dagPB.decode(bytes).Links.find((each) => each.Name === name);
  if (!link) throw new Error(`no ${name} in ${cid}`);
  cid = link.Hash;
}
console.log(JSON.stringify({ roots: roots.map(String), blocks: [...blocks.keys()], terminal: cid.toString(),
                             terminal_in_car: blocks.has(cid.toString()) }));
