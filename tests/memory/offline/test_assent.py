"""Assent: a user's reply confirming (or not) what the assistant proposed.

`cases/assent.json`: one reply after one assistant proposal, through the offline extractor and its
validators. A bare or echoing assent stores the sentence that names what is chosen (not the line
introducing code after it, the rationale, or a question framing it), with the kind of what it is
about (how the assistant answers: a preference; the project: a decision); an assent pointing at one
of several options stores that option; an assent that qualifies, defers, doubts, declines or asks
confirms nothing, and so do an assent to an explanation that proposes nothing and a bare assent to
an offer of a one-off action.

`cases/assent_sessions.json`: whole sessions through admission, the pipeline and drain, where the
proposal and the assent are admitted together (an offer pointed back to by a question, a yes/no
offer answered with thanks, "yes, settle it").
"""

from __future__ import annotations

from typing import Any

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.offline.conftest import cases, check_session, check_utterance, params

REPLIES = cases("assent")
SESSIONS = cases("assent_sessions")


@pytest.mark.parametrize("case", params(REPLIES))
def test_a_reply_to_a_proposal(case: dict[str, Any]) -> None:
    check_utterance(case)


@pytest.mark.parametrize("case", params(SESSIONS))
def test_a_confirmed_proposal_in_a_session(manager: MemoryManager, case: dict[str, Any]) -> None:
    check_session(manager, case)
