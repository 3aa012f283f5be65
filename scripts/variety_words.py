"""Measure the question words and fillers of a written variety (`fillers.json`, `varieties`) on the
realistic sessions' questions and memories.

A variety's word belongs in the table when the questions use it to ask and the memories do not state
it: for each word the report gives the questions whose query tokens hold it and the memories whose
indexed tokens (title and content, as `index.item_weights` reads them) hold it. A word held by
memories is a term some memory is found by, and is no filler.

Beside the table it lists the candidates: the other Chinese tokens of the questions written in the
variety (those holding one of its words) that no memory holds, with how many questions hold each —
what an author of the variety asks with that the table does not list yet.

    python scripts/variety_words.py [--part dev --part test --part measured ...] [--variety yue] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from query_eval import load_sessions, session_files

from autopatch_j.memory.text import fold, tokens
from autopatch_j.memory.text.languages import fillers, question_words


def _query_tokens(text: str) -> list[str]:
    folded = fold(text)
    return [t.text for t in tokens(folded, folded=True, search_mode=False, question_words=question_words())]


def _memory_tokens(text: str) -> set[str]:
    return {t.text for t in tokens(fold(text), folded=True)}


def measure(parts: list[str], variety: str) -> dict[str, object]:
    raw = json.loads(resources.files("autopatch_j.memory.text").joinpath("fillers.json").read_text(encoding="utf-8"))
    table = raw["languages"]["zh"]["varieties"][variety]
    words = {fold(w): role for role in ("question_words", "fillers") for w in table[role]}
    asked: Counter[str] = Counter()
    held: Counter[str] = Counter()
    candidates: Counter[str] = Counter()
    memory_tokens: set[str] = set()
    questions = 0
    for part in parts:
        for session in load_sessions(session_files(part)):
            for memory in session.get("memories", []):
                found = _memory_tokens(f"{memory.get('title', '')} {memory.get('content', '')}")
                memory_tokens |= found
                held.update(w for w in words if w in found)
            for query in session.get("queries", []):
                questions += 1
                found_q = _query_tokens(query["query"])
                asked.update(w for w in dict.fromkeys(found_q) if w in words)
                if any(w in words for w in found_q):
                    candidates.update(
                        w for w in dict.fromkeys(found_q) if len(w) >= 2 and w not in fillers() and w not in words
                    )
    rows = [{"word": w, "role": words[w], "questions": asked[w], "memories": held[w]} for w in words]
    extra = [{"word": w, "questions": n} for w, n in candidates.most_common() if w not in memory_tokens]
    return {"parts": parts, "variety": variety, "questions": questions, "table": rows, "candidates": extra}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", action="append", help="folder under eval/realistic (default: dev, test, measured)")
    parser.add_argument("--variety", default="yue")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = measure(args.part or ["dev", "test", "measured"], args.variety)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
        return
    print(f"{report['questions']} questions of {', '.join(report['parts'])}")  # type: ignore[arg-type]
    for row in report["table"]:  # type: ignore[attr-defined]
        print(f"{row['word']}\t{row['role']}\tquestions {row['questions']}\tmemories {row['memories']}")
    print("candidates (in the variety's questions, in no memory):")
    for row in report["candidates"]:  # type: ignore[attr-defined]
        print(f"  {row['word']}\t{row['questions']}")


if __name__ == "__main__":
    main()
