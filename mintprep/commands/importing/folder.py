"""The folder reader: a local folder of images and `<id>.json` documents, read and checked by `folder_reads` (in
worker processes for a large folder); each image imported locally, its document's `image` made an ipfs:// URI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from mintprep.collection import token_ids
from mintprep.commands.importing.folder_reads import metadata_folder, read_tokens
from mintprep.commands.importing.tokens import (ImportedToken, ImportPlan, Judging, TokenRead, document_attributes,
                                                document_provenance, document_traits)
from mintprep.ipfs import import_bytes
from mintprep.state import Workspace


def read_folder(ws: Workspace, folder: Path, plan: ImportPlan) -> Iterator[TokenRead]:
    """`<id>.json` (or `<id>`) per token, its `image` a path relative to the folder (or to a json/ subfolder); read
    and checked by `folder_reads`, in worker processes for a large folder."""
    meta_dir = metadata_folder(folder)
    zero = (meta_dir / "0.json").is_file() or (meta_dir / "0").is_file()
    with ws.progress.task("import", ws.spec.size) as advance:
        for read in read_tokens(folder, list(token_ids(ws.spec.size, zero)), Judging.of(ws)):
            advance()
            if read.document is None:
                plan.skipped[read.token_id] = read.skipped
                continue
            dag = import_bytes(read.image, ws.profile)
            image_cid = str(dag.root)
            document = dict(read.document, image=f"ipfs://{image_cid}")  # the folder's path means nothing once pinned
            token = ImportedToken(read.token_id, json.dumps(document, indent=2, ensure_ascii=False).encode(), None,
                                  f"ipfs://{image_cid}", image_cid, document_traits(document),
                                  document_provenance(document, plan.source), document_attributes(document))
            plan.tokens.append(token)
            yield TokenRead(token, read.image, dag, judgement=read.judgement)
