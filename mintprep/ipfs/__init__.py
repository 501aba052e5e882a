"""Content addressing (kubo-exact UnixFS importer, CIDs, CAR) and pinning backends."""
