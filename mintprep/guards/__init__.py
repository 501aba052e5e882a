"""Deciding whether an image is healthy: thresholds, pixel metrics, near-duplicate hashing, and what an imported
file must be (a raster image, bounded JSON).
Pure functions of pixels and settings; writes nothing."""
