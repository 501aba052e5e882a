"""What an audit reads grows with the collection, not with its square: every block of a HAMT-sharded metadata
directory, every token's document and every image directory is fetched once per audit, however many tokens share
them (a per-token walk of the directory from its root was the quadratic to rule out at 10,000 pieces).

Real UnixFS DAGs (the kubo-exact importer) in a dict-backed block source that counts what it serves."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

from mintprep.collection.manifest import Manifest, ManifestToken
from mintprep.stages.audit import AuditReport, BlockSource, audit_metadata
from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory
from mintprep.state.ledger import ManifestRecord

TOKENS = 400
# kubo's Import.UnixFSHAMTDirectorySizeThreshold lowered (and a fanout of 16), so 400 entries make a HAMT a few
# levels deep, as 10,000 do at the default 256 KiB and fanout 256
PROFILE = replace(get_profile("kubo-cidv1"), hamt_threshold=2048, hamt_fanout=16)


def test_every_block_is_fetched_once_whatever_the_number_of_tokens():
    profile = PROFILE
    image_files = {t: import_bytes(f"png {t}".encode(), profile).root for t in range(1, TOKENS + 1)}
    images = import_directory({f"{t}.png": import_bytes(f"png {t}".encode(), profile) for t in range(1, TOKENS + 1)},
                              profile)
    documents = {f"{t}.json": import_bytes(json.dumps({"name": f"#{t}", "image": f"ipfs://{images.root}/{t}.png"})
                                           .encode(), profile) for t in range(1, TOKENS + 1)}
    metadata = import_directory(documents, profile)
    blocks = {block.cid: block.data for dag in (images, metadata) for block in dag.blocks}
    tokens = tuple(ManifestToken(t, f"#{t}", str(image_files[t]), str(documents[f"{t}.json"].root), "0" * 64, [], {})
                   for t in range(1, TOKENS + 1))
    record = ManifestRecord(str(metadata.root), "unused", "unused", "unused",
                            Manifest(str(metadata.root), tokens=tokens))
    served: Counter = Counter()

    def fetch(cid):
        served[cid] += 1
        return blocks.get(cid)

    report = AuditReport()
    audit_metadata(record, {}, [BlockSource("counted", fetch, None)], report)

    assert report.ok, report.problems[:3]
    document_roots = {d.root for d in documents.values()}
    assert len([b for b in metadata.blocks if b.cid not in document_roots]) > 20, "the directory should be sharded"
    assert max(served.values()) == 1, served.most_common(3)
    # the metadata directory whole (shards and documents) and the images directory's shards (a path is resolved
    # through them), never an image itself: the metadata check reads documents, not art
    image_shards = {b.cid for b in images.blocks} - set(image_files.values())
    assert set(served) == {b.cid for b in metadata.blocks} | image_shards
