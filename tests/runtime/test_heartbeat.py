"""`Heartbeat`: renewals on a schedule until stopped, a lost lease, or a halt; transient errors retried."""

from __future__ import annotations

import threading

import pytest

from autopatch_j.runtime import Heartbeat

WAIT = 5.0  # generous bound on how long a beat may take on a loaded machine


class Renewals:
    """A `renew` callable that counts its calls, answers from a script and signals each call."""

    def __init__(self, *answers: bool | Exception) -> None:
        self.answers = list(answers)
        self.calls = 0
        self.called = threading.Event()
        self.errors: list[Exception] = []

    def __call__(self) -> bool:
        self.calls += 1
        self.called.set()
        answer = self.answers.pop(0) if self.answers else True
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_it_renews_until_stopped() -> None:
    renew = Renewals()
    with Heartbeat(renew, interval=0.01, name="t") as beat:
        for _ in range(3):
            assert renew.called.wait(WAIT)
            renew.called.clear()
    calls = renew.calls
    assert calls >= 3 and not beat.lost and not beat.halted
    assert not renew.called.wait(0.05) and renew.calls == calls  # stopped means stopped


def test_a_lost_lease_ends_the_renewals_and_says_so() -> None:
    renew = Renewals(True, False)
    lost = threading.Event()
    beat = Heartbeat(renew, interval=0.01, name="t", on_lost=lost.set)
    beat.start()
    assert lost.wait(WAIT)
    beat.stop()
    assert beat.lost and renew.calls == 2


def test_a_transient_error_is_reported_and_retried_at_the_next_beat() -> None:
    renew = Renewals(OSError("busy"), True, False)
    errors: list[Exception] = []
    lost = threading.Event()
    with Heartbeat(renew, interval=0.01, name="t", transient=(OSError,), on_error=errors.append, on_lost=lost.set):
        assert lost.wait(WAIT)
    assert [str(e) for e in errors] == ["busy"] and renew.calls == 3


def test_a_halt_is_noticed_between_beats() -> None:
    stop = threading.Event()
    halted = threading.Event()
    renew = Renewals()
    beat = Heartbeat(renew, interval=3600.0, name="t", halt_when=stop.is_set, on_halt=halted.set, wake=0.01)
    with beat:
        stop.set()
        assert halted.wait(WAIT)
    assert beat.halted and renew.calls == 0  # an hour's interval: it never came to a renewal


def test_the_interval_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Heartbeat(Renewals(), interval=0, name="t")
