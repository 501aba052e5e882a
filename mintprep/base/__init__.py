"""The foundation every package may import: the error family, content hashing, progress reporting, the strict base
of every config model, and work over threads in order (ordered_threads). Imports nothing else of mintprep."""
