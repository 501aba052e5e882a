"""Everything but sampling at 1,000 and 10,000 pieces, side by side: is the cost per piece flat?

    python bench/bench_scale.py [--sizes 1000 10000] [--quick] [--markdown] [--only status audit ...] [--repeat 3]

Images are real-size layered art (tests/support/real_art.py: 256 px avatars with grain, 35-40 KB a PNG, each
token its own layer combination; `--art smooth64` gives the 64x64 smooth PNGs the figures before 2026-12-05 were
taken on). The folder the imports read holds a planted near-copy in every 100 (the collection made here holds none,
so its audit is clean). For each size, in a fresh process of its own (as each command runs for a user), one after
another:
  validate   the pixel guards on every stored image (`run`'s validate stage; verdicts cached in the ledger)
  pin        every image to the local store, verified (`run`'s pin stage)
  manifest   the metadata directory and the manifest, pinned (`run`'s manifest stage)
  page       the static mint page
  status     `mintprep status`'s report
  audit      `mintprep audit` (local store, no chain)
  review     `mintprep review`'s sheet
  import-folder  `mintprep import --from <folder of images + metadata>` into a fresh collection
  import-ipfs    `mintprep import --from ipfs://<root>` (blocks in the collection's local store) into a fresh one
and beside them, on the same folder in the same process, the peers (`--only peers`): decode-floor (Pillow decoding
every image of the folder: what any reader pays), imagehash-phash (`imagehash.phash` of every decoded image, the
`bench` extra), ipfs-car-pack (`ipfs-car pack` of the folder to a CAR, where `ipfs-car` is on PATH or in
$IPFS_CAR_BIN), audit-imported / audit-imported-again (the folder's import audited twice, as `audit` after
`import`), and export / cp-r-of-export (`export` of that import, and `cp -r` of the folder it wrote). The JSON's `vs_decode_floor` divides each command's seconds by the decode floor of the same size.
Pinning to the kubo, PSA and Pinata stand-ins at 100 ms per request is bench/bench_pinning.py. Prints one JSON
object (`--markdown`: also the table docs/benchmarks.md shows); `--quick` runs 200 and 1,000 pieces. `--only` names
the commands to measure after the setup rows (validate, pin, manifest, page: always run, since the rest read what
they made; skipped for the two imports alone, which make their own collections); `--repeat N` runs each read-only
command (status, audit) in N rounds after every size's setup, each round a fresh process per size with the sizes'
order alternating, once per round at the largest size and as many times more as it is smaller at a smaller one
(10 times at 1,000 beside 10,000), and keeps the median run (by wall time; the first run's seconds are kept beside
it). So both sizes are sampled at the same moments, each over about as much wall time of a shared
machine: a 0.3 s run at 1,000 pieces fits in a quiet moment far more often than a 3 s run at 10,000 (measured
here: audit's CPU per piece ranged 0.20-0.49 ms over 60 runs at 1,000 and 0.28-0.41 ms over 6 at 10,000, with
equal medians), so one run, or the fastest of a few, of each size flatters the small one.

Per command: seconds, ms per piece, pieces/s, the 10k/1k per-piece ratio (of wall time, and of the process's CPU
time, which moves less with the neighbours on a shared machine but leaves out waits on the disk, with its kernel
part apart: file creation and syncs), and memory: the
peak resident set during the command (Linux: VmHWM, reset before each command through /proc/self/clear_refs) and
how far it rose above the resident set the command started with (what the command itself held at most; memory an
earlier command freed is reused first, so a rise is a lower bound).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_audit import healthy_png  # noqa: E402
from bench.resident import memory_kib, reset_peak  # noqa: E402
from tests.support.real_art import copy_of, metadata, near_copy, png_of, art_rgb  # noqa: E402
from mintprep.collection.config import load_collection  # noqa: E402
from mintprep.collection.traits import plan_piece  # noqa: E402
from mintprep.stages.generate import Candidate  # noqa: E402
from mintprep.stages.images import pin_accepted  # noqa: E402
from mintprep.stages.page import page_stage  # noqa: E402
from mintprep.stages.publish import publish_metadata  # noqa: E402
from mintprep.stages.validate import validate_candidates  # noqa: E402
from mintprep.state.ledger import PieceRecord  # noqa: E402
from mintprep.state.workspace import Workspace  # noqa: E402

EXAMPLE = ROOT / "collection" / "collection.yaml"


ART = os.environ.get("MINTPREP_BENCH_ART", "real")  # set from --art for the child processes
SIDE = 256
_made: dict[int, bytes] = {}


def image(token_id: int) -> bytes:
    """The piece `token_id` as the collection made here stores it: real-size art (made once per process), or
    bench_audit's guard-passing 64x64 image compressed fast."""
    if ART == "smooth64":
        return healthy_png(token_id, compress_level=1)
    if token_id not in _made:
        from PIL import Image

        _made[token_id] = png_of(Image.fromarray(art_rgb(token_id, SIDE)))
    return _made[token_id]


def exported(token_id: int) -> bytes:
    """The piece as the folder made elsewhere holds it: `image`, or a planted near-copy of an earlier one."""
    original = copy_of(token_id) if ART == "real" else None
    return image(token_id) if original is None else near_copy(image(original), jpeg=token_id % 200 == 50)


def write_yaml(folder: Path, size: int) -> Path:
    data = yaml.safe_load(EXAMPLE.read_text())
    data.update(size=size, generator=dict(data["generator"], upscale=1))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "collection.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def timed(rows: dict[str, dict[str, float]], name: str, work: Callable[[], object], repeat: int = 1,
          prepare: Callable[[], object] = lambda: None, warm_up: bool = False) -> object:
    """Measure `work` (`repeat` times, each after an unmeasured `prepare`: the median run by wall time is the row,
    the first one's seconds kept as `first_s`). With `warm_up`, one run before those, its seconds kept as `cold_s`:
    what a command pays once in a process (its lazy imports, numpy's first calls) is not a cost per piece, and a
    size measured warm must not be set beside one measured cold."""
    cold = None
    if warm_up:
        prepare()
        start = time.perf_counter()
        work()
        cold = time.perf_counter() - start
    runs = []
    for _ in range(repeat):
        prepare()
        reset_peak()
        before = memory_kib("VmRSS")
        start, cpu, system = time.perf_counter(), time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_stime
        result = work()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        system = resource.getrusage(resource.RUSAGE_SELF).ru_stime - system  # the kernel's part: file creation, syncs
        peak = memory_kib("VmHWM")
        runs.append({"s": elapsed, "cpu_s": cpu, "sys_s": system, "peak_rss_mib": peak / 1024,
                     "rss_rise_mib": max(0, peak - before) / 1024, "load": os.getloadavg()[0]})
    rows[name] = dict(sorted(runs, key=lambda run: run["s"])[(repeat - 1) // 2], first_s=runs[0]["s"],
                      **({"cold_s": cold} if warm_up else {}))
    row = rows[name]
    median = f", median of {repeat}, first {row['first_s']:.2f} s" if repeat > 1 else ""
    median += f", cold {cold:.2f} s" if warm_up else ""
    print(f"  {name}: {row['s']:.2f} s ({row['cpu_s']:.2f} s CPU{median}), "
          f"peak RSS {row['peak_rss_mib']:.0f} MiB (+{row['rss_rise_mib']:.0f}), load {row['load']:.1f}",
          file=sys.stderr, flush=True)  # a capped run keeps what it measured
    return result


READ_ONLY = ("status", "audit", "review")  # measured `--repeat` times, each in fresh processes
IMPORTS = ("import-folder", "import-ipfs", "peers")
COMMANDS = ("status", "audit", "review", *IMPORTS)


def made_here(work: Path, size: int, rows: dict[str, dict[str, float]], only: tuple[str, ...] = COMMANDS) -> None:
    """A collection as `run` leaves it (images stored, not generated; the read-only rows are `read_only`'s)."""
    col = load_collection(write_yaml(work / "made", size))
    with Workspace.open(col) as ws:
        shas = ws.ledger.objects.put_many(image(token_id) for token_id in range(1, size + 1))
        candidates = [Candidate(plan_piece(col.spec, token_id), sha, f"bench-{token_id}", {"bench": True})
                      for token_id, sha in enumerate(shas, 1)]
        accepted = timed(rows, "validate", lambda: validate_candidates(ws, candidates).accepted)
        assert len(accepted) == size, f"{size - len(accepted)} synthetic images were refused"
        pinned = timed(rows, "pin-local", lambda: pin_accepted(ws, accepted).pieces)

        def manifest() -> None:
            published = publish_metadata(ws, pinned).manifest.by_token()
            ws.ledger.set_pieces([PieceRecord(p.token_id, p.request_key, p.png_sha256, p.image_cid,
                                              published[p.token_id].metadata_cid, "pinned") for p in pinned])

        timed(rows, "manifest", manifest)
        timed(rows, "page", lambda: page_stage(ws))


def read_only(work: Path, size: int, only: tuple[str, ...], repeat: int) -> dict[str, dict[str, float]]:
    """`status`, `audit` and `review` (of `only`) of the collection `made_here` left in `work`, each once to warm the
    process (unmeasured but for `cold_s`) and then `repeat` times; each review makes every thumbnail (its cache emptied first, unmeasured): the sheet is rendered, its files
    not written. In a process of its own, as a user runs it: timed in the setup rows' process, after the bench had
    made 10,000 images there, review cost 1.44 times as much a piece as at 1,000, and 1.05-1.15 times (CPU) alone."""
    import shutil

    from mintprep.commands.audit import audit_collection
    from mintprep.commands.review import gather_review
    from mintprep.commands.review_pages import review_files
    from mintprep.commands.status import collection_status

    rows: dict[str, dict[str, float]] = {}
    path = work / "made" / "collection.yaml"
    if "status" in only:
        status = timed(rows, "status", lambda: collection_status(load_collection(path)), repeat, warm_up=True)
        assert status["counts"].get("pinned") == size, status["counts"]
    if "audit" in only:
        report = timed(rows, "audit", lambda: audit_collection(load_collection(path), check_chain=False), repeat,
                       warm_up=True)
        assert report.ok, report.to_json()["problems"][:3]
    if "review" in only:
        timed(rows, "review", lambda: sum(len(html) for _, html in review_files(gather_review(load_collection(path)))),
              repeat, lambda: shutil.rmtree(path.parent / ".mintprep" / "thumbnails", ignore_errors=True), warm_up=True)
    return rows


def folder_source(folder: Path, size: int) -> None:
    """What a HashLips-style generator leaves: images/<n>.png and json/<n>.json naming them."""
    (folder / "images").mkdir(parents=True)
    (folder / "json").mkdir()
    for token_id in range(1, size + 1):
        (folder / "images" / f"{token_id}.png").write_bytes(exported(token_id))
        (folder / "json" / f"{token_id}.json").write_text(json.dumps(metadata(token_id, f"{token_id}.png")))


def ipfs_source(state_dir: Path, size: int, profile_name: str) -> str:
    """The same collection published elsewhere, its blocks (unpinned) in the collection's local store."""
    from mintprep.ipfs.store import BlockStore
    from mintprep.ipfs.unixfs import get_profile, import_bytes, import_directory

    profile = get_profile(profile_name)
    images = import_directory({f"{t}.png": import_bytes(exported(t), profile) for t in range(1, size + 1)}, profile)
    documents = {f"{t}.json": import_bytes(json.dumps({
        "name": f"Flower #{t}", "image": f"ipfs://{images.root}/{t}.png", "edition": t,
        "attributes": [{"trait_type": "flower", "value": "tulip"}]}).encode(), profile) for t in range(1, size + 1)}
    metadata = import_directory(documents, profile)
    BlockStore(state_dir / "ipfs").put_many([*images.blocks, *metadata.blocks])
    return str(metadata.root)


def imported(work: Path, size: int, rows: dict[str, dict[str, float]], only: tuple[str, ...] = COMMANDS) -> None:
    from mintprep.commands.audit import audit_collection
    from mintprep.commands.importing import import_collection

    folder = work / "elsewhere"
    if {"import-folder", "peers"} & set(only):
        folder_source(folder, size)
    if "import-folder" in only:
        col = load_collection(write_yaml(work / "from-folder", size))
        plan = timed(rows, "import-folder", lambda: import_collection(col, str(folder)))
        assert len(plan.tokens) == size, plan.skipped
    if "peers" in only:
        peers(folder, rows)
        if "import-folder" in only:
            planted = sum(copy_of(t) is not None for t in range(1, size + 1)) if ART == "real" else 0
            for name in ("audit-imported", "audit-imported-again"):
                report = timed(rows, name, lambda: audit_collection(load_collection(col.path), check_chain=False))
                found = sum(p.kind == "near-duplicate" for p in report.problems)
                assert found == planted, report.to_json()["problems"][:3]
            export_rows(col, work, rows)
    if "import-ipfs" not in only:
        return
    col = load_collection(write_yaml(work / "from-ipfs", size))
    root = ipfs_source(col.state_dir, size, col.spec.ipfs.profile)
    plan = timed(rows, "import-ipfs", lambda: import_collection(load_collection(col.path), f"ipfs://{root}"))
    assert len(plan.tokens) == size, plan.skipped


def export_rows(col, work: Path, rows: dict[str, dict[str, float]]) -> None:
    """`export` of the imported collection, and beside it `cp -r` of the very folder it wrote (the same files: the
    kernel's copy is the floor). New folders each, nothing deleted first (see `main` on ext4's deletions)."""
    from mintprep.commands.export import export_collection

    timed(rows, "export", lambda: export_collection(load_collection(col.path), work / "exported"))
    timed(rows, "cp-r-of-export", lambda: subprocess.run(["cp", "-r", str(work / "exported"), str(work / "copied")],
                                                          check=True))


def peers(folder: Path, rows: dict[str, dict[str, float]]) -> None:
    """What others pay for the same folder, measured here: the Pillow decode floor, imagehash's pHash, ipfs-car."""
    import io
    import shutil

    import numpy as np
    from PIL import Image

    paths = sorted((folder / "images").iterdir())

    def decode(path: Path) -> np.ndarray:
        with Image.open(io.BytesIO(path.read_bytes())) as opened:
            return np.asarray(opened.convert("RGB"))

    timed(rows, "decode-floor", lambda: sum(decode(path).size for path in paths))  # none kept: as a reader would
    try:
        import imagehash
    except ImportError:
        print("  imagehash-phash: not installed (the bench extra)", file=sys.stderr)
    else:
        timed(rows, "imagehash-phash", lambda: sum(len(str(imagehash.phash(Image.fromarray(decode(path)))))
                                                   for path in paths))
    car = os.environ.get("IPFS_CAR_BIN") or shutil.which("ipfs-car")
    if car is None:
        print("  ipfs-car-pack: no ipfs-car (npm install ipfs-car; IPFS_CAR_BIN=its bin)", file=sys.stderr)
        return
    out = folder.parent / "elsewhere.car"
    timed(rows, "ipfs-car-pack", lambda: subprocess.run([car, "pack", str(folder / "images"), "--output", str(out)],
                                                       check=True, stdout=subprocess.DEVNULL))


def at_size(work: Path, size: int, only: tuple[str, ...] = COMMANDS) -> dict[str, dict[str, float]]:
    """Every row at `size` but the read-only ones, in `work` (left in place: see `main`)."""
    rows: dict[str, dict[str, float]] = {}
    if set(only) - set(IMPORTS):  # the imports make their own collections: no setup rows for them alone
        made_here(work, size, rows, only)
    imported(work, size, rows, only)
    return rows


def in_child(work: Path, size: int, only: tuple[str, ...], repeat: int = 0) -> dict[str, dict[str, float]]:
    """`at_size` (or with `repeat`, `read_only`) in a fresh Python process, as each command runs for a user:
    measured in one process after the other size, a size ran on the allocator and caches the first one left (status
    at 1,000 pieces took 0.025 ms per piece after the 10,000-piece rows and 0.036 ms before them, in the same run)."""
    child = subprocess.run([sys.executable, __file__, "--sizes", str(size), "--only", *only, "--work", str(work),
                            *(["--read-only", str(repeat)] if repeat else [])],
                           stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(child.stdout)


def read_only_interleaved(works: dict[int, Path], only: tuple[str, ...], rounds: int) -> dict[int, dict[str, dict]]:
    """`read_only` at every size, in rounds that alternate the sizes (a fresh process each), so that both sizes
    are sampled at the same moments of a shared machine; within a round a smaller size runs as many times more as
    it is smaller (a 0.2 s run fits a quiet moment more often than a 2 s one); the median run of all is the row."""
    runs: dict[int, dict[str, list[dict]]] = {size: {} for size in works}
    largest = max(works)
    for number in range(rounds):
        for size in (sorted(works) if number % 2 == 0 else sorted(works, reverse=True)):
            for name, row in in_child(works[size], size, only, max(1, round(largest / size))).items():
                runs[size].setdefault(name, []).append(row)
    return {size: {name: dict(sorted(rows, key=lambda row: row["s"])[(len(rows) - 1) // 2], first_s=rows[0]["first_s"])
                   for name, rows in by_name.items()} for size, by_name in runs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--quick", action="store_true", help="200 and 1,000 pieces")
    parser.add_argument("--markdown", action="store_true", help="also print the side-by-side table (stderr)")
    parser.add_argument("--only", nargs="+", choices=COMMANDS, default=list(COMMANDS),
                        help="the commands to measure after the setup rows (default: all)")
    parser.add_argument("--repeat", type=int, default=1,
                        help=f"rounds of {', '.join(READ_ONLY)} over the sizes, alternating (a smaller size runs more "
                        "times a round, in proportion); the median is kept")
    parser.add_argument("--art", choices=("real", "smooth64"), default=ART,
                        help="real-size layered art (default) or the 64x64 smooth PNGs of the older figures")
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)  # a child's run: one size, in this folder
    parser.add_argument("--read-only", type=int, default=0, help=argparse.SUPPRESS)  # a child's read-only runs
    args = parser.parse_args()
    os.environ["MINTPREP_BENCH_ART"] = args.art  # the child processes' `ART`
    if args.work:
        print(json.dumps(read_only(args.work, args.sizes[0], tuple(args.only), args.read_only) if args.read_only
                         else at_size(args.work, args.sizes[0], tuple(args.only))))
        return
    if args.quick:
        args.sizes = [200, 1000]
    per_size = {}
    load = [os.getloadavg()[0]]
    # Every size's files stay until the end: ext4 without a journal (this project's disk) checks each candidate inode
    # for a recent deletion when it creates a file (fs/ext4/ialloc.c, recently_deleted: 60 s, 300 s while the
    # inode table's block is unwritten), so deleting one size's ~40,000 files made the next size's file creations
    # cost about ten times as much (measured here: 0.05 ms against 0.51 ms a file), and the ratios followed the order.
    keep = tempfile.TemporaryDirectory(prefix="mintprep-scale-")
    works = {size: Path(keep.name) / str(size) for size in args.sizes}
    rows_by_size: dict[int, dict[str, dict[str, float]]] = {}
    for size in args.sizes:
        print(f"{size} pieces:", file=sys.stderr, flush=True)
        works[size].mkdir()
        rows_by_size[size] = in_child(works[size], size, tuple(args.only))
        load.append(os.getloadavg()[0])
    read_only_rows = [name for name in READ_ONLY if name in args.only]
    if read_only_rows:
        print(f"{', '.join(read_only_rows)}: {max(1, args.repeat)} rounds over {', '.join(map(str, args.sizes))}",
              file=sys.stderr, flush=True)
        for size, rows in read_only_interleaved(works, tuple(read_only_rows), max(1, args.repeat)).items():
            rows_by_size[size].update(rows)
        load.append(os.getloadavg()[0])
    for size, rows in rows_by_size.items():
        per_size[size] = {name: {"s": round(row["s"], 3), "ms_per_piece": round(1000 * row["s"] / size, 3),
                                 "cpu_ms_per_piece": round(1000 * row["cpu_s"] / size, 3),
                                 "sys_ms_per_piece": round(1000 * row["sys_s"] / size, 3),
                                 "pieces_per_s": round(size / row["s"], 1), "first_s": round(row["first_s"], 3),
                                 "load": round(row["load"], 1),
                                 "peak_rss_mib": round(row["peak_rss_mib"]), "rss_rise_mib": round(row["rss_rise_mib"])}
                          for name, row in rows.items()}
        print(f"{size}: " + ", ".join(f"{n} {r['pieces_per_s']}/s" for n, r in per_size[size].items()),
              file=sys.stderr, flush=True)
    small, large = min(args.sizes), max(args.sizes)
    ratios = {name: round(per_size[large][name]["ms_per_piece"] / per_size[small][name]["ms_per_piece"], 2)
              for name in per_size[small]} if small != large and per_size else {}
    # None for a row run in another program (ipfs-car, cp): this process's CPU time holds none of it
    cpu_ratios = {name: round(per_size[large][name]["cpu_ms_per_piece"] / per_size[small][name]["cpu_ms_per_piece"], 2)
                  if per_size[small][name]["cpu_ms_per_piece"] else None
                  for name in per_size[small]} if small != large and per_size else {}
    floors = {size: rows["decode-floor"]["s"] for size, rows in per_size.items() if "decode-floor" in rows}
    result: dict[str, object] = {"art": args.art, "sizes": per_size, f"per_piece_ratio_{large}_over_{small}": ratios,
                                 "vs_decode_floor": {size: {name: round(row["s"] / floors[size], 2)
                                                            for name, row in per_size[size].items()}
                                                     for size in floors},
                                 f"cpu_per_piece_ratio_{large}_over_{small}": cpu_ratios,
                                 # the largest of the runs, each a child process
                                 "max_rss_mib": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
                                 "load_average": load}
    if args.markdown and ratios:
        print(markdown(per_size, ratios, cpu_ratios, small, large), file=sys.stderr, flush=True)
    print(json.dumps(result, indent=2))
    keep.cleanup()


def markdown(per_size: dict[int, dict[str, dict[str, float]]], ratios: dict[str, float],
             cpu_ratios: dict[str, float], small: int, large: int) -> str:
    """One row per command: per-piece wall (and CPU) cost at both sizes, their ratios, pieces/s and the peak RSS
    (rise) at both."""
    lines = [f"| command | ms/piece at {small:,} | ms/piece at {large:,} | ratio | CPU ratio | pieces/s at {small:,} | "
             f"pieces/s at {large:,} | peak RSS (rise) at {small:,} | peak RSS (rise) at {large:,} |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, ratio in ratios.items():
        a, b = per_size[small][name], per_size[large][name]
        lines.append(f"| {name} | {a['ms_per_piece']:.2f} | {b['ms_per_piece']:.2f} | **{ratio:.2f}** | "
                     f"{'—' if cpu_ratios[name] is None else f'{cpu_ratios[name]:.2f}'} | {a['pieces_per_s']:,.0f} | {b['pieces_per_s']:,.0f} | {a['peak_rss_mib']} MiB "
                     f"(+{a['rss_rise_mib']}) | {b['peak_rss_mib']} MiB (+{b['rss_rise_mib']}) |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
