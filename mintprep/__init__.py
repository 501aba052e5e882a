"""mintprep: prepare generative NFT collections for minting.

generate -> validate -> pin -> manifest -> page, every stage content-addressed in a ledger
beside the collection file, so a rerun does only what changed.
"""

__version__ = "0.1.0"
