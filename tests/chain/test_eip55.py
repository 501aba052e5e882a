"""mintprep's EIP-55 spelling (base/eip55.py, kept free of eth_utils for a quick start) against eth_utils' own and
the EIP's examples (https://eips.ethereum.org/EIPS/eip-55)."""

from __future__ import annotations

import pytest
from eth_utils import is_checksum_address
from eth_utils import to_checksum_address as reference
from hypothesis import given
from hypothesis import strategies as st

from mintprep.base.eip55 import has_valid_checksum, to_checksum_address

EIP_EXAMPLES = ["0x52908400098527886E0F7030069857D2E4169EE7", "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
                "0xde709f2102306220921060314715629080e2fb77", "0x27b1fdb04752bbc536007a920d24acb045561c26",
                "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
                "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"]


@given(st.binary(min_size=20, max_size=20), st.sampled_from([str.lower, str.upper]))
def test_the_spelling_is_eth_utils_spelling(raw: bytes, case) -> None:
    address = "0x" + case(raw.hex())
    assert to_checksum_address(address) == reference(address)
    assert has_valid_checksum(reference(address))


@pytest.mark.parametrize("address", EIP_EXAMPLES)
def test_the_eips_examples_are_valid_and_a_flipped_letter_is_not(address: str) -> None:
    assert has_valid_checksum(address)  # all upper or all lower case: no checksum to check
    mixed = to_checksum_address(address)
    assert mixed == reference(address) and is_checksum_address(mixed)
    position = next(i for i, c in enumerate(mixed) if i > 1 and c.isalpha())
    flipped = mixed[:position] + mixed[position].swapcase() + mixed[position + 1:]
    assert has_valid_checksum(mixed) and not has_valid_checksum(flipped)


@pytest.mark.parametrize("text", ["0x1234", "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0x" + "g" * 40])
def test_anything_but_0x_and_40_hex_digits_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="0x-prefixed 20-byte hex address"):
        to_checksum_address(text)
