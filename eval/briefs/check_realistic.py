#!/usr/bin/env python3
"""Check realistic-session batch files: structure, exact quotes, gold consistency.

    python3 check.py FILE...
Prints `ok (N sessions)` per good file, else every problem; exit 1 on any problem.
"""

import json
import sys
from collections import Counter

KINDS = {"user_preference", "project_decision", "discussion_context"}
STATES = {"active", "superseded", "retired"}
WHY = {
    "pasted",
    "report",
    "one_off",
    "temporary",
    "deferred",
    "hypothetical",
    "question",
    "code_fact",
    "assistant_claim",
    "chit_chat",
}


def need(obj, keys, optional, where, p):
    if not isinstance(obj, dict):
        p.append(f"{where}: not an object")
        return False
    missing = [k for k in keys if k not in obj]
    extra = [k for k in obj if k not in keys and k not in optional]
    if missing:
        p.append(f"{where}: missing {missing}")
    if extra:
        p.append(f"{where}: unknown fields {extra}")
    return not missing


def check_session(s, p):
    w = s.get("id", "?")
    if not need(s, ["id", "language", "turns"], ["note", "memories", "not_memories", "queries"], w, p):
        return
    if s["language"] not in ("en", "zh", "mixed"):
        p.append(f"{w}: language must be en, zh or mixed")
    turns = s["turns"]
    if not isinstance(turns, list) or not turns:
        p.append(f"{w}: turns must be a non-empty list")
        return
    for i, t in enumerate(turns):
        if need(t, ["user", "assistant"], [], f"{w} turn {i}", p):
            if not isinstance(t["user"], str) or not t["user"]:
                p.append(f"{w} turn {i}: user text must be a non-empty string")
            if not isinstance(t["assistant"], str):
                p.append(f"{w} turn {i}: assistant text must be a string")

    def quote_ok(q, where):
        if not need(q, ["turn", "quote"], ["role", "why"], where, p):
            return
        role = q.get("role", "user")
        if role not in ("user", "assistant"):
            p.append(f"{where}: role must be user or assistant")
            return
        if not isinstance(q["turn"], int) or not 0 <= q["turn"] < len(turns):
            p.append(f"{where}: turn {q['turn']} out of range")
            return
        if not q["quote"] or q["quote"] not in turns[q["turn"]][role]:
            p.append(f"{where}: quote is not an exact substring of turn {q['turn']} {role}: {q['quote'][:60]!r}")

    mems = s.get("memories", [])
    keys = [m.get("key") for m in mems]
    if len(set(keys)) != len(keys):
        p.append(f"{w}: memory keys must be unique")
    active = Counter()
    for m in mems:
        mk = m.get("key", "?")
        if not need(
            m, ["key", "kind", "subject", "title", "content", "sources", "state"], ["superseded_by"], f"{w} {mk}", p
        ):
            continue
        if m["kind"] not in KINDS:
            p.append(f"{w} {mk}: kind must be one of {sorted(KINDS)}")
        if m["state"] not in STATES:
            p.append(f"{w} {mk}: state must be one of {sorted(STATES)}")
        for f in ("subject", "title", "content"):
            if not isinstance(m[f], str) or not m[f].strip():
                p.append(f"{w} {mk}: {f} must be a non-empty string")
        if not m["sources"]:
            p.append(f"{w} {mk}: needs at least one source")
        for j, src in enumerate(m["sources"]):
            if "why" in src:
                p.append(f"{w} {mk} source {j}: 'why' belongs to not_memories")
            quote_ok(src, f"{w} {mk} source {j}")
        if m["kind"] != "discussion_context" and not any(x.get("role", "user") == "user" for x in m["sources"]):
            p.append(f"{w} {mk}: a preference or decision needs a user source")
        sb = m.get("superseded_by")
        if m["state"] == "superseded" and (sb not in keys or sb == mk):
            p.append(f"{w} {mk}: superseded needs superseded_by naming another memory")
        if m["state"] != "superseded" and sb is not None:
            p.append(f"{w} {mk}: superseded_by only for state superseded")
        if m["state"] == "active":
            active[m["subject"]] += 1
    p.extend(f"{w}: {c} active memories on subject {sub!r}" for sub, c in active.items() if c > 1)
    for j, nm in enumerate(s.get("not_memories", [])):
        if isinstance(nm, dict) and nm.get("why") not in WHY:
            p.append(f"{w} not_memories {j}: why must be one of {sorted(WHY)}")
        if isinstance(nm, dict) and "why" not in nm:
            p.append(f"{w} not_memories {j}: missing why")
        quote_ok(nm, f"{w} not_memories {j}")
    live = {m.get("key") for m in mems if m.get("state") == "active"}
    for j, q in enumerate(s.get("queries", [])):
        if need(q, ["query", "target"], [], f"{w} query {j}", p):
            if not isinstance(q["query"], str) or not q["query"].strip():
                p.append(f"{w} query {j}: empty query")
            if q["target"] is not None and q["target"] not in live:
                p.append(f"{w} query {j}: targets {q['target']!r}, not an active memory")


def main(paths):
    bad = False
    for path in paths:
        p = []
        try:
            with open(path, encoding="utf-8") as handle:
                doc = json.load(handle)
        except (OSError, ValueError) as exc:
            print(f"{path}: cannot read: {exc}")
            bad = True
            continue
        if need(doc, ["author", "batch", "sessions"], [], path, p):
            if not isinstance(doc["batch"], int) or doc["batch"] < 0:
                p.append("batch must be a non-negative integer")
            if not isinstance(doc["sessions"], list) or not doc["sessions"]:
                p.append("sessions must be a non-empty list")
            else:
                ids = [s.get("id") for s in doc["sessions"]]
                if len(set(ids)) != len(ids):
                    p.append("session ids must be unique")
                for s in doc["sessions"]:
                    check_session(s, p)
        if p:
            bad = True
            print(f"{path}: {len(p)} problem(s)")
            for x in p:
                print("  " + x)
        else:
            print(f"{path}: ok ({len(doc['sessions'])} sessions)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
