"""The clause split through the pipeline, out of fold: realistic figures with and without it.

    .venv/bin/python scripts/clause_split_eval.py --threshold 0.4
    .venv/bin/python scripts/clause_split_eval.py --threshold 0.4 --author c2 --author c3
    .venv/bin/python scripts/clause_split_eval.py --threshold 0.7 --model /tmp/c.json --pauses --corpus DIR

The boundaries of `quality.clause_data` are split into `train_clauses.FOLDS` folds by author as
`scripts/train_clauses.py --report` splits them; each author's sessions are played through the real
pipeline (`quality.realistic_eval.run_session`) twice, by the offline extractor as shipped and by one
that cuts each preference or decision quoting one whole user sentence where the model of the fold
that left that author out reads two memories (each part a statement quoting its exact words). Prints
precision, recall, right / stored, contradictions, duplicates and the miss classes of
`scripts/realistic_misses.py`, both ways. Needs scikit-learn. Deterministic.

With `--model` (a clause model written by `scripts/train_clauses.py --out`, say one trained without the
authors of `--corpus`) the sessions of the realistic folder `--corpus` are played instead, each way, by
that one model; `--pauses` cuts at the pauses of dictation too (`quality.clause_data.clause_cuts`, the
model trained with `--pauses`). Prints the figures of each author, then of all, both ways.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

import realistic_misses
import train_clauses

from autopatch_j.memory.batches import ExtractionRequest
from autopatch_j.memory.contracts import CandidateOut, ExtractionOutput, SourceOut
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.reader import STATEMENTS, default_reader_model
from autopatch_j.memory.validation import MAX_CANDIDATES, RETIREMENT
from autopatch_j.quality.clause_data import Clause, clause_cuts, clause_features, local_units
from autopatch_j.quality.realistic import load_realistic, training_parts
from autopatch_j.quality.realistic_eval import SessionScore, figures, run_session, score_session

_TRAILING = "，,;；。.!！?？:： "


class SplittingExtractor(RulesExtractor):
    """The offline extractor with the clause split after its Stage 1."""

    def __init__(self, bias: float, weights: dict[str, float], threshold: float, *, pauses: bool = False) -> None:
        super().__init__()
        self.bias, self.weights, self.threshold = bias, weights, threshold
        self.pauses = pauses
        self.reader_model = default_reader_model()

    def extract(self, request: ExtractionRequest) -> ExtractionOutput:
        out = super().extract(request)
        split = [p for c in out.candidates for p in self.split(c)]
        return out.model_copy(update={"candidates": split[-MAX_CANDIDATES:]})

    def parts(self, sentence: str, kind: str) -> list[str]:
        cuts = clause_cuts(sentence, pauses=self.pauses)
        spans: list[tuple[int, int]] = []
        begin = cuts[0].start
        for n, (left, right) in enumerate(itertools.pairwise(cuts)):
            a, b, local = left, right, None
            if self.pauses:  # as `quality.clause_data.session_boundaries` reads a boundary with pauses
                a, b = Clause(0, left.end, left.mark), Clause(right.start, len(sentence), "")
                local = local_units(sentence, cuts, n)
            model, reader, lexicon = self.subjects.model, self.reader_model, self.lexicon
            feats = clause_features(sentence, a, b, kind, model, reader, lexicon, local)
            if train_clauses.probability(self.bias, self.weights, feats) >= self.threshold:
                spans.append((begin, left.end))
                begin = right.start
        spans.append((begin, cuts[-1].end))
        return [sentence[s:e].rstrip(_TRAILING) if e < len(sentence) else sentence[s:e] for s, e in spans]

    def split(self, candidate: CandidateOut) -> list[CandidateOut]:
        source = candidate.sources[0]
        if (
            candidate.kind not in STATEMENTS
            or candidate.subject == RETIREMENT
            or len(candidate.sources) != 1
            or source.role != "user"
            or candidate.content != source.quote
        ):
            return [candidate]
        pieces = [p for p in self.parts(source.quote, candidate.kind) if p]
        if len(pieces) < 2:
            return [candidate]
        out = []
        for piece in pieces:
            subject = self.lexicon.subject_of(piece)
            update = {
                "content": piece,
                "subject": subject.key if subject else "",
                "sources": [SourceOut(turn_id=source.turn_id, role="user", quote=piece)],
            }
            out.append(candidate.model_copy(update=update))
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threshold", type=float, required=True, help="split a boundary from this probability")
    parser.add_argument("--author", action="append", default=[], help="only these authors (default: all)")
    parser.add_argument("--model", type=Path, help="one clause model for every session of --corpus")
    parser.add_argument("--corpus", type=Path, help="with --model: a realistic folder to play")
    parser.add_argument("--pauses", action="store_true", help="cut at the pauses of dictation too")
    args = parser.parse_args(argv)
    if args.model is not None:
        if args.corpus is None:
            parser.error("--model needs --corpus")
        return one_model(args.model, args.corpus, args.threshold, pauses=args.pauses)
    directory = train_clauses.part_dir()
    data = train_clauses.labelled(directory, [])
    fold_of = train_clauses.folds_of(data)
    models = {}
    for fold in range(train_clauses.FOLDS):
        models[fold] = train_clauses.fit([b for b in data if fold_of[b.author] != fold])
    scratch = Path(tempfile.mkdtemp(prefix="clause-split-"))
    scores: dict[str, list[SessionScore]] = {"before": [], "after": []}
    classes: dict[str, Counter[str]] = {"before": Counter(), "after": Counter()}
    try:
        n = 0
        for part in training_parts(directory).values():
            for session in part.sessions:
                author = part.authors[session.id]
                if (args.author and author not in args.author) or author not in fold_of:
                    continue
                bias, weights = models[fold_of[author]]
                ways = {"before": RulesExtractor(), "after": SplittingExtractor(bias, weights, args.threshold)}
                for way, extractor in ways.items():
                    n += 1
                    stored, hits = run_session(session, scratch / f"{n:05d}", extractor)
                    scores[way].append(score_session(session, author, stored, hits))
                    missed, wrong = realistic_misses.misses(session, author, stored)
                    classes[way].update(m.cls for m in missed)
                    classes[way]["wrong"] += len(wrong)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for way in ("before", "after"):
        t = figures(scores[way])
        counts = ", ".join(f"{k} {classes[way][k]}" for k in (*realistic_misses.CLASSES, "wrong"))
        print(
            f"{way}: precision {t['precision']:.4f}, recall {t['recall']:.4f}, right {t['right']} of stored"
            f" {t['stored_active']}, contradictions {t['contradictions']}, duplicates {t['duplicates']}; {counts}"
        )
    return 0


def one_model(model_file: Path, corpus: Path, threshold: float, *, pauses: bool) -> int:
    """Play `corpus` both ways with the clause model in `model_file`; print each author's figures and
    the total, both ways."""
    model = json.loads(model_file.read_text(encoding="utf-8"))
    part = load_realistic(corpus)
    scratch = Path(tempfile.mkdtemp(prefix="clause-split-"))
    try:
        for way in ("before", "after"):
            by_author: dict[str, list[SessionScore]] = {}
            classes: Counter[str] = Counter()
            for n, session in enumerate(part.sessions):
                author = part.authors[session.id]
                extractor = (
                    RulesExtractor()
                    if way == "before"
                    else SplittingExtractor(model["bias"], model["weights"], threshold, pauses=pauses)
                )
                stored, hits = run_session(session, scratch / f"{way}{n:05d}", extractor)
                by_author.setdefault(author, []).append(score_session(session, author, stored, hits))
                missed, wrong = realistic_misses.misses(session, author, stored)
                classes.update(m.cls for m in missed)
                classes["wrong"] += len(wrong)
            rows = {**by_author, "all": [s for scores in by_author.values() for s in scores]}
            for name, scores in rows.items():
                t = figures(scores)
                print(
                    f"{way} {name}: precision {t['precision']:.4f}, recall {t['recall']:.4f}, right {t['right']}"
                    f" of stored {t['stored_active']}, contradictions {t['contradictions']},"
                    f" duplicates {t['duplicates']}"
                )
            print(f"{way} misses: " + ", ".join(f"{k} {classes[k]}" for k in (*realistic_misses.CLASSES, "wrong")))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
