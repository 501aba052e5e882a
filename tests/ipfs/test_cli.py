"""`mintprep cid` and `mintprep export-car` on real files: kubo's outputs for kubo's flags."""

from __future__ import annotations

import io
import json
import os
import tracemalloc

import pytest
from typer.testing import CliRunner

import mintprep.cli.ipfs_cmd  # noqa: F401  (registers the commands)
from mintprep.cli.app import app
from mintprep.ipfs.car import CarReader
from mintprep.ipfs.unixfs import add_options, import_bytes, import_file

runner = CliRunner()


@pytest.fixture
def planets(tmp_path):
    root = tmp_path / "planets"
    root.mkdir()
    (root / "mars.txt").write_bytes(b"Hello Mars!\n")
    (root / "venus.txt").write_bytes(b"Hello Venus!\n")
    (root / ".DS_Store").write_bytes(b"hidden junk")
    return root


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], "QmWSgS32xQEcXMeqd3YPJLrNBLSdsfYCep2U7CFkyrjXwY"),
        (["--raw-leaves"], "QmfWfQfKCY5Ukv9peBbxM5vqWM9BzmqUSXvdCgjT2wsiBT"),
        (["--cid-version", "1"], "bafybeih7e5dmkyk25up5vxug4q3hrg2fxbzf23dfrac2fns5h7z4aa7ioi"),
        (["--cid-version", "1", "--no-raw-leaves"], "bafybeif5tuep5ap2d7zyhbktucey75aoacxufgt6i3v4gebmixyipnyp7y"),
        (["--profile", "kubo-cidv1"], "bafybeih7e5dmkyk25up5vxug4q3hrg2fxbzf23dfrac2fns5h7z4aa7ioi"),
    ],
)
def test_cid_of_a_directory_skips_hidden_files(planets, flags, expected) -> None:
    result = runner.invoke(app, ["cid", str(planets), *flags])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == expected


def test_hidden_wrap_and_json(planets, tmp_path) -> None:
    with_hidden = runner.invoke(app, ["cid", str(planets), "--hidden"]).stdout.strip()
    assert with_hidden != "QmWSgS32xQEcXMeqd3YPJLrNBLSdsfYCep2U7CFkyrjXwY" and with_hidden.startswith("Qm")
    empty = tmp_path / "example.jpg"
    empty.write_bytes(b"")
    assert runner.invoke(app, ["cid", str(empty), "-w"]).stdout.strip() == "QmaG4FuMqEBnQNn3C8XJ5bpW8kLs7zq2ZXgHptJHbKDDVx"
    out = json.loads(runner.invoke(app, ["cid", str(empty), "--cid-version", "1", "--json"]).stdout)
    assert out["cid"] == "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku"
    assert out["profile"]["raw_leaves"] is True and out["size"] == 0


def test_bad_input_exits_2_naming_it(tmp_path) -> None:
    missing = runner.invoke(app, ["cid", str(tmp_path / "nope.png")])
    assert missing.exit_code == 2 and "nope.png" in missing.output
    bad = runner.invoke(app, ["cid", str(tmp_path), "--chunker", "rabin"])
    assert bad.exit_code == 2 and "chunker 'rabin'" in bad.output


def test_file_import_streams_and_matches_in_memory_import(tmp_path) -> None:
    profile = add_options(chunker="size-1000")  # 250 chunks: a two-level tree past 174 links
    data = os.urandom(250_000)
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    from_disk, in_memory = import_file(path, profile), import_bytes(data, profile)
    assert from_disk.root == in_memory.root and from_disk.size == in_memory.size
    assert list(from_disk.blocks) == list(in_memory.blocks)
    assert all(leaf.data is None for leaf in from_disk.node.children[0].children)  # leaves not held in memory
    path.write_bytes(bytes([data[0] ^ 0xFF]) + data[1:])  # a changed first byte (b"Y" was no change 1 time in 256)
    with pytest.raises(Exception, match="changed after it was imported"):
        list(from_disk.blocks)


def test_memory_stays_flat_as_the_file_grows(tmp_path) -> None:
    profile = add_options(cid_version=1)
    peaks = []
    for megabytes in (4, 16):
        path = tmp_path / f"{megabytes}.bin"
        with open(path, "wb") as out:
            for _ in range(megabytes):
                out.write(os.urandom(1024 * 1024))
        tracemalloc.start()
        import_file(path, profile)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 4 * 1024 * 1024 and peaks[1] < peaks[0] * 1.5, peaks  # ~2 read buffers, whatever the size


def test_export_car_from_a_path_and_from_the_store(planets, tmp_path) -> None:
    car_path = tmp_path / "out" / "planets.car"
    result = runner.invoke(app, ["export-car", str(planets), "-o", str(car_path), "--cid-version", "1", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    reader = CarReader(io.BytesIO(car_path.read_bytes()))
    blocks = list(reader)
    assert [str(r) for r in reader.roots] == [summary["root"]] == [str(blocks[0].cid)]
    assert summary["root"] == "bafybeih7e5dmkyk25up5vxug4q3hrg2fxbzf23dfrac2fns5h7z4aa7ioi" and len(blocks) == 3

    from mintprep.ipfs.backends import LocalBackend
    from mintprep.ipfs.unixfs import get_profile

    state = tmp_path / "collection" / ".mintprep"
    dag = import_bytes(b"piece" * 1000, get_profile("kubo-cidv1"))
    LocalBackend(state).pin_dag(dag, name="token-1")
    again = tmp_path / "again.car"
    assert runner.invoke(app, ["export-car", str(dag.root), "--store", str(state), "-o", str(again)]).exit_code == 0
    assert list(CarReader(io.BytesIO(again.read_bytes()))) == list(dag.blocks)
    absent = str(import_bytes(b"absent", get_profile("kubo-cidv1")).root)
    failed = runner.invoke(app, ["export-car", absent, "--store", str(state), "-o", str(tmp_path / "no.car")])
    assert failed.exit_code == 2 and absent in failed.output
    assert not (tmp_path / "no.car").exists() and not list(tmp_path.glob(".no.car*"))
