"""Damaged stores (issue 9.2 – 9.4): clear always recovers and keeps the damaged bytes; export reads what
it can and never reports an empty export of a non-empty file as success; a 0-byte file is only
initialized when no WAL beside it may hold its data."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from autopatch_j.memory.errors import StorageError
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.runtime import FakeClock


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _seed(root: Path, turns: int = 60) -> Path:
    m = MemoryManager(root=root, clock=FakeClock(), owner="seed")
    assert m.open().ok
    for n in range(turns):
        ticket = m.begin_turn(f"From now on, answer first. {n} " + "x" * 200, Intent.GENERAL_CHAT)
        m.complete_turn(ticket, "OK.")
    m.close()
    conn = sqlite3.connect(m.paths.db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return m.paths.db


def _corrupt_table(db: Path, table: str) -> None:
    """Overwrite the root page of `table` with garbage: the catalog still reads as v2, the data does not."""
    conn = sqlite3.connect(db)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    start = (root - 1) * page_size
    data[start : start + page_size] = b"\xa5" * page_size
    db.write_bytes(bytes(data))


def test_clear_recovers_a_v2_catalog_with_corrupt_data_pages_and_keeps_the_damaged_bytes(tmp_path: Path) -> None:
    db = _seed(tmp_path)
    _corrupt_table(db, "turns")
    before = _digest(db)
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    assert not m.open().ok

    result = m.clear(confirm=True)

    assert m.health.ok and m.list_items() == []
    assert result.damaged_copy is not None
    assert result.damaged_copy.parent == tmp_path / ".autopatch-j" / "damaged"
    assert _digest(result.damaged_copy / "memory.db") == before
    assert MemoryManager(root=tmp_path, clock=FakeClock()).open().ok


def test_clear_of_a_healthy_store_keeps_no_copy(manager: MemoryManager) -> None:
    result = manager.clear(confirm=True)
    assert result.damaged_copy is None
    assert not (manager.paths.state_dir / "damaged").exists()


def test_clear_keeps_the_wal_of_a_damaged_store_too(tmp_path: Path) -> None:
    db = _seed(tmp_path)
    wal = Path(f"{db}-wal")
    wal.write_bytes(b"not really a wal but bytes someone may need" * 10)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE intruder (x TEXT)")
    conn.close()
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    assert not m.open().ok
    wal_bytes = wal.read_bytes() if wal.exists() else b""
    result = m.clear(confirm=True)
    assert result.damaged_copy is not None
    copied = result.damaged_copy / "memory.db-wal"
    assert (copied.read_bytes() if copied.exists() else b"") == wal_bytes


def test_cli_clear_prints_where_the_damaged_file_was_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from autopatch_j.cli.app import main

    _corrupt_table(_seed(tmp_path), "turns")
    with pytest.raises(SystemExit) as exit_info:
        main(["-C", str(tmp_path), "memory", "clear", "--confirm"])
    captured = capsys.readouterr()
    assert exit_info.value.code in (0, None), captured.err
    assert str(tmp_path / ".autopatch-j" / "damaged") in captured.out
    assert ".recover" in captured.out


def test_export_of_a_partly_readable_store_names_every_unreadable_table(tmp_path: Path) -> None:
    _corrupt_table(_seed(tmp_path), "turns")
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    m.open()
    result = m.export()
    data = json.loads(result.path.read_text(encoding="utf-8"))
    assert "turns" in data["unreadable"] and "turns" in result.unreadable
    assert "turns" not in data["tables"]
    assert data["tables"]["memory_meta"][0]["id"] == 1


def test_export_of_an_unreadable_store_fails_and_writes_nothing(tmp_path: Path) -> None:
    db = _seed(tmp_path)
    db.write_bytes(b"garbage, not SQLite" * 500)
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    m.open()
    with pytest.raises(StorageError, match="Nothing could be read"):
        m.export()
    exports = m.paths.exports
    assert not exports.exists() or list(exports.iterdir()) == []


def test_zero_byte_file_without_a_wal_is_initialized(tmp_path: Path) -> None:
    db = tmp_path / ".autopatch-j" / "memory.db"
    db.parent.mkdir()
    db.write_bytes(b"")
    Path(f"{db}-wal").write_bytes(b"")
    assert MemoryManager(root=tmp_path, clock=FakeClock()).open().ok


def test_zero_byte_file_with_a_non_empty_wal_is_degraded_and_untouched(tmp_path: Path) -> None:
    db = tmp_path / ".autopatch-j" / "memory.db"
    db.parent.mkdir()
    db.write_bytes(b"")
    wal = Path(f"{db}-wal")
    wal.write_bytes(b"\x37\x7f\x06\x82" + b"\x00" * 4092)
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    health = m.open()
    assert not health.ok and health.reason is not None and "-wal" in health.reason
    assert db.read_bytes() == b"" and wal.read_bytes() == b"\x37\x7f\x06\x82" + b"\x00" * 4092
    status = m.status()
    assert status.health.state == "degraded"
    with pytest.raises(StorageError, match="Nothing could be read"):
        m.export()
    assert db.read_bytes() == b"" and wal.read_bytes() == b"\x37\x7f\x06\x82" + b"\x00" * 4092
    result = m.clear(confirm=True)  # recovery keeps the WAL's bytes before replacing the pair
    assert result.damaged_copy is not None and (result.damaged_copy / "memory.db-wal").stat().st_size == 4096
    assert m.health.ok
