"""The clause split through the pipeline, out of fold: realistic figures with and without it.

    .venv/bin/python scripts/clause_split_eval.py --threshold 0.4
    .venv/bin/python scripts/clause_split_eval.py --threshold 0.4 --author c2 --author c3

The boundaries of `quality.clause_data` are split into `train_clauses.FOLDS` folds by author as
`scripts/train_clauses.py --report` splits them; each author's sessions are played through the real
pipeline (`quality.realistic_eval.run_session`) twice, by the offline extractor as shipped and by one
that cuts each preference or decision quoting one whole user sentence where the model of the fold
that left that author out reads two memories (each part a statement quoting its exact words). Prints
precision, recall, right / stored, contradictions, duplicates and the miss classes of
`scripts/realistic_misses.py`, both ways. Needs scikit-learn. Deterministic.
"""

from __future__ import annotations

import argparse
import itertools
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
from autopatch_j.quality.clause_data import clause_cuts, clause_features
from autopatch_j.quality.realistic import training_parts
from autopatch_j.quality.realistic_eval import SessionScore, figures, run_session, score_session

_TRAILING = "，,;；。.!！?？:： "


class SplittingExtractor(RulesExtractor):
    """The offline extractor with the clause split after its Stage 1."""

    def __init__(self, bias: float, weights: dict[str, float], threshold: float) -> None:
        super().__init__()
        self.bias, self.weights, self.threshold = bias, weights, threshold
        self.reader_model = default_reader_model()

    def extract(self, request: ExtractionRequest) -> ExtractionOutput:
        out = super().extract(request)
        split = [p for c in out.candidates for p in self.split(c)]
        return out.model_copy(update={"candidates": split[-MAX_CANDIDATES:]})

    def parts(self, sentence: str, kind: str) -> list[str]:
        cuts = clause_cuts(sentence)
        spans: list[tuple[int, int]] = []
        begin = cuts[0].start
        for left, right in itertools.pairwise(cuts):
            feats = clause_features(sentence, left, right, kind, self.subjects.model, self.reader_model, self.lexicon)
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
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
