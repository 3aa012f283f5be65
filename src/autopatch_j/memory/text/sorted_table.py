"""Packaged word tables read by bisection: a lookup reads the few lines it compares, never the file.

A table file is UTF-8 text of `key<TAB>value` lines in byte order of their keys (Python's `sorted`
of the keys: code-point order is UTF-8 byte order), each key once, after `#` header lines at its
start (`sorted_table_error` checks a file). The file is mapped into memory (mmap) on the first
lookup, and a table keeps the key of the first line of each `STRIDE` bytes (≈ 400 keys for the
bilingual table's 1.6 MB of Chinese words, built in ≈ 0.2 ms): a lookup bisects those in memory,
then finds `\n<key>\t` among the few dozen lines between two of them (≈ 2.5 µs). A short-lived
`memory search` process pays for the words it asks about, not for parsing the whole table. A table
may be one run of such lines or several, each run a `section` (the bilingual table holds its
Chinese words, then its `@stem` lines).
"""

from __future__ import annotations

import bisect
import functools
import importlib
import mmap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: A table keeps the key of the first line starting after each STRIDE bytes (a page).
STRIDE = 4096


@functools.cache
def _mapped(package: str, name: str) -> bytes | mmap.mmap:
    """The file's bytes: mapped read-only where the package is a directory (an installed wheel, an
    editable checkout), read whole otherwise (a zipped package, an empty file)."""
    module = importlib.import_module(package)
    path = Path(module.__file__ or "").with_name(name)  # not `resources.files`: its first call costs 2 ms
    try:
        with path.open("rb") as f:
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # not a file of a directory, an empty file, a filesystem that refuses
        from importlib import resources

        return resources.files(package).joinpath(name).read_bytes()


def _body_start(data: bytes | mmap.mmap) -> int:
    """Where the first line after the leading `#` header lines starts."""
    start = 0
    while data[start : start + 1] == b"#":
        end = data.find(b"\n", start)
        start = len(data) if end < 0 else end + 1
    return start


@dataclass(frozen=True, slots=True)
class SortedTable:
    """Lines `[start, end)` of a packaged table file (`end` -1: to the end of the file), sorted by key."""

    package: str
    name: str
    start: int = -1  # -1: after the header lines
    end: int = -1

    def _span(self) -> tuple[bytes | mmap.mmap, int, int]:
        """The file's bytes and the span's first and end offsets (found once per table)."""
        return _span_of(self)

    def get(self, key: str) -> str | None:
        """The value of `key`'s line (the text after its first tab), None when no line has that key."""
        wanted = key.encode("utf-8", "surrogatepass")  # a lone surrogate is no key of a UTF-8 file
        if b"\n" in wanted or b"\t" in wanted:
            return None  # no line has such a key
        data, low, high = self._span()
        keys, starts = _samples(self)
        n = bisect.bisect_right(keys, wanted)  # the key's line, if any, lies between these two samples
        first = starts[n - 1] if n else low
        last = starts[n] if n < len(starts) else high
        head = wanted + b"\t"
        if data[first : first + len(head)] == head:
            value = first + len(head)
        else:
            found = data.find(b"\n" + head, first, last)  # a line start, then exactly the key
            if found < 0:
                return None
            value = found + 1 + len(head)
        end = data.find(b"\n", value, high)
        return data[value : high if end < 0 else end].decode("utf-8")

    def items(self) -> Iterator[tuple[str, str]]:
        """Every (key, value) in file order (checks and evaluation; lookups use `get`)."""
        data, start, end = self._span()
        for line in bytes(data[start:end]).decode("utf-8").split("\n"):
            if line:
                key, _, value = line.partition("\t")
                yield key, value

    def section(self, marker: bytes) -> tuple[SortedTable, SortedTable]:
        """This span cut where its lines starting with `marker` begin, those lines being all after the
        others (found by bisection too): the lines before them, and them."""
        data, low, high = self._span()
        end = high
        while low < high:  # low and high are line starts; the first marked line lies in [low, high]
            middle = (low + high) // 2
            start = data.rfind(b"\n", low, middle) + 1 or low
            if data[start : start + len(marker)] == marker:
                high = start
            else:
                line_end = data.find(b"\n", start, high)
                low = high if line_end < 0 else line_end + 1
        return (
            SortedTable(self.package, self.name, self.start, low),
            SortedTable(self.package, self.name, low, end),
        )


@functools.cache
def _span_of(table: SortedTable) -> tuple[bytes | mmap.mmap, int, int]:
    """`SortedTable._span`: the mapped file, past its header lines when the span starts there."""
    data = _mapped(table.package, table.name)
    start = _body_start(data) if table.start < 0 else table.start
    return data, start, len(data) if table.end < 0 else table.end


@functools.cache
def _samples(table: SortedTable) -> tuple[list[bytes], list[int]]:
    """The key and start of the first line starting after each `STRIDE` bytes of the table's span."""
    data, low, high = table._span()
    keys: list[bytes] = []
    starts: list[int] = []
    offset = low + STRIDE
    while offset < high:
        start = data.find(b"\n", offset, high) + 1
        if start <= 0 or start >= high:
            break
        tab = data.find(b"\t", start, high)
        keys.append(data[start:tab])
        starts.append(start)
        offset = start + STRIDE
    return keys, starts


def sorted_table_error(table: SortedTable) -> str | None:
    """Why `table` cannot be read by bisection (a key out of order or twice, a line without a tab),
    None when it can."""
    previous: bytes | None = None
    data, start, end = table._span()
    for number, line in enumerate(bytes(data[start:end]).split(b"\n")):
        if not line:
            continue
        key, tab, _ = line.partition(b"\t")
        if not tab:
            return f"{table.name}: line {number + 1} of its span has no tab"
        if previous is not None and key <= previous:
            return f"{table.name}: {key.decode()!r} is not after {previous.decode()!r}"
        previous = key
    return None
