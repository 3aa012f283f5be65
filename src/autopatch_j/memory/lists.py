"""Rule lists: the items of a list after a line introducing it, each a statement of its own.

"ground rules for this repo:" / "以后这几条：" followed by bullet or numbered items: each item is read
on its own (its words, never its marker), no item joins another or the prose around the list, and
the introducing line is never a statement. Recognised by layout alone (`blocks.LIST_ITEM`
markers, indentation, a colon ending the line before the first item), never by words. A list is a
run of item lines after such a line, or at least two of them; blank lines and pastes nested under an
item go on with it, an indented prose line continues the item above it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from autopatch_j.memory.batches import ExtractionRequest
from autopatch_j.memory.blocks import LIST_ITEM
from autopatch_j.memory.contracts import CandidateOut
from autopatch_j.memory.shapes import COLON_END, item_marker
from autopatch_j.memory.structure import Line, parse


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the list items of a text and the lines introducing them are (offsets into the text): each
    item spans its marker line and the indented prose lines continuing it."""

    items: tuple[tuple[int, int], ...]
    intros: tuple[tuple[int, int], ...]  # each introducing line, trailing space excluded
    introduced: frozenset[int] = frozenset()  # the numbers of the items a line introduces

    def item_at(self, offset: int) -> int | None:
        """The number of the item holding `offset`, None outside every list."""
        return next((n for n, (s, e) in enumerate(self.items) if s <= offset < e), None)

    def introduces(self, start: int, end: int) -> bool:
        """The span `[start, end)` ends a line introducing a list (the sentence before its colon)."""
        return any(s <= start and end == e for s, e in self.intros)


_NO_LISTS = Layout(items=(), intros=())


@functools.lru_cache(maxsize=512)
def layout(text: str) -> Layout:
    """The lists of `text` (see the module docstring)."""
    if not any(LIST_ITEM.match(line) for line in text.split("\n")):
        return _NO_LISTS  # most turns hold no list: no need to parse them here
    lines = parse(text).lines
    items: list[tuple[int, int]] = []
    intros: list[tuple[int, int]] = []
    introduced: set[int] = set()
    n = len(lines)
    i = 0
    while i < n:
        if not _is_item(lines[i]):
            i += 1
            continue
        group: list[list[int]] = []
        j = i
        while j < n:
            ln = lines[j]
            if _is_item(ln):
                group.append([ln.start, ln.end])
            elif ln.label == "prose" and ln.text.strip() and ln.text[:1].isspace():
                group[-1][1] = ln.end  # an indented line continues the item above it
            elif ln.text.strip() and ln.label != "pasted":
                break  # blank lines and pastes nested under an item go on with the list
            j += 1
        k = i - 1
        while k >= 0 and not lines[k].text.strip():
            k -= 1
        intro = k >= 0 and lines[k].label != "pasted" and not _is_item(lines[k]) and COLON_END.search(lines[k].text)
        if intro or len(group) >= 2:
            if intro:
                introduced.update(range(len(items), len(items) + len(group)))
            items.extend((s, e) for s, e in group)
            if intro:
                intros.append((lines[k].start, lines[k].start + len(lines[k].text.rstrip())))
        i = j
    return Layout(items=tuple(items), intros=tuple(intros), introduced=frozenset(introduced))


def _is_item(line: Line) -> bool:
    return line.label != "pasted" and bool(LIST_ITEM.match(line.text))  # a report still holds its place


def walk(text: str, sentences: list[str]) -> Iterator[tuple[int, str, str, bool]]:
    """The sentences of `text` as statements read them: (index, the sentence as written, its words
    without a list marker, whether it opens another list item or leaves a list). A line introducing
    a list is left out: "ground rules for this repo:" only introduces the items after it."""
    lists = layout(text)
    item: int | None = None
    for n, sentence in enumerate(sentences):
        at = text.find(sentence)
        if lists.introduces(at, at + len(sentence)):
            continue
        here = lists.item_at(at)
        yield n, sentence, sentence[item_marker(sentence) :], here != item
        item = here


def list_siblings(text: str, offset: int) -> list[tuple[int, int]]:
    """The spans of the items of the list whose item holds `offset` (itself included): the items next
    to it with nothing but blank lines between; [] when `offset` lies in no item."""
    items = layout(text).items
    here = next((n for n, (s, e) in enumerate(items) if s <= offset < e), None)
    if here is None:
        return []
    first = last = here
    while first > 0 and not text[items[first - 1][1] : items[first][0]].strip():
        first -= 1
    while last + 1 < len(items) and not text[items[last][1] : items[last + 1][0]].strip():
        last += 1
    return list(items[first : last + 1])


def listed(turn_text: str, quote: str) -> bool:
    """`quote` lies in an item of a list that a line introduces: the layout states it as a rule."""
    lists = layout(turn_text)
    at = turn_text.find(quote)
    item = lists.item_at(at) if at >= 0 else None
    return item is not None and item in lists.introduced


def one_per_item(
    candidates: list[CandidateOut],
    request: ExtractionRequest,
    merge: Callable[[list[CandidateOut]], list[CandidateOut]],
    *,
    bounds: tuple[int, int],
) -> list[CandidateOut]:
    """`merge` (statements of one subject become one) over `candidates`, where a list item is one
    statement of its own: the statements of one item and kind become one quoting each ("Never log raw
    PII columns. Hashed IDs are fine."), within `bounds` (sources, characters of content), and no
    statement of an item joins another item or the prose."""
    out: list[CandidateOut] = []
    run: list[CandidateOut] = []
    last: tuple[int, int] | None = None
    for candidate in candidates:
        item = _item_of(candidate, request) if candidate.kind != "discussion_context" else None
        if item is None:
            run.append(candidate)
            last = None
            continue
        out.extend(merge(run))
        run = []
        if item == last and out[-1].kind == candidate.kind and _room(out[-1], candidate, bounds):
            out[-1] = out[-1].model_copy(
                update={
                    "content": f"{out[-1].content} {candidate.content}",
                    "sources": [*out[-1].sources, *candidate.sources],
                }
            )
        else:
            out.append(candidate)
        last = item
    return [*out, *merge(run)]


def _room(a: CandidateOut, b: CandidateOut, bounds: tuple[int, int]) -> bool:
    return len(a.sources) + len(b.sources) <= bounds[0] and len(a.content) + 1 + len(b.content) <= bounds[1]


def _item_of(candidate: CandidateOut, request: ExtractionRequest) -> tuple[int, int] | None:
    """(turn id, item number) of the list item the candidate's first user quote lies in, if any."""
    src = next((s for s in candidate.sources if s.role == "user"), None)
    turn = request.turn(src.turn_id) if src is not None else None
    if src is None or turn is None:
        return None
    at = turn.user_text.find(src.quote)
    item = layout(turn.user_text).item_at(at) if at >= 0 else None
    return None if item is None else (turn.id, item)
