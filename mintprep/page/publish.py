"""Build the collection's page from the ledger and put it where `page.publish` says: IPFS, Netlify or a folder.

`collection_page_inputs` decides what the page is built for (manifest, contract, chain, RPC, gateway);
`publish_collection` builds and publishes it and says where it went (the command driver records that).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping
from urllib.parse import quote

from mintprep.net import RetryPolicy, json_object, network, redact_url, send
from mintprep.state import find_contract
from mintprep.chain import SalePhase, collection_phases
from mintprep.base import RemoteError, UserError, ensure_replaceable, read_tree, replace_tree, secret_from_env
from mintprep.page.build import PageBuild, build_page
from mintprep.collection import PublishSettings

if TYPE_CHECKING:
    from mintprep.collection import Collection
    from mintprep.state import Ledger, ManifestRecord, Workspace
from mintprep.page.mint_call import mint_description
from mintprep.collection import PublishSettings
from mintprep.base import ensure_replaceable, read_tree, replace_tree

if TYPE_CHECKING:
    from mintprep.collection import Profile
    from mintprep.collection import Collection
    from mintprep.state import Ledger, ManifestRecord, Workspace


@dataclass(frozen=True)
class PageInputs:
    manifest: dict[str, Any]
    contract: str | None
    chain_id: int
    rpc_url: str
    gateway: str
    phases: tuple[SalePhase, ...] = ()
    mint: dict[str, Any] | None = None  # the contract's mint description (page.mint_call); None: no contract yet


@dataclass(frozen=True)
class PublishResult:
    target: str
    location: str  # URL of the deployed page, or the folder it was copied to
    site_cid: str | None  # target ipfs: the site folder's CID
    uploaded: tuple[str, ...]  # files actually sent (netlify: only those it lacked)
    build: PageBuild

    def as_json(self) -> dict[str, Any]:
        return {"target": self.target, "location": self.location, "site_cid": self.site_cid,
                "uploaded": list(self.uploaded), "site_digest": self.build.site_digest,
                "page_dir": str(self.build.out_dir)}


def collection_page_inputs(col: "Collection", ledger: "Ledger", *, gateway: str | None = None,
                           profile: "Profile | None" = None) -> PageInputs:
    """What the page for `col` is built from: the current manifest and the contract on the configured chain, with
    what the page calls on it (from `profile`, else the contract's profile read now). PageCannotMint (exit 1) when
    the page could not mint on that contract: such a page is neither built nor published."""
    record = ledger.current_manifest()
    if record is None:
        raise UserError(f"{col.path}: no manifest yet; run `mintprep run {col.path}` first")
    spec = col.spec
    net = network(spec.chain.network)
    contract = find_contract(col, ledger, net.chain_id)
    return PageInputs(
        manifest=page_manifest(col, ledger, record),
        contract=contract,
        chain_id=net.chain_id,
        rpc_url=page_rpc_url(spec.page.rpc_url, spec.chain.rpc_url, net.default_rpc),
        gateway=gateway or spec.page.gateway or spec.ipfs.gateway,
        phases=tuple(collection_phases(col)),
        mint=None if contract is None else mint_description(profile or contract_profile(col, contract),
                                                            spec.page.mint_url),
    )


def contract_profile(col: "Collection", address: str) -> "Profile":
    """The profile of the collection's contract, read through chain.rpc_url (UserError naming the RPC when it
    cannot be read)."""
    from mintprep.chain import open_contract, RPC_FAILURES, connect, require_chain, rpc_failure_reason

    net, url = col.spec.chain.endpoint()
    try:
        w3 = connect(url)
        return open_contract(col, w3, address, require_chain(w3, net)).profile
    except RPC_FAILURES as exc:
        raise UserError(f"cannot read contract {address} through {redact_url(url)}: {rpc_failure_reason(exc)}") from None


def page_manifest(col: "Collection", ledger: "Ledger", record: "ManifestRecord") -> dict[str, Any]:
    """The manifest as the page shows it: a hidden drop's page names neither its metadata root nor an image
    before the reveal (`stages.withheld`); only what the contract already holds, the provenance hash."""
    from mintprep.state import withholding

    manifest = record.manifest.to_json()
    if withholding(col, ledger):
        manifest.update(metadata_root=None, tokens=[], hidden=True)
    return manifest


def page_rpc_url(page_rpc: str | None, chain_rpc: str | None, public_rpc: str) -> str:
    """page.rpc_url, else chain.rpc_url, else the network's public RPC.

    The page is public, so a chain.rpc_url that carries a key (user:password, or a key-like path or query
    part such as Alchemy's /v2/<key>) is refused rather than published: set page.rpc_url to a public endpoint.
    """
    if page_rpc:
        return page_rpc
    if chain_rpc and redact_url(chain_rpc) != chain_rpc:
        raise UserError(f"chain.rpc_url ({redact_url(chain_rpc)}) looks like it carries an API key, and the page would "
                        "publish it: set page.rpc_url to a public RPC for the page")
    return chain_rpc or public_rpc


def live_profile(ws: "Workspace") -> "Profile | None":
    """The profile this command already read (LiveState), so the page does not resolve it again."""
    return ws.chain_live.family.profile if ws.chain_live is not None else None


def build_collection_page(col: "Collection", inputs: PageInputs, out_dir: Path | None = None) -> PageBuild:
    return build_page(col, inputs.manifest, out_dir or col.page_dir, contract=inputs.contract,
                      chain_id=inputs.chain_id, rpc_url=inputs.rpc_url, gateway=inputs.gateway, phases=inputs.phases,
                      mint=inputs.mint)


def publish_collection(ws: "Workspace", pin_site: Callable[[Mapping[str, bytes], str], str],
                       **http: Any) -> tuple[PageInputs, PublishResult]:
    """Rebuild the page from the ledger and publish it to `page.publish.target`; what it was built for, and where
    it went. `pin_site(files, site digest)` pins the site for the `ipfs` target and returns its CID (the pin stage,
    which records the pin).

    `http` (policy=RetryPolicy, sleep=callable) tunes retries of remote targets.
    """
    col = ws.col
    inputs = collection_page_inputs(col, ws.ledger, profile=live_profile(ws))
    build = build_collection_page(col, inputs)
    files = read_tree(build.out_dir)
    settings = col.spec.page.publish
    if settings.target == "dir":
        dest = (col.base_dir / str(settings.dir)).resolve()
        copy_site(files, dest, protect=(col.path, col.state_dir, build.out_dir))
        result = PublishResult("dir", str(dest), None, tuple(sorted(files)), build)
    elif settings.target == "netlify":
        deploy = deploy_to_netlify(files, settings, token=netlify_token(settings), **http)
        result = PublishResult("netlify", deploy.url, None, deploy.uploaded, build)
    else:
        cid = pin_site(files, build.site_digest)
        location = f"{inputs.gateway.rstrip('/')}/ipfs/{cid}/"
        result = PublishResult("ipfs", location, cid, tuple(sorted(files)), build)
    return inputs, result


# ---------------------------------------------------------------- target: dir

def copy_site(files: Mapping[str, bytes], dest: Path, *, protect: tuple[Path, ...] = ()) -> bool:
    """Make `dest` hold exactly the site, swapped in whole; refuses folders mintprep did not write."""
    ensure_replaceable(dest, protect=protect)
    return replace_tree(files, dest)


# ---------------------------------------------------------------- target: netlify

@dataclass(frozen=True)
class NetlifyDeploy:
    deploy_id: str
    url: str
    uploaded: tuple[str, ...]


def netlify_token(settings: PublishSettings) -> str:
    token = secret_from_env(settings.netlify_token_env)
    if not token:
        raise UserError(f"page.publish.netlify_token_env: environment variable {settings.netlify_token_env} "
                        "is not set or empty (a Netlify personal access token)")
    return token


def deploy_to_netlify(files: Mapping[str, bytes], settings: PublishSettings, *, token: str,
                      policy: RetryPolicy = RetryPolicy(), sleep: Callable[[float], None] = time.sleep) -> NetlifyDeploy:
    """Netlify's file-digest deploy: announce every file's SHA-1, upload only those Netlify lacks.

    POST /api/v1/sites/{site_id}/deploys {"files": {"/path": sha1}} answers {"id", "required": [sha1…]};
    then PUT /api/v1/deploys/{id}/files/{path} (octet-stream) once per required digest.
    """
    api = settings.netlify_api_url.rstrip("/")
    auth = {"Authorization": f"Bearer {token}"}
    digests = {f"/{rel}": hashlib.sha1(data).hexdigest() for rel, data in sorted(files.items())}
    answer = json_object(send("POST", f"{api}/api/v1/sites/{quote(str(settings.netlify_site_id), safe='')}/deploys",
                              json={"files": digests}, headers=auth, policy=policy, sleep=sleep), "Netlify deploy")
    deploy_id, required = answer.get("id"), answer.get("required")
    if not isinstance(deploy_id, str) or not isinstance(required, list):
        raise RemoteError(f"Netlify answered a deploy without id/required: {sorted(answer)}")
    unknown = set(required) - set(digests.values())
    if unknown:
        raise RemoteError(f"Netlify asked for digests no site file has: {sorted(unknown)}")
    uploads = {digest: path for path, digest in reversed(digests.items()) if digest in set(required)}
    for digest, path in sorted(uploads.items(), key=lambda item: item[1]):
        send("PUT", f"{api}/api/v1/deploys/{quote(deploy_id, safe='')}/files/{quote(path.lstrip('/'))}",
             data=files[path.lstrip("/")], headers={**auth, "Content-Type": "application/octet-stream"},
             policy=policy, sleep=sleep)
    url = answer.get("ssl_url") or answer.get("deploy_ssl_url") or answer.get("url") or f"netlify deploy {deploy_id}"
    return NetlifyDeploy(deploy_id, str(url), tuple(sorted(p.lstrip("/") for p in uploads.values())))
