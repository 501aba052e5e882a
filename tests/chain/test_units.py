"""Pure parts of mintprep.chain, no node needed: wei from decimal strings, tips, revert decoding, URL redaction."""

from __future__ import annotations

from decimal import Decimal

import pytest
from eth_abi import encode
from eth_utils import keccak
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from web3 import Web3

from mintprep.collection.chain_settings import MAX_PRICE_ETH, ChainSettings
from mintprep.chain.txs import MIN_PRIORITY_FEE_WEI, FeeQuote, choose_priority_fee, describe_revert
from mintprep.net.urls import redact_url


@given(st.decimals(min_value=0, max_value=MAX_PRICE_ETH - 1, places=18, allow_nan=False, allow_infinity=False))
def test_mint_price_converts_to_exact_wei(amount: Decimal):
    text = format(amount, "f")
    assert ChainSettings(mint_price=text).sale_phases()[0].price_wei == Web3.to_wei(Decimal(text), "ether")


def test_the_users_price_is_exact_where_a_float_is_not():
    assert ChainSettings(mint_price="0.00063").sale_phases()[0].price_wei == 630_000_000_000_000
    assert ChainSettings(mint_price="0.3").sale_phases()[0].price_wei == 3 * 10**17  # a float 0.1+0.2 gives ...040


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("mint_price", 0.00063, "decimal string"),
        ("mint_price", "0.0000000000000000001", "more than 18 decimals"),
        ("mint_price", "-1", "non-negative"),
        ("contract", "0x1234", "20-byte hex address"),
        ("contract", "0x5FbDB2315678afecb367f032d93F642f64180AA3", "checksum"),  # one letter's case flipped
        ("max_per_wallet", 0, "greater than or equal to 1"),
        ("royalty_bps", 10_001, "less than or equal to 10000"),
    ],
)
def test_bad_chain_settings_name_the_field(field, value, message):
    with pytest.raises(ValidationError) as caught:
        ChainSettings(**{field: value})
    assert caught.value.errors()[0]["loc"] == (field,)
    assert message in str(caught.value)


def test_lowercase_addresses_are_checksummed():
    settings = ChainSettings(contract="0x5fbdb2315678afecb367f032d93f642f64180aa3")
    assert settings.contract == "0x5FbDB2315678afecb367f032d93F642f64180aa3"


def test_rpc_url_applies_to_its_own_network_only():
    settings = ChainSettings(network="base", rpc_url="https://my.node/base")
    assert settings.endpoint() == (settings.endpoint()[0], "https://my.node/base")
    other, url = settings.endpoint("base-sepolia")
    assert (other.chain_id, url) == (84532, "https://sepolia.base.org")
    assert settings.endpoint("base", "http://override")[1] == "http://override"


@pytest.mark.parametrize(
    ("tips", "chosen"),
    [([], MIN_PRIORITY_FEE_WEI), ([0, 0, 0], MIN_PRIORITY_FEE_WEI), ([5, 3_000_000, 7_000_000], 3_000_000),
     ([0, 2_000_000, 4_000_000], 3_000_000), ([10**9] * 3, 10**9)],
)
def test_priority_fee_is_the_median_paid_tip_with_a_tiny_floor(tips, chosen):
    assert choose_priority_fee(tips) == chosen


def test_max_fee_leaves_room_for_two_base_fee_doublings():
    quote = FeeQuote(base_fee=5_000_000, priority_fee=1_000_000)
    assert quote.tx_fields() == {"maxFeePerGas": 11_000_000, "maxPriorityFeePerGas": 1_000_000}


def test_custom_errors_decode_with_names_and_values():
    payload = keccak(text="WrongPayment(uint256,uint256)")[:4] + encode(["uint256", "uint256"], [630, 629])
    assert describe_revert("0x" + payload.hex()) == "WrongPayment(expected=630, sent=629)"
    assert describe_revert(keccak(text="ZeroQuantity()")[:4]) == "ZeroQuantity()"
    assert describe_revert("0xdeadbeef") == "unknown error 0xdeadbeef"
    assert describe_revert(None) == "reverted without a reason"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://base-mainnet.g.alchemy.com/v2/AbCdEf0123456789xyzXYZ", "https://base-mainnet.g.alchemy.com/v2/***"),
        ("https://rpc.example/?apikey=0123456789abcdef0123", "https://rpc.example/?apikey=***"),
        ("https://user:hunter2@node.example:8545/", "https://***@node.example:8545/"),
        ("http://127.0.0.1:8545", "http://127.0.0.1:8545"),
        ("https://mainnet.base.org", "https://mainnet.base.org"),
    ],
)
def test_rpc_urls_are_printed_without_keys(url, shown):
    assert redact_url(url) == shown
