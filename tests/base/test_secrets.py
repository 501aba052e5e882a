"""Secrets: one registry, every secret registered where it is read, scrubbed from every output.

Etherscan cannot be reached from the tests: a local HTTP server following its API V2 (POST
module=contract&action=verifysourcecode answers {status, result}) echoes the form's `apikey` back in
`result`, as a real service does in "Invalid API Key" answers; a closed port stands for an unreachable one.
"""

from __future__ import annotations

import json
import os
import socket
import typing
import uuid
from typing import Any, Callable
from urllib.parse import parse_qs, quote

import pytest
from pydantic import BaseModel

from mintprep.base.errors import RemoteError
from mintprep.base.secrets import register_secret, scrub
from mintprep.chain.keys import PRIVATE_KEY_ENV, load_signer
from mintprep.collection.chain_settings import VerifySettings
from mintprep.chain.verify import Verifier, verifier_for
from mintprep.collection.config import CollectionSpec
from mintprep.ipfs.settings import ClusterSettings, IpfsSettings
from mintprep.net.http import RetryPolicy
from mintprep.net.marketplace import OPENSEA_KEY_ENV
from mintprep.page.publish import netlify_token
from mintprep.collection.page_settings import PublishSettings
from tests.support.servers import JsonHandler, http_server

FAST = RetryPolicy(attempts=2, base_delay=0.01, timeout=5.0, give_up_after=10.0)


def env_settings(model: type[BaseModel], prefix: str = "") -> set[str]:
    """Dotted paths of every `*_env` field in `model` and the models it nests (through Optional and unions)."""
    found = set()
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        if name.endswith("_env"):
            found.add(path)
        stack = [field.annotation]
        while stack:
            kind = stack.pop()
            if isinstance(kind, type) and issubclass(kind, BaseModel):
                found |= env_settings(kind, path + ".")
            else:
                stack += list(typing.get_args(kind))
    return found


def fresh_secret() -> str:
    return "sk-" + uuid.uuid4().hex + ":" + uuid.uuid4().hex[:12]  # a colon: also a Cluster basic-auth user:password


# The code that reads each setting's variable, given the variable's name. A new `*_env` setting without a
# reader here fails test_every_env_setting_is_known.
READERS: dict[str, Callable[[str], Any]] = {
    "ipfs.token_env": lambda var: IpfsSettings(backend="pinata", token_env=var).token(),
    "page.publish.netlify_token_env": lambda var: netlify_token(
        PublishSettings(target="netlify", netlify_site_id="site", netlify_token_env=var)),
    "chain.verify.etherscan_api_key_env": lambda var: verifier_for(VerifySettings(etherscan_api_key_env=var)),
    "ipfs.cluster.basic_auth_env": lambda var: ClusterSettings(basic_auth_env=var).basic_auth(),
}


def test_every_env_setting_is_known():
    assert env_settings(CollectionSpec) == set(READERS)


@pytest.mark.parametrize("setting", sorted(READERS))
def test_every_env_setting_is_registered_when_read(setting: str, monkeypatch):
    secret, var = fresh_secret(), "MINTPREP_TEST_" + uuid.uuid4().hex[:8].upper()
    monkeypatch.setenv(var, secret)
    assert scrub(secret) == secret  # not registered before it is read
    READERS[setting](var)
    assert scrub(f"a {secret} b") == "a *** b"
    assert scrub(f"cut at {secret[:7]}") == "cut at ***"


def test_fixed_variables_are_registered_when_read(monkeypatch):
    key = "0x" + "4c" * 32
    monkeypatch.setenv(PRIVATE_KEY_ENV, key)
    load_signer()
    assert scrub(f"key={key}") == "key=***"
    from mintprep.base.secrets import secret_from_env

    token = fresh_secret()
    monkeypatch.setenv(OPENSEA_KEY_ENV, token)
    secret_from_env(OPENSEA_KEY_ENV)
    assert scrub(token) == "***"


def test_scrub_blanks_prefixes_and_url_encoded_forms():
    secret = "Zq9/+=" + uuid.uuid4().hex
    register_secret(secret)
    text = f"{secret} | {quote(secret, safe='')} | {secret[:9]}… | {secret[:5]}"
    assert scrub(text) == f"*** | *** | ***… | {secret[:5]}"  # five characters are not a secret's start
    register_secret("gateway-token-3d2f")
    assert scrub("ipfs.gateway: gateway-token-3d2f, gateway-tok…") == "ipfs.gateway: ***, ***…"  # a word stays


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v2/api"


def test_etherscan_key_never_shown_when_the_service_is_unreachable(monkeypatch):
    """The issue's case: the key travels as a query parameter, and requests quotes the URL in its error."""
    key = fresh_secret()
    monkeypatch.setenv("MINTPREP_TEST_ETHERSCAN", key)
    verifier = verifier_for(VerifySettings(etherscan_url=closed_port_url(), etherscan_api_key_env="MINTPREP_TEST_ETHERSCAN"))
    verifier = Verifier(verifier.sourcify_url, verifier.etherscan_url, verifier.etherscan_api_key, policy=FAST)
    with pytest.raises(RemoteError) as failure:
        verifier.etherscan_status(8453, "0x" + "11" * 20)
    assert "apikey=***" in str(failure.value) and key[:6] not in str(failure.value)


class EchoingEtherscan(JsonHandler):
    def do_POST(self) -> None:  # noqa: N802 (stdlib name)
        form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        self.reply_json(200, {"status": "0", "result": f"Invalid API Key {form['apikey'][0]}"})


def test_a_key_the_server_echoes_is_scrubbed_from_every_output(monkeypatch, capsys):
    from mintprep.cli.app import console, print_json

    key = fresh_secret()
    monkeypatch.setenv("MINTPREP_TEST_ETHERSCAN", key)
    with http_server(EchoingEtherscan) as url:
        found = verifier_for(VerifySettings(etherscan_url=url + "/v2/api", etherscan_api_key_env="MINTPREP_TEST_ETHERSCAN"))
        verifier = Verifier(found.sourcify_url, found.etherscan_url, found.etherscan_api_key, policy=FAST)
        outcome = verifier._etherscan("POST", 8453, "Etherscan verifysourcecode", module="contract",
                                      action="verifysourcecode")
    assert key in outcome["result"]  # the server did echo it: the outputs below must not show it
    console.print(outcome["result"])
    print_json({"detail": outcome["result"]})
    shown = capsys.readouterr()
    assert key[:6] not in shown.out + shown.err and "***" in shown.err
    assert json.loads(shown.out) == {"detail": "Invalid API Key ***"}


def test_ledger_rows_hold_no_secret(tmp_path):
    from mintprep.state.ledger import Ledger

    token = register_secret(fresh_secret())
    ledger = Ledger.open(tmp_path)
    ledger.record_publish("netlify", f"https://x.example/?t={token}", None, "bafy", None)
    ledger.record_chain_tx("verify", 8453, "0x" + "11" * 20, "0x00", {"answer": f"echo {token}"})
    assert token[:6] not in (tmp_path / "state.db").read_bytes().decode("latin-1")


@pytest.mark.parametrize(("value", "on"), [("1", True), ("true", True), ("TRUE", True), ("0", False),
                                           ("false", False), ("", False), ("no", False)])
def test_debug_is_on_only_for_1_or_true(value: str, on: bool, monkeypatch):
    from mintprep.cli.app import debug_enabled

    monkeypatch.setenv("MINTPREP_DEBUG", value)
    assert debug_enabled() is on


def test_library_warnings_are_scrubbed():
    """A warning logged by a library with no handler configured (logging's last resort), in a real process."""
    import subprocess
    import sys

    token = fresh_secret()
    script = ("import logging, mintprep.cli.app; from mintprep.base.secrets import register_secret; "
              f"register_secret({token!r}); "
              f"logging.getLogger('urllib3.connectionpool').warning('retrying, Authorization: Bearer {token}')")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert "Bearer ***" in done.stderr and token[:6] not in done.stderr, done.stderr


@pytest.mark.parametrize("content", [b"[" * 30_000 + b"]" * 30_000, b"not json", b'{"crypto": NaN'])
def test_a_keystore_that_is_no_keystore_is_a_clear_error(content: bytes, tmp_path):
    """A keystore file of any content ends in the user error naming it, not an internal one (a deeply nested array
    was a RecursionError)."""
    from mintprep.base.errors import UserError

    keystore = tmp_path / "deployer.json"
    keystore.write_bytes(content)
    with pytest.raises(UserError, match="deployer.json: not a readable JSON keystore"):
        load_signer(keystore, ask_password=lambda: "unused")
