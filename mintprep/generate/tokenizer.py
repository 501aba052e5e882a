"""An offline CLIP tokenizer: byte-level BPE with no merges, so every byte of the prompt is one token.

The tiny model must run with no network, so it cannot fetch a tokenizer from the Hub. This vocabulary covers any
UTF-8 text (256 byte symbols, each also with the end-of-word suffix, plus the two specials), which is all a
random-weight text encoder needs.
"""

from __future__ import annotations

from functools import lru_cache

from transformers import CLIPTokenizer

BOS = "<|startoftext|>"
EOS = "<|endoftext|>"
MODEL_MAX_LENGTH = 77  # CLIP's context; pipelines pad every prompt to this length


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable-character table (transformers v5 no longer exports it)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    codes = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            codes.append(256 + extra)
            extra += 1
    return {byte: chr(code) for byte, code in zip(printable, codes)}


def byte_level_vocab() -> dict[str, int]:
    symbols = sorted(_bytes_to_unicode().values())
    tokens = symbols + [symbol + "</w>" for symbol in symbols] + [BOS, EOS]
    return {token: index for index, token in enumerate(tokens)}


@lru_cache(maxsize=1)
def byte_level_clip_tokenizer() -> CLIPTokenizer:
    return CLIPTokenizer(vocab=byte_level_vocab(), merges=[], model_max_length=MODEL_MAX_LENGTH)
