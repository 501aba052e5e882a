"""The collection model: collection.yaml and its loading, prompt templates, trait draws, rarity, the ERC-721
metadata and manifest formats, and the rule that published token ids stay published. Pure: reads files only."""
