"""Put a managed block into a text file, or take it out, changing no other byte; replace atomically.

Plan, then commit:

    with locked(path.parent):               # publishers of this machine take turns per directory
        edit = plan(path, block)            # or plan(path, None, key=…) to take the block out
        if edit.changed:
            commit(edit)

**The bytes outside the block never change**: the file is read as bytes and must be UTF-8 (a UTF-8
byte-order mark is kept where it is, outside the block); only the span from the begin marker line
to the end of the end marker line (its line ending excluded) is replaced. The block's lines use the
file's line ending (CRLF when most lines end so, else LF).

**Where a new block goes**: at the end, after one blank line; an empty or missing file becomes the
block and a newline. When the file had no final newline the block gets none either, so the file keeps
that shape. **Taking it out** (`--remove`) removes the block's lines and the one blank line before it
(else the one after it). So when the block is still where publish put it, the file is byte for byte
what it was before the first publish — with or without its final newline; a file left empty (one
that held nothing but the block) is deleted.

**Refusals** (a `PublishError`, one sentence, the file untouched): the file is not UTF-8; a marker
line is damaged, duplicated, out of order or nested in another block; the file changed between the
read and the replace (checked again just before `os.replace`); the file, or the folder a new file
needs, cannot be written. The new content goes to a temporary file in the same directory with the old
file's mode (a new file gets 0666 minus the umask), is flushed to disk, then replaces the file with
`os.replace`: a reader sees the old file or the new one, never half of one. A symlink is followed:
its target is edited, so a `CLAUDE.md → AGENTS.md` link is published once.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from autopatch_j.app.errors import PublishError
from autopatch_j.app.publish.blocks import Block, looks_like_marker, parse_marker

_BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class Edit:
    """One file's content before and after (None: no file), as read under the lock."""

    path: Path
    before: bytes | None
    after: bytes | None

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self, label: str) -> str:
        """A unified diff (`a/label` → `b/label`, /dev/null for no file); "" when nothing changes."""
        old = _diff_lines(self.before)
        new = _diff_lines(self.after)
        return "".join(
            difflib.unified_diff(
                old,
                new,
                fromfile=f"a/{label}" if self.before is not None else "/dev/null",
                tofile=f"b/{label}" if self.after is not None else "/dev/null",
            )
        )


@dataclass(frozen=True, slots=True)
class _Span:
    start: int  # where the begin marker line starts
    body_end: int  # where the end marker line's text ends (its line ending excluded)
    end: int  # after the end marker line's line ending


def target_of(path: Path) -> Path:
    """The file actually edited: a symlink's final target."""
    return Path(os.path.realpath(path))


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """An exclusive advisory lock on `directory` (POSIX `flock`), so two publishers take turns."""
    try:
        import fcntl
    except ImportError:  # no flock here: the check before os.replace still refuses a lost race
        yield
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError as exc:
        raise PublishError(f"Cannot open {directory}: {exc.strerror or exc}; nothing was written.") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def make_folder(directory: Path) -> None:
    """Create `directory` and its parents for a new file (a user-level file's `~/.codex/`)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PublishError(f"Cannot create {directory}: {exc.strerror or exc}; nothing was written.") from exc


def plan(path: Path, block: Block | None, *, key: str) -> Edit:
    """Read `path` and compute its content with `block` in place, or with the `key` block taken out
    (`block` None). No block to take out, or an empty block and none in the file: nothing changes."""
    before = read_bytes(path)
    text = _decode(path, before)
    span = _find(path, text, key)
    if block is None:
        if span is None:
            return Edit(path=path, before=before, after=before)
        rest = _take(text, span)
        return Edit(path=path, before=before, after=rest.encode("utf-8") if rest else None)
    if span is None and block.total == 0:
        return Edit(path=path, before=before, after=before)
    return Edit(path=path, before=before, after=_put(text, block.lines, span).encode("utf-8"))


def commit(edit: Edit, *, before_replace: Callable[[], None] | None = None) -> None:
    """Write `edit.after` atomically (or delete the file), refusing when the file changed since `plan`.

    `before_replace` runs after the new content is on disk and just before the last check (a seam
    for tests to change the file at the worst moment)."""
    path = edit.path
    try:
        if edit.after is None:
            if before_replace is not None:
                before_replace()
            _require_unchanged(edit)
            path.unlink(missing_ok=True)
            return
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".autopatch-j")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(edit.after)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, _mode_for(path))
            if before_replace is not None:
                before_replace()
            _require_unchanged(edit)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        _sync_directory(path.parent)
    except OSError as exc:
        raise PublishError(f"Cannot write {path}: {exc.strerror or exc}; the file was left as it was.") from exc


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError as exc:
        raise PublishError(f"{path} is a directory, not a file; publish needs a file there or nothing.") from exc
    except OSError as exc:
        raise PublishError(f"Cannot read {path}: {exc.strerror or exc}; the file was left as it was.") from exc


# -- the text, as a pure function of the old text ----------------------------------------------------


def _decode(path: Path, data: bytes | None) -> str:
    if data is None:
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PublishError(
            f"{path} is not UTF-8 text (invalid byte at offset {exc.start}); autopatch-j edits only UTF-8 "
            "files and left it untouched."
        ) from exc


def _lines(text: str) -> Iterator[tuple[int, int, int]]:
    """(start, end of text, end with line ending) of every line; a leading BOM is not part of line 1."""
    start = 1 if text.startswith(_BOM) else 0
    while start < len(text):
        newline = text.find("\n", start)
        end = len(text) if newline < 0 else newline + 1
        body_end = end if newline < 0 else (newline - 1 if text[newline - 1 : newline] == "\r" else newline)
        yield start, max(body_end, start), end
        start = end


def _find(path: Path, text: str, key: str) -> _Span | None:
    begins: list[tuple[int, int, int]] = []
    ends: list[tuple[int, int, int]] = []
    others: list[int] = []
    for number, (start, body_end, end) in enumerate(_lines(text), start=1):
        line = text[start:body_end]
        if not looks_like_marker(line):
            continue
        parsed = parse_marker(line)
        if parsed is None:
            raise _damaged(path, f"line {number} looks like an autopatch-j marker but is not one")
        which, found = parsed
        if found != key:
            others.append(start)
        else:
            (begins if which == "begin" else ends).append((start, body_end, end))
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1:
        what = "duplicated" if len(begins) > 1 or len(ends) > 1 else "missing its other half"
        raise _damaged(path, f"the `{key}` markers are {what}")
    (start, _, _), (end_start, body_end, end) = begins[0], ends[0]
    if end_start < start:
        raise _damaged(path, f"the `{key}` end marker comes before its begin marker")
    if any(start < other < end_start for other in others):
        raise _damaged(path, f"another autopatch-j marker lies inside the `{key}` block")
    return _Span(start=start, body_end=body_end, end=end)


def _put(text: str, lines: tuple[str, ...], span: _Span | None) -> str:
    newline = _newline(text)
    block = newline.join(lines)
    if span is not None:
        return text[: span.start] + block + text[span.body_end :]
    if text in ("", _BOM):
        return text + block + newline
    if text.endswith("\n"):
        return text + newline + block + newline
    return text + newline + newline + block


def _take(text: str, span: _Span) -> str:
    before, ending, after = text[: span.start], text[span.body_end : span.end], text[span.end :]
    if after == "":
        if _ends_in_blank_line(before):
            before = _drop_newline(before)
            if ending == "":  # the file had no final newline before the block came
                before = _drop_newline(before)
        return before
    if _ends_in_blank_line(before):
        return _drop_newline(before) + after
    if after.startswith(("\n", "\r\n")):
        return before + after.removeprefix("\r").removeprefix("\n")
    return before + after


def _ends_in_blank_line(text: str) -> bool:
    """`text` ends with a line ending that ends an empty line (or is only one)."""
    if not text.endswith("\n"):
        return False
    rest = _drop_newline(text)
    return rest in ("", _BOM) or rest.endswith("\n")


def _drop_newline(text: str) -> str:
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith("\n") else text


def _newline(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def _damaged(path: Path, what: str) -> PublishError:
    return PublishError(
        f"{path} has a damaged autopatch-j block ({what}); it was left untouched: fix or delete the marker "
        "lines by hand, then publish again."
    )


# -- the file system ---------------------------------------------------------------------------------


def _require_unchanged(edit: Edit) -> None:
    if read_bytes(edit.path) != edit.before:
        raise PublishError(
            f"{edit.path} changed while autopatch-j was publishing; it was left as it is now: run the command again."
        )


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """This process's umask, read without changing it where the system says (Linux), else briefly set."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    current = os.umask(0o022)
    os.umask(current)
    return current


def _sync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _diff_lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    lines = data.decode("utf-8").splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines
