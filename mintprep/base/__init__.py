"""The foundation every package may import: the error family, content hashing, progress reporting, and the
strict base of every config model. Imports nothing else of mintprep."""
