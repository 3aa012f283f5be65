"""What a memory could be found by, measured before it is built: index-side keys replicated on a part.

For each session of `eval/realistic/<part>/*/*.json` the gold active memories are stored as the query
eval stores them (`scripts/query_eval.py`); each query is weighed by `memory.search.plan_in_tx`, and each
memory of the session's store is judged as the ranking judges a candidate — the floor (share and terms
held) and the learned qualifier (`memory/qualifier.py`) — once with its own index keys (`base`, which
gives the query eval's figures: `actual` is the search itself) and once per variant with extra keys:

- `subject_glosses`, `title_glosses`, `all_glosses`: the bilingual table's words for the keys of the
  memory's subject, subject and title, or every field (an English key's first two Chinese words, a
  Chinese key's English glosses);
- `subject_thesaurus`, `all_thesaurus`: the thesaurus members its subject and title, or every field,
  trigger (`equivalents.json`, broader concepts included);
- `source_turns`, `source_proposal`: the keys of the prose of the turns the memory's gold sources
  quote, and with them the assistant answer before each user source (the proposal the user
  confirmed) — the conversation's working vocabulary, which the memory's own words may not use;
- `pivot`: same-language words through the other language (an English key's first two Chinese
  words' other glosses, a Chinese key's glosses' other Chinese words);
- `across_all`: no extra keys, but the qualifier reads every match as one across scripts (its
  `across` feature set for all: what same-language questions would gain from the rule cross-language
  ones get);
- `value_kind`: the kind of value a question asks for ("how long", 多久 → a duration; "how many", 几个
  → a number; "version", 版本 → a version) as one more query term of `--value-weight` × the query's
  heaviest weight, held by a memory stating a value of that kind (`memory/values.py`);
- `name_alone`: no extra keys, but a memory holding one term of a question of several also answers
  when that term is a name — a Latin word `frequencies.txt` does not list (`nl80211`, `mgmtd`,
  `dmesg`) — that no other memory of the store holds, carrying at least `--name-share` of the
  question's weight, and the qualifier answers it as that term's one-term question;
- `floor_across`: no extra keys, but a match across scripts passes a floor of `--across-floor` of
  the question's weight instead of the qualifier's (the qualifier still decides).

Extra keys are not counted among the memory's indexed keys and never make a match cross scripts, as
keys stored apart from the memory's own words would not. A hit is a memory that passes (a session
holds at most ten, so the five places never cut one).

    python scripts/findable_by.py [--part dev] [--value-weight 0.5] [--name-share 0.3] [--across-floor 0.2]
        [--shift 0.0] [--json]

`--shift` adds to the qualifier's logit threshold for every variant (not `actual`, the search
itself): the base row at several shifts is the threshold's curve a variant is held against.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from query_eval import load_sessions, session_files, store_session

from autopatch_j.memory.index import _member_keys, text_keys
from autopatch_j.memory.qualifier import Qualifier, crosses, qualifier
from autopatch_j.memory.search import QueryPlan, plan_in_tx
from autopatch_j.memory.structure import parse
from autopatch_j.memory.text import fold, frequencies, has_cjk, tokens
from autopatch_j.memory.text.bilingual import chinese_of, english_of
from autopatch_j.memory.values import values

_POSTINGS = (
    "SELECT i.memory_id, t.term FROM memory_postings p JOIN memory_term_stats t ON t.id = p.term_id "
    "JOIN memory_items i ON i.id = p.item_id"
)
#: How a question asks for a value of a kind (after the fold), and the value kinds that answer it.
_ANY_VALUE = {"number", "duration", "size", "percent", "version"}
_ASKS = {
    "duration": (r"\bhow (long|soon|often)\b|\bhow many (days|hours|minutes|weeks|months)\b|多久|多长", {"duration"}),
    "version": (r"\bversion\b|版本", {"version"}),
    "number": (r"\bhow (many|much|big|large)\b|\b(max|min)(imum)?\b|\blimit\b|几|多少|最多|最少|上限", _ANY_VALUE),
}

Memory = dict[str, str]


def _glosses(keys: Iterable[str]) -> list[str]:
    return [w for k in keys for w in (english_of(k) if has_cjk(k) else chinese_of(k)[:2])]


def _thesaurus(text: str) -> list[str]:
    found = list(tokens(fold(text), folded=True))
    latin = [t.text for t in found if t.kind == "word" and len(t.text) >= 2]
    return _member_keys(latin, [t.text for t in found if t.kind == "cjk"])


def _prose(text: str) -> str:
    return parse(text).prose(keep_reports=True)


def _context(m: Memory, *, proposal: bool) -> list[str]:
    """The keys of the prose of the turns a memory's sources quote (the user's), and with `proposal`
    of the assistant answer before each (what the user confirmed)."""
    turns: Any = m["_turns"]
    sources: Any = m["_sources"]
    texts: list[str] = []
    for source in sources:
        n = int(source.get("turn", -1))
        if 0 <= n < len(turns):
            role = str(source.get("role") or "user")
            texts.append(_prose(turns[n].get(role, "")))
            if proposal and role == "user" and n > 0:
                texts.append(_prose(turns[n - 1].get("assistant", "")))
    return text_keys(" \n".join(texts))


def _pivots(keys: Iterable[str]) -> list[str]:
    """Same-language words through the other language: an English key's Chinese words' other English
    stems, a Chinese key's glosses' other Chinese words."""
    found: list[str] = []
    for key in keys:
        if has_cjk(key):
            found += [w for e in english_of(key) for w in chinese_of(e)]
        else:
            found += [w for c in chinese_of(key)[:2] for w in english_of(c)]
    return found


VARIANTS: dict[str, Callable[[Memory], list[str]]] = {
    "pivot": lambda m: _pivots(text_keys(f"{m['subject']} {m['title']} {m['content']}")),
    "source_turns": lambda m: _context(m, proposal=False),
    "source_proposal": lambda m: _context(m, proposal=True),
    "subject_glosses": lambda m: _glosses(text_keys(m["subject"])),
    "title_glosses": lambda m: _glosses(text_keys(f"{m['subject']} {m['title']}")),
    "all_glosses": lambda m: _glosses(text_keys(f"{m['subject']} {m['title']} {m['content']}")),
    "subject_thesaurus": lambda m: _thesaurus(f"{m['subject']} {m['title']}"),
    "all_thesaurus": lambda m: _thesaurus(f"{m['subject']} {m['title']} {m['content']}"),
}


def asked_kind(query: str) -> str | None:
    """The kind of value `query` asks for, if it asks for one."""
    folded = fold(query)
    return next((kind for kind, (pattern, _) in _ASKS.items() if re.search(pattern, folded)), None)


def passes(
    plan: QueryPlan,
    keys: set[str],
    rule: Qualifier,
    extra: frozenset[str] = frozenset(),
    *,
    title: str = "",
    across_all: bool = False,
    across_floor: float | None = None,
) -> bool:
    """Whether a memory of index keys `keys` (`extra` among them: not its own) and `title` passes the
    floor (`across_floor` of the query's weight for a match across scripts, when given) and the rule."""
    total = sum(plan.weights)
    share, held = 0.0, 0
    for n, _ in enumerate(plan.terms):
        if any(key in keys for key, _ in plan.alternatives[n]):
            share, held = share + plan.weights[n], held + 1
    across = across_all or crosses(query_cjk=any(has_cjk(term.key) for term in plan.terms), title=title)
    floor = across_floor * total if across and across_floor is not None else plan.min_share
    if not held or share < floor - 1e-9 or held < min(rule.min_terms, len(plan.terms)):
        return False
    own = len(keys - extra)
    return rule.answers(share=share / total, held=held, terms=len(plan.terms), keys=own, across=across)


def name_alone(plan: QueryPlan, own: dict[int, set[str]], mid: int, rule: Qualifier, title: str, least: float) -> bool:
    """Whether memory `mid` holds one term of a question of several, a name no other memory of the
    store holds, carrying at least `least` of its weight, that the rule answers as a one-term question."""
    held = [n for n, alternatives in enumerate(plan.alternatives) if any(key in own[mid] for key, _ in alternatives)]
    if len(plan.terms) < 2 or len(held) != 1:
        return False
    term, keys = plan.terms[held[0]], {key for key, _ in plan.alternatives[held[0]]}
    if has_cjk(term.word) or frequencies.zipf(term.word.lower()) is not None:
        return False
    if plan.weights[held[0]] < least * sum(plan.weights) or any(keys & own[o] for o in own if o != mid):
        return False
    across = crosses(query_cjk=any(has_cjk(t.key) for t in plan.terms), title=title)
    return rule.answers(share=1.0, held=1, terms=1, keys=len(own[mid]), across=across)


def _with_kind(plan: QueryPlan, kind: str, weight: float) -> QueryPlan:
    key = f"#{kind}"
    term = dataclasses.replace(plan.terms[0], key=key, word=key, alternatives=(), parts=())
    return dataclasses.replace(
        plan,
        terms=[*plan.terms, term],
        alternatives=[*plan.alternatives, [(key, 0)]],
        weights=[*plan.weights, weight * max(plan.weights)],
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Store:
    """A session's store as the variants see it: each memory's own keys, each variant's extra keys and
    the kinds of value each memory states."""

    own: dict[int, set[str]]
    extras: dict[str, dict[int, set[str]]]
    kinds: dict[int, set[str]]
    titles: dict[int, str]


def _store(conn: Any, memories: dict[int, dict[str, Any]]) -> Store:
    own: dict[int, set[str]] = {mid: set() for mid in memories}
    for mid, term in conn.execute(_POSTINGS):
        own[mid].add(term)
    fields: dict[int, Any] = {
        mid: {f: str(m.get(f) or "") for f in ("subject", "title", "content")}
        | {"_turns": m.get("_turns", []), "_sources": m.get("sources", [])}
        for mid, m in memories.items()
    }
    extras = {name: {mid: set(f(fields[mid])) - own[mid] for mid in memories} for name, f in VARIANTS.items()}
    kinds = {mid: {kind for kind, _ in values(f"{m['title']} {m['content']}")} for mid, m in memories.items()}
    return Store(own, extras, kinds, {mid: str(m.get("title") or "") for mid, m in memories.items()})


@dataclasses.dataclass(frozen=True, slots=True)
class Settings:
    """The variants' settings: the asked kind's weight, a name's least share, the floor across scripts."""

    value_weight: float = 0.5
    name_share: float = 0.3
    across_floor: float = 0.2


def _passing(
    plan: QueryPlan | None, query: str, store: Store, rule: Qualifier, settings: Settings
) -> dict[str, set[int]]:
    """The memories each variant lets through for `query` (`base`: their own keys)."""
    own, t = store.own, store.titles
    got = {"base": {mid for mid in own if plan and passes(plan, own[mid], rule, title=t[mid])}}
    for name, extras in store.extras.items():
        got[name] = {
            mid
            for mid in own
            if plan and passes(plan, own[mid] | extras[mid], rule, frozenset(extras[mid]), title=t[mid])
        }
    # The qualifier reading every match as one across scripts (its `across` feature set for all).
    got["across_all"] = {mid for mid in own if plan and passes(plan, own[mid], rule, across_all=True)}
    got["name_alone"] = got["base"] | {
        mid for mid in own if plan and name_alone(plan, own, mid, rule, t[mid], settings.name_share)
    }
    got["floor_across"] = {
        mid for mid in own if plan and passes(plan, own[mid], rule, title=t[mid], across_floor=settings.across_floor)
    }
    kind = asked_kind(query)
    got["value_kind"] = got["base"]
    if plan and kind:
        asked, key, answering = _with_kind(plan, kind, settings.value_weight), f"#{kind}", _ASKS[kind][1]
        holds = {mid: own[mid] | ({key} if store.kinds[mid] & answering else set()) for mid in own}
        got["value_kind"] = {mid for mid in own if passes(asked, holds[mid], rule, frozenset({key}), title=t[mid])}
    return got


def run(part: str, settings: Settings, shift: float = 0.0) -> dict[str, dict[str, Any]]:
    """Per variant: targets found, nothing-queries left empty, and the queries it gains or loses
    (`shift` moves the qualifier's threshold for every variant but `actual`, the search itself)."""
    rule = dataclasses.replace(qualifier(), threshold=qualifier().threshold + shift)
    names = ["actual", "base", *VARIANTS, "across_all", "name_alone", "floor_across", "value_kind"]
    tally: dict[str, dict[str, Any]] = {
        name: {"hit": 0, "targeted": 0, "empty": 0, "nothing": 0, "gained": [], "lost": []} for name in names
    }
    for session in load_sessions(session_files(part)):
        with store_session(session) as (manager, ids):
            thread = manager.active_thread().id
            memories = {
                ids[m["key"]]: m | {"_turns": session["turns"]} for m in session["memories"] if m["state"] == "active"
            }
            with manager.db.read("findable by") as conn:
                store = _store(conn, memories)
                for query in session["queries"]:
                    target = ids.get(query["target"]) if query["target"] else None
                    text = query["query"]
                    got = _passing(plan_in_tx(conn, query=text), text, store, rule, settings)
                    got["actual"] = {hit.memory_id for hit in manager.search(thread_id=thread, query=text)}
                    base_ok = not got["base"] if target is None else target in got["base"]
                    for name, hits in got.items():
                        row = tally[name]
                        ok = not hits if target is None else target in hits
                        row["nothing" if target is None else "targeted"] += 1
                        row["empty" if target is None else "hit"] += int(ok)
                        if ok != base_ok:
                            row["gained" if ok else "lost"].append(text)
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="dev", help="folder under eval/realistic (default: dev)")
    parser.add_argument("--value-weight", type=float, default=0.5, help="the asked kind's term, × the heaviest")
    parser.add_argument("--name-share", type=float, default=0.3, help="a name held alone: its least share")
    parser.add_argument("--across-floor", type=float, default=0.2, help="the floor of a match across scripts")
    parser.add_argument("--shift", type=float, default=0.0, help="added to the qualifier's threshold (a curve)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    tally = run(args.part, Settings(args.value_weight, args.name_share, args.across_floor), args.shift)
    if args.json:
        print(json.dumps(tally, ensure_ascii=False, indent=1))
        return 0
    for name, row in tally.items():
        hit, targeted, empty, nothing = (int(row[k]) for k in ("hit", "targeted", "empty", "nothing"))
        print(
            f"{name:18} hit@5 {hit}/{targeted} = {hit / max(targeted, 1):.3f}  "
            f"empty {empty}/{nothing} = {empty / max(nothing, 1):.3f}  "
            f"+{len(row['gained'])} -{len(row['lost'])}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
