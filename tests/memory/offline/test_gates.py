"""Gates: what the offline extractor must not store.

Each case in `cases/gates.json` is one user turn that yields no preference or decision: a temporary
scope ("this time", "for now", "today"), a question, a hypothetical or conditional, a description
of the code or of a present state, a report of something past, a complaint without an instruction,
a musing or hedge, an idiom that only looks like a rule, or a correction with nothing to correct.
The extractor and its validators run as in the pipeline (`RulesExtractor` + `validate_extraction`).
A gate refuses what the sentence reader admits unless the reader is sure of it (`sure_threshold`);
these utterances must form nothing either way.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.memory.offline.conftest import cases, check_utterance, params

GATES = cases("gates")


@pytest.mark.parametrize("case", params(GATES))
def test_the_utterance_yields_no_rule(case: dict[str, Any]) -> None:
    check_utterance(case)
