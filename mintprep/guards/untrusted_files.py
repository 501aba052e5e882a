"""Moved to mintprep.base.untrusted_files (every file a user names is read there); these names stay importable."""

from mintprep.base.untrusted_files import MAX_FILE_BYTES, MAX_PIXELS, check_pixel_count, read_regular_file

__all__ = ["MAX_FILE_BYTES", "MAX_PIXELS", "check_pixel_count", "read_regular_file"]
