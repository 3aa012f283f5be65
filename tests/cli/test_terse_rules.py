"""A user's own terse rule with no time or decision marker, through a real `autopatch-j` process:
`memory ingest` of the session, `memory drain`, then `memory list --json` and `memory show --json`.

Cases in `cases/terse_rules.json`: a setting bound to a value said alone ("10 min expiry on the
price cache."), an identifier with its value, a terse convention, a terse rule on the answers, and
their Chinese counterparts store one memory quoting the rule; the guards — a one-off rename, the
same setting asked as a question, a hypothetical, a report of what happened, a report of an API's
limits with numbers, a bare "ja" after an answer that proposed nothing, a line introducing a pasted
traceback — store nothing.
`cases/answered.json` reads a terse line after the assistant's answer: a value or a choice that
settles what the answer asked or listed stores one memory quoting it; the same line out of the blue
(nothing said before it) and a one-off request answering the question store nothing.
`cases/milestones.json` reads a decision in shorthand: settings with their values kept until a
milestone ("量产前先这样", "第一版先这样", "until launch, that's the setting for now") and a rule
that something happens only after an event ("要等 … 之后再调") store one memory quoting it (those
the reader still reads too low are strict known misses); the guards — closing the day's work
("今天先这样"), a switch for this time only, even when a milestone follows ("这次先 … 上线前再关"), a
decision put off ("等芯片定了再说", "we pick … after the load test"), a value for today's run — store
nothing.
`count` active memories, each needle of `quoted` in a user quote of one of them. A case with `xfail`
is a known miss that must keep failing (strict), so fixing it shows up.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.agent_process import run_cli
from tests.cli.sessions import assert_quotes, params

CASES: list[dict[str, Any]] = [
    case
    for name in ("terse_rules.json", "answered.json", "milestones.json")
    for case in json.loads((Path(__file__).parent / "cases" / name).read_text("utf-8"))
]


def _json(args: list[str], *, cwd: Path, home: Path) -> Any:
    done = run_cli(args, cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("case", params(CASES))
def test_what_a_terse_rule_stores(project: Path, home: Path, case: dict[str, Any]) -> None:
    exchanges = [t if isinstance(t, dict) else {"user": t, "assistant": "OK."} for t in case["turns"]]
    session = project / "session.jsonl"
    session.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in exchanges), encoding="utf-8")
    _json(["memory", "ingest", str(session), "--json"], cwd=project, home=home)
    _json(["memory", "drain", "--json"], cwd=project, home=home)
    items: list[dict[str, Any]] = _json(["memory", "list", "--json"], cwd=project, home=home)
    quotes = [
        source["quote"]
        for item in items
        for source in _json(["memory", "show", str(item["id"]), "--json"], cwd=project, home=home)["sources"]
        if source["role"] == "user"
    ]
    assert len(items) == case["expect"]["count"], [item["content"] for item in items]
    assert_quotes(case["expect"], quotes)
