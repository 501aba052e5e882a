"""Gas of mint(1), mint(5) and transfers: OpenZeppelin ERC721 (what MintprepDrop uses) against ERC721A (npm erc721a).

    python bench/bench_gas.py            # prints JSON; needs Node + `npm ci --prefix contracts` (solc, erc721a, anvil)

bench/gas/BenchOZ.sol and BenchA.sol hold the same minimal mint (no price, no phases) on each base, compiled here
with the drop's solc settings; MintprepDrop itself is measured too (public phase, a fresh buyer each time). Each
figure is the receipt's gasUsed on anvil (cancun rules): deterministic, so one run is enough.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from web3 import Web3

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mintprep.chain.artifact import CONTRACTS_DIR  # noqa: E402
from tests.support.anvil import DropParams, deploy_test_drop, dev_accounts, start_anvil  # noqa: E402

HERE = Path(__file__).parent / "gas"
COMPILE = """
const solc = require('solc'); const fs = require('fs'); const path = require('path');
const dir = process.argv[1], modules = process.argv[2], names = process.argv.slice(3);
const sources = Object.fromEntries(names.map((n) => [n + '.sol', { content: fs.readFileSync(path.join(dir, n + '.sol'), 'utf8') }]));
const input = { language: 'Solidity', sources, settings: { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
const out = JSON.parse(solc.compile(JSON.stringify(input), { import: (p) => ({ contents: fs.readFileSync(path.join(modules, p), 'utf8') }) }));
const errors = (out.errors || []).filter((e) => e.severity === 'error');
if (errors.length) { console.error(errors.map((e) => e.formattedMessage).join('\\n')); process.exit(1); }
console.log(JSON.stringify(Object.fromEntries(names.map((n) => [n, { abi: out.contracts[n + '.sol'][n].abi, bytecode: '0x' + out.contracts[n + '.sol'][n].evm.bytecode.object }]))));
"""


def compile_bench(names: list[str]) -> dict:
    done = subprocess.run(["node", "-e", COMPILE, str(HERE), str(CONTRACTS_DIR / "node_modules"), *names],
                          cwd=CONTRACTS_DIR, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def gas(w3: Web3, tx_hash: bytes) -> int:
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash)
    assert receipt["status"] == 1
    return int(receipt["gasUsed"])


def measure(w3: Web3, contract, mint_args, price: int = 0) -> dict[str, int]:
    a, b, c, d = (acct.address for acct in dev_accounts()[1:5])
    one = gas(w3, contract.functions.mint(*mint_args(1)).transact({"from": a, "value": price}))
    five = gas(w3, contract.functions.mint(*mint_args(5)).transact({"from": b, "value": 5 * price}))
    # Token 2..6 are b's batch: the first of a batch, and one in its middle (ERC721A must walk back to find its
    # owner and then write the next slot), then a second transfer of the same token (both bases: plain).
    first = gas(w3, contract.functions.transferFrom(b, c, 2).transact({"from": b}))
    middle = gas(w3, contract.functions.transferFrom(b, c, 4).transact({"from": b}))
    again = gas(w3, contract.functions.transferFrom(c, d, 4).transact({"from": c}))
    return {"mint(1)": one, "mint(5)": five, "transfer first of batch": first, "transfer middle of batch": middle,
            "transfer again": again}


def main() -> None:
    built = compile_bench(["BenchOZ", "BenchA"])
    results = {}
    with start_anvil() as node:
        w3 = Web3(Web3.HTTPProvider(node.url))
        owner = dev_accounts()[0]
        for name, art in built.items():
            factory = w3.eth.contract(abi=art["abi"], bytecode=art["bytecode"])
            address = w3.eth.wait_for_transaction_receipt(factory.constructor().transact({"from": owner.address}))[
                "contractAddress"]
            results[name] = measure(w3, w3.eth.contract(address=address, abi=art["abi"]), lambda q: (q,))
        drop = deploy_test_drop(w3, owner, DropParams(max_per_wallet=10))
        price = DropParams().mint_price_wei
        results["MintprepDrop"] = measure(w3, drop.contract, lambda q: (0, q, []), price)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
