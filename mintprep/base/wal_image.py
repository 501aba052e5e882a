"""A WAL-mode SQLite database as a reader would see it, built in memory from the file and its write-ahead log.

SQLite's own reader of a WAL database needs the `-shm` index beside it, created and grown on first read: on a
full disk (or in a read-only folder with no `-shm`) that fails with "disk I/O error" although the data is
whole. This reads the log as https://www.sqlite.org/fileformat.html#the_write_ahead_log describes it: frames
whose salts match the header and whose running checksum holds, up to the last commit frame; frames after it (a
transaction still being written, or torn by a crash) are left out, as SQLite leaves them out.
"""

from __future__ import annotations

import struct

_MAGIC_ORDER = {0x377F0682: "<", 0x377F0683: ">"}  # the checksum's word order: the magic's low bit
_HEADER = 32
_FRAME_HEADER = 24
_MASK = 0xFFFFFFFF


def _checksum(data: bytes, s0: int, s1: int, order: str) -> tuple[int, int]:
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & _MASK
        s1 = (s1 + words[i + 1] + s0) & _MASK
    return s0, s1


def committed_image(database: bytes, log: bytes) -> bytearray:
    """The database file's bytes with the log's committed pages written over it (its size as the last commit
    says), in rollback-journal mode: an in-memory database cannot be in WAL mode."""
    image = bytearray(database)
    if len(log) >= _HEADER:
        magic, _, page_size, _, salt1, salt2, c1, c2 = struct.unpack(">8I", log[:_HEADER])
        order = _MAGIC_ORDER.get(magic)
        running = _checksum(log[:24], 0, 0, order) if order else None
        if order and running == (c1, c2) and page_size >= 512:
            _apply_frames(image, log, page_size, (salt1, salt2), running, order)
    if len(image) >= 20:
        image[18:20] = b"\x01\x01"  # file format read/write versions: 1 is a rollback journal, 2 is WAL
    return image


def _apply_frames(image: bytearray, log: bytes, page_size: int, salts: tuple[int, int], running: tuple[int, int],
                  order: str) -> None:
    frames: list[tuple[int, int]] = []  # (page number, offset of its data)
    committed, pages = 0, 0  # frames up to the last commit, and the database's size in pages then
    frame = _FRAME_HEADER + page_size
    for offset in range(_HEADER, len(log) - frame + 1, frame):
        number, commit, salt1, salt2, c1, c2 = struct.unpack(">6I", log[offset:offset + _FRAME_HEADER])
        if (salt1, salt2) != salts:
            break
        running = _checksum(log[offset:offset + 8], *running, order)
        running = _checksum(log[offset + _FRAME_HEADER:offset + frame], *running, order)
        if running != (c1, c2):
            break
        frames.append((number, offset + _FRAME_HEADER))
        if commit:
            committed, pages = len(frames), commit
    if not committed:
        return
    image.extend(bytes(max(0, pages * page_size - len(image))))
    for number, data in frames[:committed]:
        if number <= pages:
            image[(number - 1) * page_size:number * page_size] = log[data:data + page_size]
    del image[pages * page_size:]
