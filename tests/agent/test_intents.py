"""Intent routing (H-20): rules for obvious inputs (zh + en), the classifier otherwise, and the safe
fallback whose reason is kept (M-73)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autopatch_j.agent.intents import RouteDecision, Router, project_paths
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.errors import LLMConfigError, LLMProviderError, LLMTimeoutError
from autopatch_j.llm.provider import Purpose
from autopatch_j.memory.records import Intent


@pytest.fixture
def router(project: Path, canned: CannedProvider) -> Router:
    return Router(provider=canned, root=project)


RULES = [
    ("audit src/app.py", False, Intent.CODE_AUDIT),
    ("Please review src/ for security bugs", False, Intent.CODE_AUDIT),
    ("scan src/app.py", True, Intent.CODE_AUDIT),
    ("审计 src/app.py", False, Intent.CODE_AUDIT),
    ("帮我扫描 src", False, Intent.CODE_AUDIT),
    ("审计src/app.py", False, Intent.CODE_AUDIT),
    ("explain src/app.py", False, Intent.CODE_EXPLAIN),
    ("解释一下 README.md", False, Intent.CODE_EXPLAIN),
    ("explain the patch", True, Intent.PATCH_EXPLAIN),
    ("Why is this patch needed? explain the patch please", True, Intent.PATCH_EXPLAIN),
    ("解释补丁", True, Intent.PATCH_EXPLAIN),
    ("这个补丁是什么意思", True, Intent.PATCH_EXPLAIN),
    ("revise the patch to use shlex.split", True, Intent.PATCH_REVISE),
    ("what does this patch change?", True, Intent.PATCH_EXPLAIN),
    ("please rewrite patch without shell", True, Intent.PATCH_REVISE),
    ("修改补丁，不要用 shell=True", True, Intent.PATCH_REVISE),
    ("hello", False, Intent.GENERAL_CHAT),
    ("谢谢！", False, Intent.GENERAL_CHAT),
]


@pytest.mark.parametrize(("text", "pending", "intent"), RULES)
def test_obvious_inputs_are_routed_by_rules_without_any_llm_call(
    router: Router, canned: CannedProvider, text: str, pending: bool, intent: Intent
) -> None:
    assert router.route(text, has_pending_patch=pending) == RouteDecision(intent, "rule")
    assert canned.requests == []


@pytest.mark.parametrize(
    "text",
    [
        "audit the login flow",  # no existing path named
        "review my plan for tomorrow",
        "revise the patch",  # no patch pending: not obvious
        "解释补丁",
        "explain ../outside.py",  # paths outside the project never count
        "审计 /etc/passwd",
    ],
)
def test_inputs_that_are_not_obvious_go_to_the_classifier(router: Router, canned: CannedProvider, text: str) -> None:
    canned.enqueue(Purpose.CLASSIFIER, '{"intent": "general_chat"}')
    assert router.route(text, has_pending_patch=False) == RouteDecision(Intent.GENERAL_CHAT, "classifier")
    (request,) = canned.requests
    assert request.purpose is Purpose.CLASSIFIER
    assert request.tools == ()
    assert [m.role for m in request.messages] == ["system", "user"]
    assert request.messages[1].content == text


@pytest.mark.parametrize("intent", list(Intent))
def test_the_classifier_can_choose_every_intent(router: Router, canned: CannedProvider, intent: Intent) -> None:
    canned.enqueue(Purpose.CLASSIFIER, json.dumps({"intent": intent.value}))
    decision = router.route("what about the thing?", has_pending_patch=True)
    assert decision == RouteDecision(intent, "classifier")


def test_an_explicit_intent_skips_rules_and_classifier(router: Router, canned: CannedProvider) -> None:
    decision = router.route("audit src/app.py", has_pending_patch=False, explicit=Intent.GENERAL_CHAT)
    assert decision == RouteDecision(Intent.GENERAL_CHAT, "explicit")
    assert canned.requests == []


@pytest.mark.parametrize(
    ("reply", "reason_part"),
    [
        (LLMTimeoutError("the LLM request timed out after 60 s"), "LLMTimeoutError"),
        (LLMProviderError("[bold]boom[/]", status=500), "LLMProviderError"),
        ("I think this is code_audit", "not a JSON object"),
        ('{"intent": "delete_everything"}', "ClassifierReply"),
        ('{"intent": "general_chat", "route": "code_audit"}', "ClassifierReply"),  # two intents: no guess
        ('{"topic": "general_chat"}', "ClassifierReply"),
        ('{"intent": "patch_revise"}', "no patch is pending"),
    ],
)
def test_classifier_failure_falls_back_to_general_chat_keeping_the_reason(
    router: Router, canned: CannedProvider, reply: object, reason_part: str
) -> None:
    canned.enqueue(Purpose.CLASSIFIER, reply)  # type: ignore[arg-type]
    decision = router.route("something ambiguous", has_pending_patch=False)
    assert decision.intent is Intent.GENERAL_CHAT
    assert decision.source == "fallback"
    assert decision.fallback_reason is not None and reason_part in decision.fallback_reason
    assert reason_part in decision.describe()


@pytest.mark.parametrize(
    ("reply", "intent"),
    [
        ('{"intent": "general_chat", "confidence": 0.9}', Intent.GENERAL_CHAT),
        ('Sure! {"intent": "code_explain"} is my answer.', Intent.CODE_EXPLAIN),
        ('```json\n{"Intent": "Code Explain"}\n```', Intent.CODE_EXPLAIN),
        ('{"label": "code-audit"}', Intent.CODE_AUDIT),
    ],
)
def test_small_model_near_misses_that_name_one_intent_are_accepted(
    router: Router, canned: CannedProvider, reply: str, intent: Intent
) -> None:
    canned.enqueue(Purpose.CLASSIFIER, reply)
    assert router.route("something ambiguous", has_pending_patch=False) == RouteDecision(intent, "classifier")
    assert canned.requests[-1].purpose is Purpose.CLASSIFIER


def test_the_fallback_is_stated_once_and_a_failing_classifier_is_not_asked_all_session(
    router: Router, canned: CannedProvider
) -> None:
    canned.enqueue(Purpose.CLASSIFIER, "I cannot answer in JSON.")
    canned.enqueue(Purpose.CLASSIFIER, '{"intent": "general_chat"}')  # a success resets the count
    canned.enqueue(Purpose.CLASSIFIER, "still no JSON")
    canned.enqueue(Purpose.CLASSIFIER, "no JSON either")
    decisions = [router.route(f"ambiguous {n}", has_pending_patch=False) for n in range(5)]
    assert [d.source for d in decisions] == ["fallback", "classifier", "fallback", "fallback", "fallback"]
    assert [d.announce for d in decisions if d.source == "fallback"] == [True, False, False, False]
    assert len(canned.requests) == 4  # the fifth message was routed without asking the classifier again
    assert decisions[-1].fallback_reason is not None and "off for this session" in decisions[-1].fallback_reason


def test_a_missing_llm_configuration_is_not_hidden_by_the_fallback(router: Router, canned: CannedProvider) -> None:
    canned.enqueue(Purpose.CLASSIFIER, LLMConfigError("set AUTOPATCH_LLM_API_KEY"))
    with pytest.raises(LLMConfigError):
        router.route("something ambiguous", has_pending_patch=False)


def test_project_paths_finds_existing_confined_paths_only(project: Path) -> None:
    (project / ".autopatch-j").mkdir(exist_ok=True)
    text = "look at src/app.py, README.md, ../proj/src, /etc/passwd, .autopatch-j/memory.db and nothing.txt"
    assert project_paths(project, text) == ["src/app.py", "README.md", "../proj/src"]
