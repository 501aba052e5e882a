"""The foundation every package may import: the error family, content hashing (and EIP-55 address checksums with
batch Keccak), progress reporting, the strict base of every config model, work over threads in order
(ordered_threads), the kill tests' fault hook (faults), and the storage primitives the packages above share: the
names under `.mintprep/` (state_dir), files written whole (durable_files) and folders replaced whole (sitedir),
SQLite opened for one writer or any reader (sqlite, wal_image). Imports nothing else of mintprep."""
