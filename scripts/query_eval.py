"""Memory search measured on the realistic sessions' queries, independently of extraction.

For every session of `eval/realistic/<part>/*/*.json` (format: eval/realistic/FORMAT.md), a fresh store
receives the session's gold **active** memories directly (title, content, kind, subject — no
extraction), and each of the session's `queries` is sent to `MemoryManager.search` (the function
behind `memory search`, the agent tool and MCP `memory_search`):

- a query with a `target`: hit when the target is among the ≤ 5 hits (hit@5), reported for
  queries in the memory's language and across languages apart (a text is Chinese when it holds a
  CJK character);
- a query with `target: null` asks about something the session never decided: it must return
  nothing (the share of empty results is reported).

    python scripts/query_eval.py [--part dev] [--json] [--misses] [--associations FILE] [--necessity FILE]
        [--dump FILE]

`--dump FILE` writes every query's hits as they are returned, one JSON line per query (session,
query, then per hit its memory id, kind, title, synopsis and match kind, in order), so two checkouts'
searches can be compared byte for byte (`cmp`; docs/testing.md).

Runs against whatever `autopatch_j` is importable, so the search of another checkout is measured
with `PYTHONPATH=<checkout>/src` (the store is built through APIs both have).
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sqlite3
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from autopatch_j.memory.manager import MemoryManager

try:  # where the indexing entry point lives differs between checkouts
    from autopatch_j.memory.index import index_item_in_tx
except ImportError:  # pragma: no cover - an older checkout
    from autopatch_j.memory.terms import index_item_in_tx  # type: ignore[attr-defined,no-redef]

ROOT = Path(__file__).resolve().parent.parent
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_INSERT = (
    "INSERT INTO memory_items (memory_id, revision, kind, thread_id, title, content, non_factual, status, "
    "operation, created_at, updated_at{extra}) VALUES ((SELECT coalesce(max(id), 0) + 1 FROM memory_items), 1, "
    "?, ?, ?, ?, ?, 'active', 'create', ?, ?{marks}) RETURNING id, memory_id"
)


def language(text: str) -> str:
    return "zh" if _CJK.search(text) else "en"


def _store_memories(manager: MemoryManager, memories: list[dict[str, object]]) -> dict[str, int]:
    """The session's active gold memories stored as items; key → memory id."""
    thread = manager.active_thread().id
    with manager.db.write("query eval: store gold memories") as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(memory_items)")}
        has_subject = "subject" in columns
        takes_subject = "subject" in inspect.signature(index_item_in_tx).parameters
        sql = _INSERT.format(extra=", subject" if has_subject else "", marks=", ?" if has_subject else "")
        ids: dict[str, int] = {}
        for n, memory in enumerate(m for m in memories if m["state"] == "active"):
            kind = str(memory["kind"])
            discussion = kind == "discussion_context"
            values: list[object] = [
                kind,
                thread if discussion else None,
                str(memory["title"])[:200],
                str(memory["content"])[:2000],
                int(discussion),
                1_800_000_000.0 + n,
                1_800_000_000.0 + n,
            ]
            if has_subject:
                values.append(str(memory.get("subject") or ""))
            item_id, memory_id = conn.execute(sql, values).fetchone()
            extra = {"subject": str(memory.get("subject") or "")} if takes_subject else {}
            index_item_in_tx(
                conn,
                item_id=item_id,
                title=str(memory["title"])[:200],
                aliases=[],
                keywords=[],
                content=str(memory["content"])[:2000],
                **extra,
            )
            ids[str(memory["key"])] = memory_id
    return ids


@dataclass(frozen=True, slots=True)
class Answer:
    """One query of a session answered by a fresh store holding the session's active gold memories;
    `manager` stays open only while the answer is being looked at."""

    session: dict[str, Any]
    query: dict[str, Any]
    hits: list[Any]
    ids: dict[str, int]  # gold key → memory id
    manager: MemoryManager

    @property
    def target(self) -> dict[str, Any] | None:
        """The gold memory the query asks for (None for a nothing-query)."""
        key = self.query["target"]
        return None if key is None else next(m for m in self.session["memories"] if m["key"] == key)

    @property
    def hit(self) -> bool:
        """A nothing-query found nothing, or the target is among the hits."""
        key = self.query["target"]
        if key is None:
            return not self.hits
        return self.ids.get(key) in {hit.memory_id for hit in self.hits}

    @property
    def kind(self) -> str:
        """`null` for a nothing-query, else `same` or `cross`: the query in its target's language or not."""
        memory = self.target
        if memory is None:
            return "null"
        same = language(self.query["query"]) == language(f"{memory['title']} {memory['content']}")
        return "same" if same else "cross"


def session_files(part: str) -> list[Path]:
    """The batch files of `eval/realistic/<part>/*/*.json` (or of an absolute folder)."""
    files = sorted((ROOT / "eval" / "realistic" / part).glob("*/*.json"))
    if not files:
        raise SystemExit(f"no session files under eval/realistic/{part}/")
    return files


def load_sessions(files: list[Path]) -> list[dict[str, Any]]:
    """Every session of the batch files, in order."""
    return [session for path in files for session in json.loads(path.read_text(encoding="utf-8"))["sessions"]]


@contextmanager
def store_session(session: dict[str, Any]) -> Iterator[tuple[MemoryManager, dict[str, int]]]:
    """A fresh store holding the session's active gold memories, and their gold key → memory id."""
    with tempfile.TemporaryDirectory() as tmp:
        manager = MemoryManager(root=Path(tmp))
        if not manager.open().ok:
            raise SystemExit("a fresh store did not open")
        try:
            yield manager, _store_memories(manager, session["memories"])
        finally:
            manager.close()


def answers(sessions: list[dict[str, Any]]) -> Iterator[Answer]:
    """Every query of every session, answered by the top 5 of `MemoryManager.search`."""
    for session in sessions:
        with store_session(session) as (manager, ids):
            thread = manager.active_thread().id
            for query in session["queries"]:
                hits = manager.search(thread_id=thread, query=query["query"], limit=5)
                yield Answer(session=session, query=query, hits=hits, ids=ids, manager=manager)


def hit_line(answer: Answer) -> str:
    """One query's hits as one JSON line: what `--dump` writes (ids, order, kinds, texts, match kinds)."""
    hits = [[hit.memory_id, str(hit.kind), hit.title, hit.synopsis, hit.match] for hit in answer.hits]
    return json.dumps([answer.session["id"], answer.query["query"], hits], ensure_ascii=False) + "\n"


def run(part: str, *, misses: bool, dump: TextIO | None = None) -> dict[str, object]:
    files = session_files(part)
    sessions = load_sessions(files)
    counts = {"same": [0, 0], "cross": [0, 0], "null": [0, 0]}
    missed: list[dict[str, object]] = []
    for answer in answers(sessions):
        if dump is not None:
            dump.write(hit_line(answer))
        cls, memory = answer.kind, answer.target
        counts[cls][0] += int(answer.hit)
        counts[cls][1] += 1
        if not answer.hit and misses:
            missed.append(
                {
                    "session": answer.session["id"],
                    "class": cls,
                    "query": answer.query["query"],
                    "target": None if memory is None else memory["title"],
                    "got": [hit.title for hit in answer.hits],
                }
            )
    found = counts["same"][0] + counts["cross"][0]
    targeted = counts["same"][1] + counts["cross"][1]
    report: dict[str, object] = {
        "part": part,
        "files": len(files),
        "sessions": len(sessions),
        "hit_at_5": round(found / targeted, 3) if targeted else None,
        "targeted": targeted,
        "same_language": _share(counts["same"]),
        "cross_language": _share(counts["cross"]),
        "nothing_empty": _share(counts["null"]),
    }
    if misses:
        report["misses"] = missed
    return report


def _share(pair: list[int]) -> dict[str, object]:
    return {"ok": pair[0], "of": pair[1], "share": round(pair[0] / pair[1], 3) if pair[1] else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="dev", help="folder under eval/realistic (default: dev)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--misses", action="store_true", help="list every miss and non-empty nothing-query")
    parser.add_argument(
        "--associations", type=Path, help="a table of scripts/train_associations.py instead of the packaged one"
    )
    parser.add_argument(
        "--necessity", type=Path, help="a table of scripts/train_necessity.py instead of the packaged one"
    )
    parser.add_argument("--dump", type=Path, help="write every query's hits to FILE, one JSON line per query")
    args = parser.parse_args(argv)
    if args.necessity is not None:
        if not args.necessity.is_file():
            print(f"no necessity table at {args.necessity}", file=sys.stderr)
            return 1
        from autopatch_j.memory.index import use_necessity
        from autopatch_j.memory.text import necessity

        use_necessity(necessity.parse(args.necessity.read_text(encoding="utf-8")))
    if args.associations is not None:
        if not args.associations.is_file():
            print(f"no associations table at {args.associations}", file=sys.stderr)
            return 1
        from autopatch_j.memory.index import use_associations
        from autopatch_j.memory.text.associations import parse

        use_associations(parse(args.associations.read_text(encoding="utf-8")))
    try:
        if args.dump is None:
            report = run(args.part, misses=args.misses)
        else:
            with args.dump.open("w", encoding="utf-8") as dump:
                report = run(args.part, misses=args.misses, dump=dump)
    except sqlite3.Error as exc:
        print(f"the query eval could not use its store: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    for miss in report.get("misses", []):  # type: ignore[attr-defined]
        print(
            f"MISS {miss['class']:5} {miss['session']}: {miss['query']!r} → want {miss['target']!r}, got {miss['got']}"
        )
    print(
        f"{report['part']}: {report['sessions']} sessions, hit@5 {report['hit_at_5']} of {report['targeted']} "
        f"(same language {report['same_language']}, cross-language {report['cross_language']}); "
        f"nothing-queries empty {report['nothing_empty']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
