"""The deploying key: from MINTPREP_PRIVATE_KEY, or an encrypted keystore file and its password.

A key never leaves this module as text: errors name the variable or file, never the value.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from eth_account import Account
from eth_account.signers.local import LocalAccount

from mintprep.base import NOT_JSON, UserError, loads, read_regular_file, register_secret, secret_from_env

PRIVATE_KEY_ENV = "MINTPREP_PRIVATE_KEY"
MAX_KEYSTORE_BYTES = 64 * 1024  # a Web3 Secret Storage file is well under 1 KB
KEYSTORE_PASSWORD_ENV = "MINTPREP_KEYSTORE_PASSWORD"


def load_signer(keystore: Path | None = None, ask_password: Callable[[], str] | None = None) -> LocalAccount:
    """The account to sign with: the keystore when given (password from the env or `ask_password`), else the env key."""
    if keystore is not None:
        return _from_keystore(keystore, ask_password)
    raw = secret_from_env(PRIVATE_KEY_ENV)
    if not raw:
        raise UserError(f"no signing key: set {PRIVATE_KEY_ENV} or pass --keystore FILE")
    try:
        return Account.from_key(raw)
    except (ValueError, TypeError):
        raise UserError(f"{PRIVATE_KEY_ENV} is not a 32-byte hex private key") from None


def _from_keystore(path: Path, ask_password: Callable[[], str] | None) -> LocalAccount:
    data = read_regular_file(path, MAX_KEYSTORE_BYTES, what="keystore file")
    try:
        encrypted = loads(data)  # nesting bounded before decoding: eth-account raised the recursion limit
    except NOT_JSON as exc:
        raise UserError(f"keystore {path}: not a readable JSON keystore ({type(exc).__name__})") from None
    password = os.environ.get(KEYSTORE_PASSWORD_ENV)
    if password:
        register_secret(password)
    if password is None:
        if ask_password is None:
            raise UserError(f"keystore {path}: set {KEYSTORE_PASSWORD_ENV} or run interactively to type the password")
        password = register_secret(ask_password())
    try:
        return Account.from_key(register_secret(bytes(Account.decrypt(encrypted, password)).hex()))
    except (ValueError, KeyError, TypeError):
        raise UserError(f"keystore {path}: wrong password or not an Ethereum keystore") from None
