"""Reads of a stranger's contract through a node that is checked, not trusted, below any contract model (the
families, a profile): token ids within what the ledger stores, token URIs within a documented length, an
enumeration checked against the Transfer history, and Transfer logs filtered by address and topic whatever the
node returns, scanned in ranges the node accepts (narrowed on refusal, widened again after) within a deadline."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from web3 import Web3
from web3.exceptions import ContractLogicError

from mintprep.base import UserError, summarise_ids
from mintprep.collection import TRANSFER_TOPIC
from mintprep.chain.rpc import RPC_FAILURES, rpc_failure_reason
from mintprep.net import AnswerTooLarge, redact_url

MAX_TOKEN_ID = 2**63 - 1  # SQLite's INTEGER: the ledger stores ids as such
MAX_COLLECTION_TOKENS = 1_000_000  # ids a contract may say it serves (max supply): 10,000 is a large collection
MAX_TOKEN_URI_CHARS = 16 * 1024  # an ipfs:// URI is under 200; a longer "URI" (10 MB of text) is refused by token
LOG_BLOCK_RANGE = 10_000  # the widest eth_getLogs range asked for: endpoints refuse wide ones (limits differ)
LOG_SCAN_DEADLINE_S = 300.0  # the whole scan; a node that accepts one block at a time over 5,000,000 never ends


def checked_token_id(value: int, where: str) -> int:
    """`value` as a token id mintprep can record, or UserError naming it and `where` it came from."""
    if not 0 <= value <= MAX_TOKEN_ID:
        raise UserError(f"{where}: token id {value} is outside the ids mintprep records (0 to 2^63-1)")
    return value


def checked_supply(count: int, where: str) -> int:
    """A contract's max supply as a count of ids to read, or UserError naming it (2^256-1 is not a collection)."""
    if not 0 <= count <= MAX_COLLECTION_TOKENS:
        raise UserError(f"{where}: its max supply {count} is over the {MAX_COLLECTION_TOKENS:,} tokens mintprep reads "
                        "for one collection")
    return count


def checked_token_uri(token_id: int, uri: object) -> str:
    text = str(uri)
    if len(text) > MAX_TOKEN_URI_CHARS:
        raise UserError(f"tokenURI({token_id}) is {len(text)} characters, over the {MAX_TOKEN_URI_CHARS} mintprep "
                        "reads (an ipfs:// URI is under 200)")
    return text


def read_each(ids: Iterable[int], read: Callable[[int], str], what: str) -> tuple[dict[int, str], dict[int, str]]:
    """`read(id)` for each id, and for each id the contract cannot answer (its call reverts, its answer is refused
    as too long) why, naming it: one token's broken URI does not stop the others' reads."""
    values: dict[int, str] = {}
    failed: dict[int, str] = {}
    for token_id in ids:
        try:
            values[token_id] = read(token_id)
        except ContractLogicError as exc:
            failed[token_id] = f"{what}({token_id}) reverted ({str(exc)[:200]})"
        except AnswerTooLarge as exc:
            failed[token_id] = f"{what}({token_id}): {exc}"
        except UserError as exc:  # checked_token_uri
            failed[token_id] = str(exc)
    return values, failed


def enumerated_ids(total: int, history: list[int], token_by_index: Callable[[int], int], where: str) -> list[int]:
    """The ids an ERC721Enumerable lists, read one call per index only when `totalSupply()` = `total` agrees with
    the ids its Transfer history minted (`history`): a contract saying 2^256-1 is refused, not iterated."""
    if total != len(history):
        raise UserError(f"{where}: totalSupply() says {total} tokens but its Transfer history shows {len(history)}; "
                        "refused rather than read one index at a time")
    ids = sorted(checked_token_id(token_by_index(index), where) for index in range(total))
    if ids != sorted(history):
        raise UserError(f"{where}: tokenByIndex lists ids its Transfer history does not mint "
                        f"({summarise_ids(set(ids) ^ set(history))})")
    return ids


def transfer_logs(w3: Web3, address: str, low: int, head: int, *, deadline_s: float = LOG_SCAN_DEADLINE_S,
                  clock: Callable[[], float] = time.monotonic) -> list[Any]:
    """Every Transfer log of `address` in blocks `low`..`head`: a refused range is halved, and after each accepted
    one the range doubles again (up to LOG_BLOCK_RANGE); logs of another address or topic are dropped, whatever
    the node returns. UserError naming the node and the range it refused once `deadline_s` has passed, or when it
    refuses a single block."""
    give_up_at = clock() + deadline_s
    span, logs, refused = LOG_BLOCK_RANGE, [], ""
    while low <= head:
        if clock() > give_up_at:
            raise UserError(f"{_node(w3)} did not give the Transfer logs of {address} within {deadline_s:g} s "
                            f"(blocks {low}..{head} left; it refused {refused or 'no range'})")
        high = min(low + span - 1, head)
        try:
            answer = w3.eth.get_logs({"address": address, "fromBlock": low, "toBlock": high,
                                      "topics": [TRANSFER_TOPIC]})
        except TypeError as exc:  # web3's formatters on a log that is not one (an address that is a list)
            raise UserError(f"{_node(w3)} answered eth_getLogs for {address} with malformed logs "
                            f"({str(exc)[:200]})") from None
        except RPC_FAILURES as exc:
            refused = f"blocks {low}..{high}: {rpc_failure_reason(exc)}"
            if span == 1:
                raise UserError(f"{_node(w3)} refused the Transfer logs of {address} in one block ({refused})") \
                    from None
            span //= 2
            continue
        logs += _ours(answer, address)
        low, span = high + 1, min(span * 2, LOG_BLOCK_RANGE)
    return logs


def _ours(logs: Iterable[Any], address: str) -> list[Any]:
    """The logs this contract emitted as Transfer events: a node may append others."""
    wanted = address.lower()
    return [log for log in logs if str(log["address"]).lower() == wanted and log["topics"]
            and Web3.to_hex(log["topics"][0]).lower() == TRANSFER_TOPIC]


def _node(w3: Web3) -> str:
    return f"the RPC at {redact_url(str(getattr(w3.provider, 'endpoint_uri', 'the node')))}"
