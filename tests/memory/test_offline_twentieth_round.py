"""Issue 11, twentieth round: rules stated with no marker the lexicon lists are read by the learned
speech model (memory/speech_model.py), and the hard gates still stop temporary, undecided,
speculative and descriptive sentences — our own words, written before the model's threshold was
chosen, with lookalikes."""

from __future__ import annotations

import pytest

from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF
from tests.memory.test_validation import turn


def below(text: str) -> object:
    """A rule the model reads below the threshold, which was chosen for precision after these tests
    were written (at most 1 % of ordinary talk read as a rule, docs/pipeline.md): a known miss."""
    reason = "the model reads it below the threshold chosen for precision"
    return pytest.param(text, [DECISION], marks=pytest.mark.xfail(strict=True, reason=reason))


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        # a norm on the project's things, with no standing marker and no decision verb
        ("Every service exposes its metrics on /metrics; no custom ports.", [DECISION]),
        below("Database migrations are reviewed by two people before they run in production."),
        ("All timestamps in the API are UTC, formatted as ISO 8601.", [DECISION]),
        ("Release tags follow semver and are cut from main only.", [DECISION]),
        below("仓库里的 shell 脚本全部加 set -euo pipefail。"),
        ("接口返回的错误码统一放在 errors 模块里维护。", [DECISION]),
        ("前端的接口地址全部走环境变量配置，不写死在代码里。", [DECISION]),
        # a settled topic said as a label or as news
        ("Heads up: the billing service is moving to Postgres 16.", [DECISION]),
        ("定好了：线上只保留最近三个版本的镜像。", [DECISION]),
        # how the assistant should answer this user, without "from now on"
        ("Please don't paste the whole file back to me; show only the changed lines.", [PREF]),
        ("讲解报错的时候先告诉我是哪一行出的错。", [PREF]),
        ("Could you stop opening every answer with a summary of my question?", [PREF]),
    ],
)
def test_rules_without_a_listed_marker(text: str, kinds: list[str]) -> None:
    assert [k for k, _ in extracted(turn(1, text))] == kinds


@pytest.mark.parametrize(
    "text",
    [
        # temporary, whatever the model reads
        "For today's demo only, every service exposes its metrics on port 9000.",
        "这次先把接口地址写死在代码里，明天再改成环境变量。",
        # undecided
        "Should every service expose its metrics on /metrics?",
        "接口返回的错误码要不要统一放在 errors 模块里？",
        "Maybe all timestamps in the API should be UTC, not sure yet.",
        # a description of the code as it is now
        "Right now the billing service runs on Postgres 12.",
        "目前仓库里的 shell 脚本都没有加 set -e。",
        # a complaint, a report, thanks
        "The build took forty minutes again yesterday.",
        "昨天那个报错我已经修好了。",
        "Thanks, that explanation helped.",
    ],
)
def test_lookalikes_state_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []
