"""A child process for tests/importing/test_kill_converges.py: a batched import or a batched pin of a small deterministic
collection, printing `ready` once its imports are done so the parent's kill lands in the work itself.

    python -m tests.support.batched_work import COLLECTION.yaml FOLDER
    python -m tests.support.batched_work pin COLLECTION.yaml COUNT
"""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path

from PIL import Image

from mintprep.collection.config import load_collection
from mintprep.collection.traits import plan_piece
from mintprep.commands.importing import import_collection
from mintprep.stages.generate import Candidate
from mintprep.stages.images import pin_accepted
from mintprep.state.workspace import Workspace


def piece(token_id: int) -> bytes:
    """A deterministic noise PNG (import takes raster images only); every 40th spans several 256 KiB chunks (a DAG
    of more than one block)."""
    side = 460 if token_id % 40 == 0 else 24
    pixels = random.Random(token_id).randbytes(side * side * 3)
    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), pixels).save(out, format="PNG", compress_level=1)
    return out.getvalue()


def write_folder(folder: Path, count: int) -> None:
    (folder / "images").mkdir(parents=True)
    for token_id in range(1, count + 1):
        (folder / "images" / f"{token_id}.png").write_bytes(piece(token_id))
        (folder / f"{token_id}.json").write_text(json.dumps({
            "name": f"Piece #{token_id}", "image": f"{token_id}.png",
            "attributes": [{"trait_type": "flower", "value": "tulip"}]}))


def main(mode: str, collection: str, argument: str) -> None:
    col = load_collection(Path(collection))
    if mode == "import":
        print("ready", flush=True)
        import_collection(col, argument)
        return
    with Workspace.open(col) as ws:
        count = int(argument)
        shas = ws.ledger.objects.put_many(piece(t) for t in range(1, count + 1))
        candidates = [Candidate(plan_piece(col.spec, t), sha, f"test-{t}", {}) for t, sha in enumerate(shas, 1)]
        print("ready", flush=True)
        pin_accepted(ws, candidates)


if __name__ == "__main__":
    main(*sys.argv[1:])
