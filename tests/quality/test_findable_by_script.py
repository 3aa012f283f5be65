"""`scripts/findable_by.py`: its replica of the floor and the qualifier gives the search's own answers
(`base` = `actual`), and every index-side variant (the memory's source turns and pivot words too), the
qualifier reading every match as across scripts, and the asked value's kind are scored; `--shift`
moves the replica's threshold only."""

from __future__ import annotations

import json
from pathlib import Path

from tests.quality.test_query_eval_script import SESSION, _run_script


def test_the_replica_answers_as_the_search_does_and_scores_every_variant(tmp_path: Path) -> None:
    session = dict(SESSION)
    session["queries"] = [
        *SESSION["queries"],  # type: ignore[list-item]
        {"query": "项目用的包管理器是哪个", "target": "m1"},
        {"query": "how long do installs take with pnpm", "target": None},
        {"query": "which bundler do we ship with", "target": "m1"},
        {"query": "which registry mirror does pnpm fetch from", "target": "m1"},
        {"query": "which lockfile format does pnpm write", "target": None},
    ]
    done = _run_script("findable_by.py", tmp_path, session)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == {
        "actual",
        "base",
        "subject_glosses",
        "title_glosses",
        "all_glosses",
        "subject_thesaurus",
        "all_thesaurus",
        "source_turns",
        "source_proposal",
        "pivot",
        "across_all",
        "name_alone",
        "floor_across",
        "value_kind",
    }
    for row in report.values():
        assert (row["targeted"], row["nothing"]) == (4, 3), report
    assert {k: report["base"][k] for k in ("hit", "empty")} == {k: report["actual"][k] for k in ("hit", "empty")}
    assert report["base"]["hit"] == 2, report  # the bundler question shares no word with the memory
    # pnpm, a name no other memory holds, answers alone: the mirror question is found, and the
    # nothing-query about its lockfile is answered too. The least share of the question's weight the
    # name must carry (`--name-share`) is set to 0 here, so the check does not move with the weights
    # the shipped tables give the question's other words.
    alone = json.loads(_run_script("findable_by.py", tmp_path, session, "--name-share", "0").stdout)
    assert alone["name_alone"]["gained"] == ["which registry mirror does pnpm fetch from"], alone
    assert alone["name_alone"]["lost"] == ["which lockfile format does pnpm write"], alone
    # --shift moves the replica's threshold (a curve), never the search's own answers
    shifted = json.loads(_run_script("findable_by.py", tmp_path, session, "--shift", "100").stdout)
    assert shifted["base"]["hit"] == 0 and shifted["actual"]["hit"] == report["actual"]["hit"], shifted
