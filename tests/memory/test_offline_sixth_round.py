"""Issue 11, sixth round: a report that precedes a decision, habitual future conditions, prohibitions,
file states, more corrections and restatements — our own words, with lookalikes that form nothing."""

from __future__ import annotations

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.test_offline import extracted
from tests.memory.test_offline_fifth_round import DECISION, PREF, active, run_each
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a label or a verb of choosing
        ("定个规矩：发版之前必须有人做过冒烟测试。", DECISION),
        ("We've picked Loki for log aggregation.", DECISION),
        # a group that synced / aligned first, then the rule
        ("团队 sync 过了，日志统一走 JSON 格式。", DECISION),
        ("前端组 align 好了：组件名全部用 PascalCase。", DECISION),
        # a collective's artefact with a prohibition
        ("我们 repo 的密钥全部放 KMS，不许明文提交。", DECISION),
        # a habitual future condition, "any time …"
        ("之后 review 代码的时候，先说风险，再说风格。", PREF),
        ("Any time a SQL query comes up, explain the indexes it uses.", PREF),
        # "Please do that every time." extends the sentence before it
        ("I'd rather you quote the exact error. Please do that every time.", PREF),
    ],
)
def test_sixth_round_structures(text: str, kind: str) -> None:
    assert extracted(turn(1, text)) == [(kind, text)]


@pytest.mark.parametrize(
    "text",
    [
        "目前所有任务都跑在 Celery 上。",
        "我看了一下，tsconfig 里默认开启了 strict。",
        "The Dockerfile installs curl before the app.",
        "这个我还拿不准。",
        "不得不说这个方案挺好。",
        "刚才那个报错是我环境的问题。",
    ],
)
def test_states_reports_and_idioms_form_nothing(text: str) -> None:
    assert extracted(turn(1, text)) == []


@pytest.mark.parametrize(
    ("first", "correction", "kind"),
    [
        ("worker 数量统一设成 4 个。", "不对，刚才说少了，应该是 8 个。", DECISION),
        (
            "Please keep your answers to one paragraph from now on.",
            "Actually, I take that back — I prefer long answers.",
            PREF,
        ),
        ("The team agreed: we deploy on Mondays.", "Update from standup: we deploy on Thursdays instead.", DECISION),
        ("项目的包管理器就用 yarn。", "刚和组里对过，包管理器改用 pnpm，之前说的 yarn 作废。", DECISION),
    ],
)
def test_more_corrections_supersede(manager: MemoryManager, first: str, correction: str, kind: str) -> None:
    run_each(manager, first, correction)
    ((got_kind, content),) = active(manager)
    assert got_kind == kind and content and content in correction  # a clause only retiring the old name is dropped


@pytest.mark.parametrize(
    ("first", "restated"),
    [
        # a fresh rule replacing the forgotten one takes its kind
        ("Let's keep every log for 14 days.", "Fresh rule, replacing the one I deleted: logs are kept for 30 days."),
        # a report of the forget ("刚才那条删早了") before the restatement is no past report
        (
            "所有接口的路径都要带 /api/v2 前缀，这是我们定的。",
            "刚才那条删早了，重新说一遍：接口路径都带 /api/v2 前缀。",
        ),
    ],
)
def test_a_restatement_after_a_forget_forms_a_fresh_decision(manager: MemoryManager, first: str, restated: str) -> None:
    run_each(manager, first)
    (item,) = manager.list_items()
    manager.forget(item.memory_id)
    run_each(manager, restated)
    assert active(manager) == [(DECISION, restated)]
