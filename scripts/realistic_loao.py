"""Leave-one-author-out on the realistic dev part: the figure a fresh author would see.

    .venv/bin/python scripts/realistic_loao.py                 # every author of the manifest
    .venv/bin/python scripts/realistic_loao.py --author r4     # one author
    .venv/bin/python scripts/realistic_loao.py --json out.json
    .venv/bin/python scripts/realistic_loao.py --with-test     # the tuning test part's authors too
    .venv/bin/python scripts/realistic_loao.py --with-test --reader   # Stage 1 read by the sentence reader
    .venv/bin/python scripts/realistic_loao.py --cache /tmp/folds      # keep (and reuse) each fold's models

`--with-test` adds the authors of `eval/realistic/test/` (tuning material, outside the manifest):
each of them is held out in turn like a dev author.

For each author X: every learned model of the offline extractor is trained again without X's
sessions (the trainers of `scripts/train_speech_model.py`, `scripts/train_subjects.py`,
`scripts/train_revisions.py` and `scripts/train_reader.py`, the shipped thresholds kept), the
extractor reads X's sessions with those models, and X is scored as `autopatch-j eval --part
realistic` scores it. The shipped weights are never touched; the models live in memory for the run.
Needs scikit-learn (the `test` extra). Deterministic.

`--cache DIR` writes each fold's trained models to `DIR/<author>.json` and, when that file
exists, reads them from there instead of training: a before/after pair of a change that touches
neither the training data nor what the trainers read (a supersede rule, say) then trains once. The
cache is not checked against the data: use a fresh DIR after any other change. `--json` also writes
every held-out session's scoring notes (wrong, missed, stale, conflicts), the material of an error
count by class.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import train_reader
import train_revisions
import train_speech_model
import train_subjects

from autopatch_j.memory import lexicon as lexicon_module
from autopatch_j.memory import offline as offline_module
from autopatch_j.memory import reader as reader_module
from autopatch_j.memory import speech_model as speech_module
from autopatch_j.memory import supersede as supersede_module
from autopatch_j.memory.reader import ReaderModel
from autopatch_j.memory.revisions import RevisionModel
from autopatch_j.memory.speech_model import SpeechModel
from autopatch_j.memory.subjects import SubjectModel
from autopatch_j.quality.realistic import RealisticPart, find_checkout_part, load_realistic
from autopatch_j.quality.realistic_eval import evaluate_realistic, figures


def _use(speech: SpeechModel, subjects: SubjectModel, revisions: RevisionModel, reader: ReaderModel | None) -> None:
    """Make `speech`, `subjects`, `revisions` and `reader` the models every default lexicon and
    extractor of this process reads."""
    if reader is not None:
        offline_module.default_reader_model = lambda: reader  # type: ignore[assignment]
        reader_module.default_reader_model = lambda: reader  # type: ignore[assignment]
    lexicon_module.default_speech_model = lambda: speech  # type: ignore[assignment]
    lexicon_module.default_lexicon.cache_clear()
    speech_module.clear_scores()
    offline_module.default_subject_model = lambda: subjects  # type: ignore[assignment]
    supersede_module.default_revision_model = lambda: revisions  # type: ignore[assignment]


def _trained(author: str, *, dev_authors: list[str], cache: Path | None) -> dict[str, Any]:
    """The speech, subject, revision and reader models trained without `author` (read from `cache`
    when there)."""
    cached = cache / f"{author}.json" if cache is not None else None
    if cached is not None and cached.is_file():
        return dict(json.loads(cached.read_text(encoding="utf-8")))
    shipped = json.loads(Path(train_speech_model.DEFAULT_OUT).read_text(encoding="utf-8"))
    left_out = [author] if author in dev_authors else []
    speech = train_speech_model.train(
        without=[f"realistic/{a}" for a in left_out], threshold=float(shipped["threshold"])
    )
    shipped_subjects = json.loads(Path(train_subjects.DEFAULT_OUT).read_text(encoding="utf-8"))
    subjects = train_subjects.train(without=left_out, threshold=float(shipped_subjects["pair"]["threshold"]))
    shipped_revisions = json.loads(Path(train_revisions.DEFAULT_OUT).read_text(encoding="utf-8"))
    directory = train_subjects._part_dir()
    revisions = train_revisions.model_data(
        train_revisions.training_examples(directory, [author]),
        float(shipped_revisions["threshold"]),
        directory,
        [author],
    )
    reader = train_reader.train(without=[author]) if offline_module.READER_PRIMARY else None
    models = {"speech": speech, "subjects": subjects, "revisions": revisions, "reader": reader}
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(models), encoding="utf-8")
    return models


def fold(
    part: RealisticPart, author: str, *, dev_authors: list[str], cache: Path | None = None
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The figures of `author`'s sessions read with models trained without them, and each session's notes."""
    models = _trained(author, dev_authors=dev_authors, cache=cache)
    reader = ReaderModel.from_data(models["reader"]) if models["reader"] is not None else None
    _use(
        SpeechModel.from_data(models["speech"]),
        SubjectModel.from_data(models["subjects"]),
        RevisionModel.from_data(models["revisions"]),
        reader,
    )
    held = RealisticPart(
        source=part.source,
        sessions=tuple(s for s in part.sessions if part.authors[s.id] == author),
        authors={k: v for k, v in part.authors.items() if v == author},
    )
    report = evaluate_realistic(held)
    return figures(report.sessions), {s.id: list(s.notes) for s in report.sessions}


def _merged(dev: RealisticPart, test: RealisticPart) -> RealisticPart:
    return RealisticPart(
        source=dev.source, sessions=(*dev.sessions, *test.sessions), authors={**dev.authors, **test.authors}
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--author", action="append", default=[], help="only this author (repeatable)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--reader", action="store_true", help="read sentences with the trained reader")
    parser.add_argument("--with-test", action="store_true", help="also hold out each author of eval/realistic/test")
    parser.add_argument("--cache", type=Path, default=None, help="keep each fold's trained models here and reuse them")
    args = parser.parse_args(argv)
    if args.reader:
        offline_module.READER_PRIMARY = True
    directory = find_checkout_part(Path(__file__).resolve().parent)
    if directory is None:
        print("No realistic part found (run from a checkout).", file=sys.stderr)
        return 2
    part = load_realistic(directory)
    dev_authors = part.author_names
    if args.with_test and (directory / "test").is_dir():
        part = _merged(part, load_realistic(directory / "test"))
    authors = args.author or part.author_names
    unknown = [a for a in authors if a not in part.author_names]
    if unknown:
        print(f"Not an author of the part: {', '.join(unknown)}.", file=sys.stderr)
        return 2
    rows: dict[str, dict[str, Any]] = {}
    notes: dict[str, dict[str, list[str]]] = {}
    for author in authors:
        rows[author], notes[author] = fold(part, author, dev_authors=dev_authors, cache=args.cache)
        f = rows[author]
        print(
            f"{author:<6} P {f['precision']:.3f} ({f['right']}/{f['stored_active']})  "
            f"R {f['recall']:.3f} ({f['found']}/{f['gold_active']})  pasted {f['pasted']}  "
            f"contradictions {f['contradictions']}  stale {f['stale']}",
            flush=True,
        )
    right = sum(r["right"] for r in rows.values())
    stored = sum(r["stored_active"] for r in rows.values())
    found = sum(r["found"] for r in rows.values())
    gold = sum(r["gold_active"] for r in rows.values())
    total = {
        "precision": right / max(1, stored),
        "recall": found / max(1, gold),
        "mean_precision": sum(r["precision"] or 0 for r in rows.values()) / len(rows),
        "mean_recall": sum(r["recall"] or 0 for r in rows.values()) / len(rows),
        "pasted": sum(r["pasted"] for r in rows.values()),
        "contradictions": sum(r["contradictions"] for r in rows.values()),
        "stale": sum(r["stale"] for r in rows.values()),
    }
    print(
        f"pooled P {total['precision']:.3f} R {total['recall']:.3f}; mean P {total['mean_precision']:.3f} "
        f"R {total['mean_recall']:.3f}; pasted {total['pasted']}; contradictions {total['contradictions']}; "
        f"stale {total['stale']}"
    )
    if args.json is not None:
        out = {"authors": rows, "total": total, "notes": notes}
        args.json.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
