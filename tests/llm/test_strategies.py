"""Request strategies per purpose (M-70), by table."""

from __future__ import annotations

import pytest

from autopatch_j.llm.provider import REQUEST_TIMEOUT_S, Purpose, RequestStrategy, strategy_for

EXPECTED = {
    #                        stream reasoning temp  max_out timeout json  deadline (issue 17)
    Purpose.MAIN: RequestStrategy(True, True, None, 4096, 60.0, False, 300.0),
    Purpose.CLASSIFIER: RequestStrategy(False, False, 0.0, 200, 60.0, True, 120.0),
    Purpose.EXTRACTION: RequestStrategy(False, False, 0.0, 1800, 60.0, True, 120.0),
    Purpose.CONSOLIDATION: RequestStrategy(False, False, 0.0, 2200, 60.0, True, 120.0),
    Purpose.TASK: RequestStrategy(False, True, None, None, 60.0, False, None),  # the cloud llm executor (C-8)
}


@pytest.mark.parametrize("purpose", list(Purpose))
def test_strategy_table(purpose):
    assert strategy_for(purpose) == EXPECTED[purpose]


def test_every_purpose_has_a_strategy():
    assert set(EXPECTED) == set(Purpose)


def test_short_calls_never_stream_or_reason():
    for purpose in (Purpose.CLASSIFIER, Purpose.EXTRACTION, Purpose.CONSOLIDATION):
        strategy = strategy_for(purpose)
        assert not strategy.stream and not strategy.reasoning and strategy.temperature == 0


def test_timeout_is_60_seconds():
    assert REQUEST_TIMEOUT_S == 60.0
