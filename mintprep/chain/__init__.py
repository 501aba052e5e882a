"""The drop contract on Base: compiled artifact, deploy, and the config-vs-chain check."""
