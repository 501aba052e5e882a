"""The names of the UnixFS import profiles (mintprep.ipfs.unixfs.PROFILES), importable at no cost by the CLI."""

from typing import Literal, get_args

ProfileName = Literal["kubo-cidv1", "unixfs-v0-2015", "unixfs-v1-2025"]
PROFILE_NAMES: tuple[str, ...] = get_args(ProfileName)
