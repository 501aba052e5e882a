"""Deciding whether an image is healthy: thresholds, pixel metrics, near-duplicate hashing, and what an imported
file must be (a raster image, bounded JSON).
Pure functions of pixels and settings; writes nothing.

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base import face

__all__, __getattr__ = face(__name__, {
    "check_pixels": "image_guards", "describe_decision": "image_guards", "load_rgb": "image_guards",
    "thumbnail_png": "image_guards", "validate_file": "image_guards", "validate_png": "image_guards",
    "MAX_DOCUMENT_BYTES": "imported_content",
    "MAX_IMPORTED_IMAGE_BYTES": "imported_content", "parse_json_document": "imported_content",
    "find_duplicates": "near_duplicates", "hex_hash": "near_duplicates", "phash": "near_duplicates",
    "tile_difference": "near_duplicates", "tile_signature": "near_duplicates",
    "GuardSettings": "settings",
    "pixel_warnings": "image_guards", "Judgement": "judgement", "judge_rgb": "judgement",
    "decode_raster_image": "imported_content",
})
