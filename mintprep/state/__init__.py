"""Everything under a collection's `.mintprep/`: the ledger, the object store, and the Workspace a command opens."""
