"""The foundation every package may import: the error family, content hashing (and EIP-55 address checksums with
batch Keccak), progress reporting, the strict base of every config model, work over threads in order
(ordered_threads), the kill tests' fault hook (faults), and the storage primitives the packages above share: the
names under `.mintprep/` (state_dir), files written whole (durable_files) and folders replaced whole (sitedir),
what a command kept of a collection file it validated (kept_inputs), whether files changed since a look at them
(watched_files), SQLite opened for one writer or any reader (sqlite, wal_image). Imports nothing else of mintprep.

This module is the package's face: other packages import these names from it, never from a submodule; each loads
on first use (mintprep.base.lazy_face).
"""

from mintprep.base.lazy_face import face

__all__, __getattr__ = face(__name__, {
    "read_whole": "durable_files", "write_atomic": "durable_files", "write_atomic_with": "durable_files",
    "write_durably": "durable_files",
    "checksum_digits": "eip55", "has_valid_checksum": "eip55", "HEX_ADDRESS": "eip55", "to_checksum_address": "eip55",
    "BlockNotFound": "errors", "CarError": "errors", "CidMismatch": "errors", "ConfigError": "errors",
    "CorruptBlock": "errors", "DISK_FULL_ERRNOS": "errors", "DiskFull": "errors", "PageCannotMint": "errors", "ResponseTooLarge": "errors", "FileTooLarge": "errors", "TooLarge": "errors",
    "KeysOutdated": "errors", "KuboError": "errors", "LedgerBusy": "errors", "NoContract": "errors", "ProfileError": "errors", "MintprepError": "errors",
    "NotAcceptable": "errors", "NotRevealed": "errors", "NotUnixFS": "errors", "ObjectCorrupt": "errors",
    "ObjectMissing": "errors",
    "PinsFailed": "errors", "Rejected": "errors", "RemoteError": "errors", "ServiceUnavailable": "errors",
    "TemplateError": "errors", "TooDeep": "errors", "Unreadable": "errors", "UserError": "errors",
    "VerificationFailed": "errors", "YamlRefused": "errors",
    "fault_point": "faults",
    "code_fingerprint": "kept_inputs", "keep": "kept_inputs", "read_kept": "kept_inputs",
    "canonical_json": "hashing", "content_key": "hashing", "sha256_file": "hashing", "sha256_hex": "hashing",
    "keccak256_many": "keccak_batch", "sorted_pair_hashes": "keccak_batch",
    "in_order": "ordered_threads",
    "NoProgress": "progress", "ProgressSink": "progress", "RichProgress": "progress",
    "register_secret": "secrets", "scrub": "secrets", "ScrubbingStream": "secrets", "secret_from_env": "secrets",
    "STATE_DIR_NAME": "state_dir", "StrictModel": "settings_model",
    "CONFIG_ELEMENT_ID": "sitedir", "ensure_replaceable": "sitedir", "read_tree": "sitedir",
    "replace_tree": "sitedir",
    "open_reader": "sqlite", "open_writer": "sqlite", "transaction": "sqlite",
    "StateDir": "state_dir",
    "check_pixel_count": "untrusted_files", "FolderFiles": "untrusted_files", "MAX_PIXELS": "untrusted_files",
    "read_regular_file": "untrusted_files",
    "loads": "untrusted_json", "MAX_DEPTH": "untrusted_json", "nesting_depth": "untrusted_json",
    "NOT_JSON": "untrusted_json",
    "shown": "visible_text", "shown_html": "visible_text", "shown_text": "visible_text",
    "summarise_ids": "token_ids",
    "FilesSeen": "watched_files", "files_unchanged": "watched_files", "look_at_files": "watched_files",
    "sqlite_disk_full": "errors",
})
