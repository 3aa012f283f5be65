"""The managed block `memory publish` writes: memories in, block lines out (pure, no I/O).

A block is a run of whole lines between two marker lines; everything between them belongs to
autopatch-j and is rewritten on every publish:

    <!-- autopatch-j:begin decisions -->
    <!-- managed by autopatch-j, edit with `autopatch-j memory …` … -->
    ## Project decisions (autopatch-j Memory)
    …
    ### package manager
    - [#4] I suggest we use uv to manage dependencies and commit uv.lock.

    ### other
    - [#7] Never use wildcard imports in this codebase.
    <!-- autopatch-j:end decisions -->

Lines are grouped by subject (`memory_items.subject`; a memory without one goes to the last group,
"other"), subjects in alphabetical order, memories by id inside a group. The block is bounded like
the routing context: at most `BLOCK_CHARS` characters of memory lines (subject headings included),
each line at most `LINE_CHARS`; the newest memories are kept first and what does not fit is named as
a count with the command that shows it. Memory text is made inert: every line break, tab and control
or bidi character becomes a space, `<` is escaped so no HTML comment or tag can open (nor our marker
appear), and each line starts with `- [#id] `, so no text can start a heading, a fence, a marker or a
setext underline of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from autopatch_j.memory import PublishedItem, PublishPage

BLOCK_CHARS = 4_000  # the routing context's bound (M-66)
LINE_CHARS = 400  # one memory line, like a routing context entry
MAX_ROWS = BLOCK_CHARS // 9 + 1  # more rows than this cannot fit: a line is at least `- [#1] x` + newline
OTHER_SUBJECT = "other"
DECISIONS_KEY = "decisions"

MARKER_PREFIX = "<!-- autopatch-j:"
_MARKER = re.compile(r"^<!-- autopatch-j:(begin|end) (\S(?:.*\S)?) -->$")
# Line and paragraph breaks, tabs, C0/C1 controls, zero-width and bidi controls, the BOM.
_BREAKS = re.compile("[\\s\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]+")


@dataclass(frozen=True, slots=True)
class Block:
    """The lines of one managed block (markers included, no line endings) and what it left out."""

    key: str
    lines: tuple[str, ...]
    shown: int
    total: int

    @property
    def omitted(self) -> int:
        return self.total - self.shown


def begin_marker(key: str) -> str:
    return f"{MARKER_PREFIX}begin {key} -->"


def end_marker(key: str) -> str:
    return f"{MARKER_PREFIX}end {key} -->"


def parse_marker(line: str) -> tuple[str, str] | None:
    """`("begin"|"end", key)` for a marker line (surrounding blanks ignored), else None."""
    found = _MARKER.match(line.strip())
    return (found.group(1), found.group(2)) if found else None


def looks_like_marker(line: str) -> bool:
    """A line that starts like one of our markers (it may be damaged: `parse_marker` says)."""
    text = line.strip()
    return text.startswith(MARKER_PREFIX) and ("autopatch-j:begin" in text or "autopatch-j:end" in text)


def inert(text: str, limit: int = LINE_CHARS) -> str:
    """`text` on one line that no Markdown or HTML reading can turn into structure, ≤ `limit` chars."""
    flat = _BREAKS.sub(" ", text).strip().replace("<", "\\<").replace("-->", "--\\>")
    if len(flat) <= limit:
        return flat
    return flat[: max(limit - 1, 0)].rstrip() + "…"


def preferences_key(project: str) -> str:
    """One block per project in a user-level file: the project's root names it."""
    return f"preferences {inert(project, 300)}"


def render_decisions(page: PublishPage) -> Block:
    """The project file's block: the project's active decisions."""
    header = (
        "## Project decisions (autopatch-j Memory)",
        "Confirmed by the user in conversation; `autopatch-j memory show ID` gives the words behind a line.",
    )
    return _render(
        DECISIONS_KEY,
        page,
        header=header,
        noun="decision",
        comment="edit with `autopatch-j memory …` (`memory forget ID`, then `memory publish`)",
        command="autopatch-j memory list",
    )


def render_preferences(page: PublishPage, *, project: str) -> Block:
    """A user-level file's block: the personal preferences stated in `project`."""
    where = inert(project, 300)
    header = (
        f"## My preferences (autopatch-j Memory of {where})",
        "Stated by me in conversation; `autopatch-j memory show ID` in that project gives my words.",
    )
    return _render(
        preferences_key(project),
        page,
        header=header,
        noun="preference",
        comment=f"edit with `autopatch-j memory …` in {where} (`memory forget ID`, then `memory publish --user`)",
        command=f"autopatch-j -C {where} memory list",
    )


def _render(key: str, page: PublishPage, *, header: tuple[str, ...], noun: str, comment: str, command: str) -> Block:
    kept = _fit(page.items)
    lines = [
        begin_marker(key),
        f"<!-- managed by autopatch-j, {comment}; changes inside this block are overwritten -->",
    ]
    lines += header
    if not page.total:
        lines += ["", f"_No active {noun}s._"]
    for subject, group in _groups(kept):
        lines += ["", f"### {subject}"]
        lines += [_line(item) for item in group]
    omitted = page.total - len(kept)
    if omitted:
        plural = "" if omitted == 1 else "s"
        lines += ["", f"_{omitted} more {noun}{plural} not shown here: `{command}`._"]
    lines.append(end_marker(key))
    return Block(key=key, lines=tuple(lines), shown=len(kept), total=page.total)


def _line(item: PublishedItem) -> str:
    prefix = f"- [#{item.memory_id}] "
    return prefix + inert(item.content, LINE_CHARS - len(prefix))


def _subject(item: PublishedItem) -> str:
    return inert(item.subject, 80) or OTHER_SUBJECT


def _fit(items: tuple[PublishedItem, ...]) -> list[PublishedItem]:
    """The newest items whose lines (and new subject headings) fit in `BLOCK_CHARS`."""
    kept: list[PublishedItem] = []
    subjects: set[str] = set()
    used = 0
    for item in items:
        subject = _subject(item)
        cost = len(_line(item)) + 1 + (0 if subject in subjects else len(subject) + 6)
        if used + cost > BLOCK_CHARS:
            break
        kept.append(item)
        subjects.add(subject)
        used += cost
    return kept


def _groups(items: list[PublishedItem]) -> list[tuple[str, list[PublishedItem]]]:
    grouped: dict[str, list[PublishedItem]] = {}
    for item in items:
        grouped.setdefault(_subject(item), []).append(item)
    order = sorted(grouped, key=lambda s: (s == OTHER_SUBJECT, s.casefold(), s))
    return [(s, sorted(grouped[s], key=lambda i: i.memory_id)) for s in order]
