"""Offline extraction by behaviour: whole sessions through admission, the real pipeline and drain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.memory.drain import drain
from autopatch_j.memory.manager import MemoryManager
from tests.memory.pipeline_support import admit, pipeline_for
from tests.memory.test_offline import extracted
from tests.memory.test_validation import turn

CASES = Path(__file__).parent / "cases"


def cases(name: str) -> list[dict[str, Any]]:
    """The cases of one behaviour, from `cases/<name>.json` (a list of objects with a `name`)."""
    data: list[dict[str, Any]] = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def run_session(manager: MemoryManager, turns: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Admit each turn and drain after it (the worker's rhythm); the active memories with their quotes."""
    pipeline = pipeline_for(manager)
    for t in turns:
        admit(manager, [(t["user"], t.get("assistant") or "OK.")])
        drain(pipeline)
    out = []
    for item in manager.list_items():
        detail = manager.show_item(item.memory_id)
        out.append(
            {
                "kind": item.kind.value,
                "title": item.title,
                "content": item.content,
                "quotes": [s.quote for s in detail.sources],
            }
        )
    return out


def params(data: list[dict[str, Any]]) -> list[Any]:
    """pytest parameters for cases, each with its name as id; a case with `xfail` (its reason) is a
    known miss that must keep failing (strict), so fixing it shows up."""
    out = []
    for case in data:
        marks = [pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else []
        out.append(pytest.param(case, id=case["name"], marks=marks))
    return out


_UTTERANCE_CHECKS = ("memories", "kinds", "kinds_any_of", "kinds_besides_discussion", "one_within")


def check_utterance(case: dict[str, Any]) -> None:
    """Run the offline extractor and its validators on one user turn (after `prior`, a [user,
    assistant] exchange, when given) and compare what they keep with the case:

    - `memories`: exactly these [kind, content] pairs, in order ([] = nothing is stored);
    - `kinds`: exactly these kinds, in order; `kinds_any_of`: one of these lists of kinds;
    - `kinds_besides_discussion`: these kinds once discussion context is left aside;
    - `one_within`: [kind, text]: one memory of that kind whose content is part of `text`.
    """
    assert any(key in case for key in _UTTERANCE_CHECKS), case["name"]
    prior = turn(1, *case["prior"]) if "prior" in case else None
    got = extracted(turn(2 if prior else 1, case["user"]), prior=prior)
    kinds = [kind for kind, _ in got]
    if "memories" in case:
        assert got == [tuple(pair) for pair in case["memories"]]
    if "kinds" in case:
        assert kinds == case["kinds"], got
    if "kinds_any_of" in case:
        assert kinds in case["kinds_any_of"], got
    if "kinds_besides_discussion" in case:
        assert [k for k in kinds if k != "discussion_context"] == case["kinds_besides_discussion"], got
    if "one_within" in case:
        (only,) = got
        assert only[0] == case["one_within"][0] and only[1] in case["one_within"][1], got


def play(manager: MemoryManager, case: dict[str, Any]) -> None:
    """Play a session through admission, the real pipeline and drain.

    Each turn is admitted and drained before the next (the worker's rhythm; the assistant answers
    "OK." unless the turn says otherwise); with `together`, all turns are admitted first and drained
    once. A turn `{"forget": kind-or-null}` forgets the one active memory (of that kind, if given),
    as `autopatch-j memory forget` does.
    """
    pipeline = pipeline_for(manager)
    if case.get("together"):
        admit(manager, [(t["user"], t["assistant"]) for t in case["turns"]])
        drain(pipeline)
        return
    for t in case["turns"]:
        if "forget" in t:
            (item,) = manager.list_items()
            if t["forget"]:
                assert item.kind.value == t["forget"]
            manager.forget(item.memory_id)
            pipeline = pipeline_for(manager)
            continue
        admit(manager, [(t["user"], t.get("assistant") or "OK.")])
        drain(pipeline)


_SESSION_CHECKS = (
    "active",
    "active_kinds",
    "active_count",
    "active_includes",
    "active_of_kind",
    "not_active",
    "first_contains",
    "only",
    "found",
    "not_found",
    "search_kinds",
    "quotes",
    "quotes_include",
)


def check_session(manager: MemoryManager, case: dict[str, Any]) -> None:
    """Play the session, then compare the active memories with the case:

    - `active`: exactly these [kind, content] pairs (sorted); `active_kinds`: exactly these kinds
      (sorted); `active_count`: this many; `active_includes`: one has exactly this content;
      `active_of_kind`: [kind, contents]: the contents of that kind, in listing order;
    - `not_active`: no active memory has exactly this content; `first_contains`: the first (sorted)
      active memory's content contains this;
    - `only`: the one active memory has this `kind`/`content`, `contains` each of these, `lacks` each
      of these, and its content is part of `within`;
    - `found` / `not_found`: searching the thread for each word finds something / nothing;
      `search_kinds`: {word: kinds of the hits};
    - `quotes`: the one memory's sources quote exactly these; `quotes_include`: at least these.
    """
    assert any(key in case for key in _SESSION_CHECKS), case["name"]
    play(manager, case)
    active = sorted((item.kind.value, item.content) for item in manager.list_items())
    contents = [content for _, content in active]
    if "active" in case:
        assert active == sorted(tuple(pair) for pair in case["active"])
    if "active_kinds" in case:
        assert [kind for kind, _ in active] == case["active_kinds"], active
    if "active_count" in case:
        assert len(active) == case["active_count"], active
    if "active_includes" in case:
        assert case["active_includes"] in contents, active
    if "active_of_kind" in case:
        kind, wanted = case["active_of_kind"]
        assert [i.content for i in manager.list_items() if i.kind.value == kind] == wanted
    if "not_active" in case:
        assert case["not_active"] not in contents, active
    if "first_contains" in case:
        assert case["first_contains"] in active[0][1], active
    if "only" in case:
        ((kind, content),) = active
        only = case["only"]
        assert kind == only.get("kind", kind) and content == only.get("content", content), active
        assert all(word in content for word in only.get("contains", [])), active
        assert all(word not in content for word in only.get("lacks", [])), active
        if "within" in only:
            assert content and content in only["within"], active
    thread = manager.active_thread().id
    for word in case.get("found", []):
        assert manager.search(thread_id=thread, query=word), word
    for word in case.get("not_found", []):
        assert manager.search(thread_id=thread, query=word) == [], word
    for word, kinds in case.get("search_kinds", {}).items():
        assert [hit.kind for hit in manager.search(thread_id=thread, query=word)] == kinds, word
    if "quotes" in case or "quotes_include" in case:
        (item,) = manager.list_items()
        shown = manager.show_item(item.memory_id)
        assert shown is not None
        quotes = [source.quote for source in shown.sources]
        assert quotes == case.get("quotes", quotes)
        assert set(case.get("quotes_include", [])) <= set(quotes)
