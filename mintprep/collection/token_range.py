"""A collection's token ids (pure: `status` lists them without loading the collection's models)."""


def token_ids(size: int, zero_indexed: bool) -> range:
    """A collection's `size` ids: from 0 when it has a token 0 (Sugar, thirdweb, ERC721A sources), else from 1."""
    return range(0, size) if zero_indexed else range(1, size + 1)
