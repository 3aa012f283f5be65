"""Issue 11, third round: the offline extractor on the classes the second held-out part exposed,
checked with our own vocabulary (never the generator's, never the new held-out part): quantified
norms, "定为", conventions stated as such, negated plans with a name, the kind of a standing
instruction addressed to the assistant, facts told for information, complaints, and instructions
with a relative clause in the past."""

from __future__ import annotations

import pytest

from autopatch_j.memory.drain import drain
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.memory.pipeline_support import admit, pipeline_for
from tests.memory.test_offline import extracted
from tests.memory.test_validation import turn

PREF, DECISION = "user_preference", "project_decision"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # quantified norms on project artefacts: decisions, whatever the verb
        ("Every migration needs a rollback script.", DECISION),
        ("All public functions must carry docstrings.", DECISION),
        ("Each service has to expose a health endpoint.", DECISION),
        ("新建的服务都必须接入统一网关。", DECISION),
        ("所有的数据库变更都必须先在预发验证。", DECISION),
        # a quantified norm on the assistant's own output stays a preference
        ("Each reply must end with the commands to run.", PREF),
        # decided-as, conventions stated as such
        ("消息队列定为 RabbitMQ。", DECISION),
        ("Our convention is snake_case for database columns.", DECISION),
        ("我们的约定是分支名统一带上工单号。", DECISION),
        # an adoption announced with a gerund
        ("Sticking with Gradle for the Android app.", DECISION),
        # negated plans naming the thing
        ("我们不打算兼容 Python 3.7 了。", DECISION),
        # a standing instruction addressed to the assistant is a preference, even on a known subject
        ("以后给我写的 Java 示例都用 JDK 21 的语法。", PREF),
        ("From now on, use pytest parametrize instead of loops in tests.", PREF),
        ("Going forward, prefer dataclasses over namedtuples.", PREF),
        # … but not when the team or the project decides
        ("以后我们项目统一用 JDK 21。", DECISION),
        ("From now on, we use pytest for every package.", DECISION),
        # "我们" is the collective, not the user speaking of themselves; "our" + an artefact
        ("我们的 CI 以后都跑在自建 runner 上。", DECISION),
        ("Our services log in JSON from now on.", DECISION),
        # a decision label anywhere before the colon; the rest of the project is standing
        ("Ground rule for this service: no ORM, plain SQL only.", DECISION),
        ("Please answer in Chinese for the rest of this project.", PREF),
        # "let us", "it's settled:", "stick to", a first-person decision, "from here,"
        ("Let us use Terraform for the infra.", DECISION),
        ("It's settled: Terraform for the infra.", DECISION),
        ("We'll stick to REST for the public APIs.", DECISION),
        ("From here, the API uses snake_case.", DECISION),
        ("I've decided to write my own scripts in Go.", PREF),
        # Chinese: "就 X 了" settles on a name; an output with a prohibition; a condition + an imperative adverb
        ("消息队列这块就 RabbitMQ 了。", DECISION),
        ("解释别太长，五句以内。", PREF),
        ("讲原理的时候多画图。", PREF),
        # English habitual conditions, outputs in general, dislikes of an output, "before any …"
        ("When reviewing my code, point out the risky parts first.", PREF),
        ("Leave out the greetings in your answers.", PREF),
        ("I can't stand verbose explanations.", PREF),
        ("Run the unit tests before any commit.", PREF),
        # wanting the assistant's outputs (plural) in some form
        ("I'd like the code reviews as a checklist.", PREF),
        # an instruction whose relative clause is in the past is still an instruction
        ("Never rename variables I didn't mention.", PREF),
        ("Please never touch tests you haven't read.", PREF),
    ],
)
def test_structures_of_the_third_round(text: str, kind: str) -> None:
    assert extracted(turn(1, text)) == [(kind, text)]


@pytest.mark.parametrize(
    "text",
    [
        # facts told for information, present states
        "FYI 现在 docker-compose 里 redis 的端口是 6380 的。",
        "settings.py 里默认时区写的是 UTC，你知道就行。",
        "Just so you know, the staging database is always reset at midnight.",
        # complaints: an evaluation, no instruction
        "你的解释太啰嗦了，每次都要看很久。",
        "Your summaries are too long every time.",
        # an undecided past in the main clause stays undecided
        "We haven't picked a queue library.",
        # conditions and one-off states
        "If every table must be partitioned, the migration gets long.",
        "Every build needs about ten minutes right now.",
        "FYI 这个接口暂定为下周上线。",
        "Going with the flow.",
        "When running the tests, I saw an error.",
        "There was a typo in your replies above.",
        "刚才跑测试的时候报错了。",
        "这次就 Redis 了。",
        "Let us know if the build fails.",
        "From here you can see the logs.",
        "I'd like an explanation of this stack trace.",
        "这周先不发版，以后再说。",
        "如果每个服务都必须接网关，工作量会很大。",
        "感觉所有接口都必须重写一遍，太麻烦了。",
        "他们团队的服务都必须走网关。",
        "Switching to Bun would be risky.",
        # plain uses of the quantifiers
        "No need to list every file you changed.",
        "Every time I run the linter it crashes.",
    ],
)
def test_lookalikes_of_the_third_round_stay_out(text: str) -> None:
    assert extracted(turn(1, text)) == []


@pytest.mark.parametrize(
    ("proposal", "reply"),
    [
        ("我建议错误码统一放到一个枚举里。", "嗯，可以这么搞"),
        ("要不要把镜像仓库迁到 Harbor？", "迁吧"),
        ("I could add a retry with exponential backoff to the client.", "Please do."),
        ("I think we should pin the base image by digest.", "OK"),
    ],
)
def test_more_proposals_and_confirmations(proposal: str, reply: str) -> None:
    prior = turn(1, "?", proposal)
    (only,) = extracted(turn(2, reply), prior=prior)
    assert only[0] == DECISION and only[1] in proposal


@pytest.mark.parametrize("reply", ["算了吧", "再说吧", "先别迁吧"])
def test_declining_with_ba_is_not_a_confirmation(reply: str) -> None:
    prior = turn(1, "?", "要不要把镜像仓库迁到 Harbor？")
    assert extracted(turn(2, reply), prior=prior) == []


def test_an_explanation_saying_we_should_is_not_a_proposal() -> None:
    """'we should' in an explanation is how a fix works, not a proposal to decide on."""
    prior = turn(1, "Why does the import fail?", "The module name has a typo, so we should fix line 3.")
    assert extracted(turn(2, "好的"), prior=prior) == []


def test_a_complaint_followed_by_an_instruction_still_counts() -> None:
    text = "你的回答太长了，以后控制在十行以内。"
    assert extracted(turn(1, text)) == [(PREF, text)]


def test_a_reversal_that_names_what_it_drops_supersedes(manager: MemoryManager) -> None:
    pipeline = pipeline_for(manager)
    admit(manager, [("项目决定用 Nomad 做编排。", "好。")])
    drain(pipeline)
    admit(manager, [("编排方案改了：以后统一用 Kubernetes，不上 Nomad 了。", "好。")])
    drain(pipeline)
    active = [i.content for i in manager.list_items() if i.kind is MemoryKind.PROJECT_DECISION]
    assert active == ["编排方案改了：以后统一用 Kubernetes"]  # the retiring clause is quoted, not stated
