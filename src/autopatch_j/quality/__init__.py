"""Quality evidence for Memory (M-80 … M-83): the zh/en corpus loader (the corpora live in the repository's
`eval/corpus/`), the evaluation and its invariants, fault harnesses.

The public API the CLI uses: the corpus and its parts, the evaluation of a corpus (`evaluate_corpus`,
`quality/evaluate.py`), the realistic sessions and their evaluation. Each name is imported on first
use, so importing the package loads none of its modules.
"""

from __future__ import annotations

from autopatch_j import lazy_api

TYPE_CHECKING = False  # typing stays unloaded (cold start); mypy knows the name

if TYPE_CHECKING:
    from autopatch_j.quality.corpus import (
        DEV_FILE,
        NOT_FOUND,
        PART_FILES,
        PARTS,
        Corpus,
        CorpusFolder,
        find_corpus_dir,
        load_corpus,
        stratified_sample,
    )
    from autopatch_j.quality.evaluate import DEFAULT_RETRY_ROUNDS, MODES
    from autopatch_j.quality.evaluate import evaluate as evaluate_corpus
    from autopatch_j.quality.parts import load_part
    from autopatch_j.quality.realistic import find_checkout_part, load_realistic
    from autopatch_j.quality.realistic_eval import SessionScore, evaluate_realistic, sample_sessions

_EXPORTS = {
    "DEV_FILE": "corpus",
    "NOT_FOUND": "corpus",
    "find_corpus_dir": "corpus",
    "PART_FILES": "corpus",
    "PARTS": "corpus",
    "Corpus": "corpus",
    "CorpusFolder": "corpus",
    "load_corpus": "corpus",
    "stratified_sample": "corpus",
    "DEFAULT_RETRY_ROUNDS": "evaluate",
    "MODES": "evaluate",
    "evaluate_corpus": "evaluate:evaluate",
    "load_part": "parts",
    "find_checkout_part": "realistic",
    "load_realistic": "realistic",
    "SessionScore": "realistic_eval",
    "evaluate_realistic": "realistic_eval",
    "sample_sessions": "realistic_eval",
}
__all__ = [
    "DEFAULT_RETRY_ROUNDS",
    "DEV_FILE",
    "MODES",
    "NOT_FOUND",
    "PARTS",
    "PART_FILES",
    "Corpus",
    "CorpusFolder",
    "SessionScore",
    "evaluate_corpus",
    "evaluate_realistic",
    "find_checkout_part",
    "find_corpus_dir",
    "load_corpus",
    "load_part",
    "load_realistic",
    "sample_sessions",
    "stratified_sample",
]
__getattr__ = lazy_api(__name__, _EXPORTS)
