"""`mintprep validate` on files a stranger sent: a bomb, a FIFO, a folder and a broken file each get their
own error entry, quickly, and the good images keep their verdicts."""

from __future__ import annotations

import json
import os
import struct
import time
import zlib
from pathlib import Path

from PIL import Image
from typer.testing import CliRunner

from mintprep.cli import app


def png_announcing(path: Path, width: int, height: int) -> Path:
    """A real 1x1 PNG whose IHDR claims `width` x `height` (CRC fixed): tiny on disk, gigabytes decoded."""
    Image.new("RGB", (1, 1)).save(path)
    data = bytearray(path.read_bytes())
    ihdr = 8 + 8  # signature, then length + type of the first chunk
    data[ihdr:ihdr + 8] = struct.pack(">II", width, height)
    data[ihdr + 13:ihdr + 17] = struct.pack(">I", zlib.crc32(bytes(data[ihdr - 4:ihdr + 13])))
    path.write_bytes(bytes(data))
    return path


def test_each_untrusted_file_gets_its_own_entry(tmp_path: Path):
    good = tmp_path / "good.png"
    Image.effect_noise((64, 64), 40).convert("RGB").save(good)
    bomb = png_announcing(tmp_path / "bomb.png", 12000, 12000)
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.png"
    folder.mkdir()
    broken = tmp_path / "broken.png"
    broken.write_bytes(good.read_bytes()[:40])
    started = time.monotonic()
    result = CliRunner().invoke(app, ["validate", *map(str, (good, bomb, fifo, folder, broken)), "--json"])
    took = time.monotonic() - started
    assert result.exit_code == 2, result.output
    entries = {Path(e["path"]).name: e for e in json.loads(result.stdout)["images"]}
    assert set(entries) == {"good.png", "bomb.png", "pipe.png", "folder.png", "broken.png"}
    assert "guard" in entries["good.png"] and "error" not in entries["good.png"]
    assert "12000x12000" in entries["bomb.png"]["error"]
    assert "FIFO" in entries["pipe.png"]["error"] and "folder" in entries["folder.png"]["error"]
    assert "broken.png" in entries["broken.png"]["error"]
    assert took < 10, f"validate took {took:.1f}s on five small files"
