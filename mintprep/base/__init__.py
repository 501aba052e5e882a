"""The foundation every package may import: the error family, content hashing, progress reporting, the strict base
of every config model, work over threads in order (ordered_threads) and the kill tests' fault hook (faults). Imports nothing else of mintprep."""
