"""Deciding whether an image is healthy: thresholds, pixel metrics, near-duplicate hashing, untrusted file reading.
Pure functions of pixels and settings; writes nothing."""
