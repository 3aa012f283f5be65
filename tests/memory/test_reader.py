"""The sentence reader: its features, its shipped weights, and what Stage 1 stores when it reads."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from autopatch_j.memory.drain import drain
from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.reader import (
    ReaderModel,
    Reading,
    TurnView,
    admits,
    default_reader_model,
    sentence_features,
    turn_features,
)
from autopatch_j.quality.reader_data import reader_fix_examples
from tests.memory.pipeline_support import admit, pipeline_for
from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]

PASTE_AND_TWO_RULES = """tests blew up again after the bump, trace below:

Traceback (most recent call last):
  File "app/db.py", line 42, in connect
    pool = create_pool(dsn)
ValueError: invalid dsn

All database access goes through the repository layer, no raw SQL in handlers. \
Also keep your answers short, I read them on my phone."""


def _trainer() -> ModuleType:
    return load_script("scripts/train_reader.py")


def test_pasted_material_and_its_introduction_are_never_read() -> None:
    sentences = [s for s, _ in turn_features(PASTE_AND_TWO_RULES, "", default_lexicon())]
    assert sentences == [
        "All database access goes through the repository layer, no raw SQL in handlers.",
        "Also keep your answers short, I read them on my phone.",
    ]


def test_features_hold_the_turn_structure_and_the_lexicon_word_classes() -> None:
    lexicon = default_lexicon()
    _, (_, feats) = turn_features(PASTE_AND_TWO_RULES, "We could pin the pool size.", lexicon)
    assert {"x:paste_in_turn", "x:after_paste", "x:later", "x:last", "x:several", "x:proposed"} <= set(feats)
    assert "x:before_paste" not in feats and "w:phone" in feats
    view = TurnView.of("For this PR only, skip the type hints?", proposed=False)
    alone = sentence_features("For this PR only, skip the type hints?", view=view, index=0, count=1, lexicon=lexicon)
    assert {"x:first", "x:only", "x:question_mark", "l:temporary", "l:question"} <= set(alone)
    assert "x:paste_in_turn" not in alone


def test_the_model_collapses_its_fine_labels_to_five_readings() -> None:
    model = ReaderModel(
        classes=("one_off", "question", "user_preference", "retirement"),
        bias=(0.0, 0.0, 0.0, -5.0),
        weights={"w:short": (2, 3000), "p:?": (0, 2000, 1, 2000), "w:forget": (3, 9000)},
        trained_on={},
        scale=0.001,
        retirement_threshold=0.5,
    )
    assert model.read({"w:short": 1.0}) == "user_preference"
    p = model.probabilities({"p:?": 1.0})
    assert model.read({"p:?": 1.0}) == "none" and p["none"] == pytest.approx(1 - p["user_preference"] - p["retirement"])
    assert set(p) == {"user_preference", "project_decision", "discussion_context", "retirement", "none"}
    assert model.read({"w:forget": 1.0}) == "retirement"


def test_a_statement_read_surely_is_not_overruled_by_the_hard_gates() -> None:
    """Below `sure_threshold` a gate's word (here "today", read as a temporary scope) refuses the
    statement; at or above it the reader's reading stands (the word classes are among its features)."""
    lexicon = default_lexicon()
    sentence = "We agreed today: every new service exposes /healthz."
    assert not lexicon.passes_gates(sentence)
    model = ReaderModel(
        classes=("one_off", "project_decision"),
        bias=(0.0, 0.0),
        weights={"w:sure": (1, 9000), "w:likely": (1, 1000)},
        trained_on={},
        scale=0.001,
        threshold=0.4,
        sure_threshold=0.9,
    )
    sure, likely = model.reading({"w:sure": 1.0}), model.reading({"w:likely": 1.0})
    assert sure == Reading("project_decision", sure=True) and likely == Reading("project_decision", sure=False)
    assert admits(lexicon, sentence, sentence, sure) and not admits(lexicon, sentence, sentence, likely)
    assert model.read({"w:sure": 1.0}) == model.read({"w:likely": 1.0}) == "project_decision"


def test_the_shipped_reader_reads_a_rule_taken_back_as_a_retirement() -> None:
    """A sentence taking a standing rule back with no new value is a retirement; a one-off removal in
    code and a revision naming its new value are not (sentences of our own, in no training file)."""
    lexicon, model = default_lexicon(), default_reader_model()

    def read(text: str) -> str:
        ((_, feats),) = turn_features(text, "OK.", lexicon)
        return model.read(feats)

    assert read("ok, forget the conventional-commits thing, nobody follows it") == "retirement"
    assert read("delete the stale fixtures in tests/data for me") != "retirement"
    assert read("forget the yarn idea, npm again") != "retirement"


def test_a_model_of_another_format_or_shape_is_refused() -> None:
    with pytest.raises(MemoryEngineError, match="format"):
        ReaderModel.from_data({"format": 1, "classes": [], "bias": [], "weights": {}, "trained_on": {}})
    shape = {"format": 2, "classes": ["none", "x"], "bias": [0, 0], "trained_on": {}, "scale": 0.001}
    bad_rows = ({"w:a": [0]}, {"w:a": [2, 5]})  # not (class, weight) pairs; a class that does not exist
    for weights in bad_rows:
        with pytest.raises(MemoryEngineError, match="do not match"):
            ReaderModel.from_data({**shape, "weights": weights})


def test_the_shipped_weights_are_sparse_integer_pairs() -> None:
    """Only weights that matter ship, as (class index, weight in units of `scale`) pairs: the model
    loads in a fraction of the time a dense row of floats per feature takes."""
    model = default_reader_model()
    rows = list(model.weights.values())
    assert rows and all(len(row) % 2 == 0 and all(isinstance(v, int) for v in row) for row in rows)
    assert all(abs(w) * model.scale >= 0.02 for row in rows for w in row[1::2])
    assert sum(len(row) for row in rows) // 2 < 0.5 * len(rows) * len(model.classes)


def test_two_statements_beside_a_paste_become_two_memories_of_their_own_kinds(manager: MemoryManager) -> None:
    admit(manager, [("can you look at the failing job?", "Sure, send me the log."), (PASTE_AND_TWO_RULES, "Got it.")])
    drain(pipeline_for(manager, RulesExtractor(read_with_model=True)))
    stored = sorted((i.kind.value, i.content) for i in manager.list_items())
    assert stored == [
        ("project_decision", "All database access goes through the repository layer, no raw SQL in handlers."),
        # the content leaves the opening filler out; the source keeps the exact words
        ("user_preference", "keep your answers short, I read them on my phone."),
    ]


def test_the_shipped_reader_names_the_files_it_was_trained_on() -> None:
    """The model's data digests are those of the files `scripts/train_reader.py` reads today; that
    the script reproduces the weights is `scripts/check_refits.py`'s check."""
    pytest.importorskip("sklearn")
    trainer = _trainer()
    assert default_reader_model().trained_on == trainer.trained_on(trainer._part_dir(), [])


def test_a_sentence_is_read_with_its_neighbours_word_classes_and_what_the_answer_already_said() -> None:
    """Besides its own words a sentence carries the word classes of the sentences just before and
    after it in the turn, and how much of its content the assistant's answer before it said; a turn
    after no answer reads like one after an unrelated answer (no echo feature at all)."""
    lexicon = default_lexicon()
    (first, f1), (second, f2) = turn_features(
        "ok pnpm it is. is the lockfile committed?", "I suggest pnpm workspaces for the monorepo.", lexicon
    )
    assert (first, second) == ("ok pnpm it is.", "is the lockfile committed?")
    assert f1["x:echo_most"] == 1.0 and f1["next_l:question"] == 1.0 and not any(k.startswith("prev_") for k in f1)
    assert f2["prev_l:assent"] == 1.0 and not any(k.startswith("next_") for k in f2)
    assert not any(k.startswith("x:echo_") for k in f2)  # nothing of it was in the answer
    ((_, alone),) = turn_features("Use pnpm everywhere.", "", lexicon)
    assert not any(k.startswith(("x:echo_", "prev_", "next_")) for k in alone)


def test_a_sentence_in_the_interrogative_form_without_its_mark_carries_that_form() -> None:
    """A question typed without its mark ("用 A 还是用 B", "are we ...") is read as a feature of its
    own, so the reader can weigh it even where it reads the sentence as a statement surely."""
    lexicon = default_lexicon()
    read = dict(turn_features("发布用蓝绿还是用滚动。are we still on node 18. Use pnpm everywhere.", "", lexicon))
    assert read["发布用蓝绿还是用滚动。"]["x:asks"] == 1.0
    assert read["are we still on node 18."]["x:asks"] == 1.0
    assert "x:asks" not in read["Use pnpm everywhere."]


def test_a_labelled_fix_given_its_turn_is_read_beside_its_neighbours() -> None:
    """A fix of `reader_fixes.json` with `turn` is that turn's sentence, with its place and its
    neighbours' word classes (the context a one-off beside a rule is said in); without `turn` it is
    read alone; a `turn` that does not hold the sentence is refused."""
    lexicon = default_lexicon()
    turn = "from now on every table gets a created_at column. and mail Ana a summary in french"
    (in_turn,) = reader_fix_examples(
        [{"text": "and mail Ana a summary in french", "label": "one_off", "turn": turn}], lexicon
    )
    assert in_turn.label == "one_off"
    assert {"x:later", "x:last", "x:several"} <= set(in_turn.features)
    assert any(k.startswith("prev_l:") for k in in_turn.features)
    (alone,) = reader_fix_examples([{"text": "and mail Ana a summary in french", "label": "one_off"}], lexicon)
    assert {"x:first", "x:only"} <= set(alone.features) and not any(k.startswith("prev_") for k in alone.features)
    with pytest.raises(ValueError, match="not a prose sentence"):
        reader_fix_examples([{"text": "mail Ana", "label": "one_off", "turn": turn}], lexicon)
