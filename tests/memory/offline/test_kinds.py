"""Kinds: preference, decision or discussion context, and how many statements a message holds.

`cases/kinds.json`: one user turn through the offline extractor and its validators. A rule on how
the assistant answers or works for the user is a `user_preference`; a rule on the project's things
(its code, tools, process), addressed to no one or decided by the team, is a `project_decision`;
weighing options is `discussion_context`. A sentence that only ratifies, extends or firms up the one
before joins it; clauses of one statement form one memory, while two rules in one message (a
decision and a preference side by side) form one memory each, each of its own kind. Two cases are
known misses of the speech model (strict `xfail`).

`cases/kinds_sessions.json`: the same through admission, the pipeline and drain.
"""

from __future__ import annotations

from typing import Any

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.offline.conftest import cases, check_session, check_utterance, params

UTTERANCES = cases("kinds")
SESSIONS = cases("kinds_sessions")


@pytest.mark.parametrize("case", params(UTTERANCES))
def test_the_utterance_yields_memories_of_these_kinds(case: dict[str, Any]) -> None:
    check_utterance(case)


@pytest.mark.parametrize("case", params(SESSIONS))
def test_the_session_leaves_memories_of_these_kinds(manager: MemoryManager, case: dict[str, Any]) -> None:
    check_session(manager, case)
