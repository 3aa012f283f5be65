"""Intent routing (H-20, M-73): deterministic rules first, a short classifier call otherwise.

`Router.route(text)` returns a `RouteDecision`:

- `explicit`   — the caller named the intent (`ask --intent …`);
- `rule`       — an obvious input: "audit src/app.py" / "审计 src/app.py" with a path that exists in
                 the project, "explain the patch" / "解释补丁" and "revise the patch" / "修改补丁" while
                 a patch is pending, "explain src/app.py" / "解释 app.py", greetings and thanks;
- `classifier` — one `Purpose.CLASSIFIER` call answering JSON `{"intent": "…"}` (JSON mode, so a
                 server that supports `response_format` constrains the output); small models'
                 near-misses are accepted when they name exactly one intent: extra keys, a fenced
                 or embedded object, `"Code Explain"` for `code_explain`;
- `fallback`   — the classifier failed (LLM error, broken contract, or a patch intent with no
                 pending patch): the safe route `general_chat` (the ReAct agent), with the reason kept
                 in `fallback_reason` even when the fallback call then succeeds (M-73). After
                 `MAX_CLASSIFIER_FAILURES` failures in a row the router stops asking the classifier
                 for the rest of the session (a small model that never answers the contract costs a
                 call per message for nothing). Only the first fallback of a session has
                 `announce=True`: the CLI states it once per session, not on every turn.

The classifier sees only the current message and whether a patch is pending: no history, no
Memory (it is not a turn). The fallback never routes to a repair agent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from autopatch_j.llm.errors import LLMCancelled, LLMConfigError, LLMError
from autopatch_j.llm.json_contract import parse_json_object, strip_fence
from autopatch_j.llm.provider import ChatRequest, LLMProvider, Message, Purpose
from autopatch_j.memory import Intent
from autopatch_j.strict_model import StrictModel
from autopatch_j.workspace.confine import resolve_inside
from autopatch_j.workspace.errors import WorkspaceError

RouteSource = Literal["explicit", "rule", "classifier", "fallback"]
MAX_CLASSIFIER_FAILURES = 2
MAX_CLASSIFIER_INPUT_CHARS = 4_000
MAX_REASON_CHARS = 500
MAX_RULE_CHARS = 2_000


@dataclass(frozen=True, slots=True)
class RouteDecision:
    intent: Intent
    source: RouteSource
    fallback_reason: str | None = None
    announce: bool = True  # False for a later fallback of the same session (stated once)

    def describe(self) -> str:
        text = f"{self.intent.value} ({self.source})"
        return f"{text}: {self.fallback_reason}" if self.fallback_reason else text


class ClassifierReply(StrictModel):
    intent: Literal["code_explain", "general_chat", "code_audit", "patch_explain", "patch_revise"]


CLASSIFIER_PROMPT = """\
You route one message of a developer using a coding-agent CLI inside a code repository.
Answer with exactly one JSON object: {"intent": "<intent>"} where <intent> is one of:
- "code_explain": questions about this project's code, behaviour, structure or build.
- "general_chat": anything else (general questions, preferences, planning, small talk).
- "code_audit": the user asks to audit, review or scan files or folders for bugs or security problems.
- "patch_explain": the user asks about the pending patch (only if a patch is pending).
- "patch_revise": the user asks to change the pending patch (only if a patch is pending).
Examples: "how is the config loaded?" -> {"intent": "code_explain"}; "thanks, what do you think of
Rust?" -> {"intent": "general_chat"}; "check src/ for SQL injection" -> {"intent": "code_audit"}.
No other keys, no prose."""
_EMBEDDED_OBJECT = re.compile(r"\{[^{}]*\}")
_INTENT_KEYS = frozenset({"intent", "route", "label", "category", "class"})
_INTENT_NAMES = frozenset(get_args(ClassifierReply.model_fields["intent"].annotation))

_LEAD = r"^\s*(?:please\s+|pls\s+|can you\s+|could you\s+|请|帮我|麻烦|你)?\s*"
_AUDIT_EN = re.compile(_LEAD + r"(?:security[- ]?)?(?:audit|review|scan|inspect)\b", re.IGNORECASE)
_AUDIT_ZH = re.compile(_LEAD + r"(?:审计|扫描|审查|代码审查|安全审查|检查一下|review)")
_EXPLAIN_EN = re.compile(_LEAD + r"(?:explain|describe|walk me through|what does|how does)\b", re.IGNORECASE)
_EXPLAIN_ZH = re.compile(_LEAD + r"(?:解释|讲解|讲讲|说明|介绍)")
_PATCH_EXPLAIN = re.compile(
    r"(?:\b(?:explain|describe|why|what)\b.*\b(?:(?:the|this|that|pending|proposed)\s+(?:patch|fix|diff)|patch)\b)"
    r"|(?:解释|说明|讲解|为什么).{0,6}(?:补丁|修复|patch)|(?:补丁|patch).{0,6}(?:是什么|什么意思|为什么|解释)",
    re.IGNORECASE,
)
_PATCH_REVISE = re.compile(
    r"(?:\b(?:revise|change|modify|update|adjust|rewrite|redo|improve|rework|edit)\b.*"
    r"\b(?:(?:the|this|that|pending|proposed)\s+(?:patch|fix|diff)|patch)\b)"
    r"|(?:修改|改一下|改改|调整|重写|更新|改进).{0,6}(?:补丁|修复|patch)|(?:补丁|patch).{0,6}(?:改|修改|调整|重写)",
    re.IGNORECASE,
)
_SMALL_TALK = re.compile(
    r"^\s*(?:hi|hello|hey|thanks|thank you|thx|good (?:morning|evening)|你好|您好|嗨|谢谢|多谢|早上好|晚上好)"
    r"[\s!！.。,，~]*$",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[^\s,，。;；:：'\"“”‘’()（）<>《》`]+")
_ASCII_PATH = re.compile(r"[A-Za-z0-9_./\\-]+")
MAX_PATH_TOKENS = 200


class Router:
    """Routes one message; holds the project root (for path rules) and the classifier's provider."""

    def __init__(self, *, provider: LLMProvider, root: Path) -> None:
        self._provider = provider
        self._root = root.resolve()
        self._failures_in_a_row = 0
        self._fallback_stated = False

    def route(
        self,
        text: str,
        *,
        has_pending_patch: bool,
        explicit: Intent | None = None,
        provider: LLMProvider | None = None,
    ) -> RouteDecision:
        """`provider` overrides the router's own for this call (a request's cancellable view)."""
        if explicit is not None:
            return RouteDecision(Intent(explicit), "explicit")
        rule = self.rule(text, has_pending_patch=has_pending_patch)
        if rule is not None:
            return RouteDecision(rule, "rule")
        return self.classify(text, has_pending_patch=has_pending_patch, provider=provider)

    # -- rules --------------------------------------------------------------------------------------

    def rule(self, text: str, *, has_pending_patch: bool) -> Intent | None:
        """The intent of an obvious input, or None to ask the classifier."""
        return rule_intent(self._root, text, has_pending_patch=has_pending_patch)

    def project_paths(self, text: str) -> list[str]:
        """Tokens of `text` that name an existing file or folder inside the project (bounded)."""
        return project_paths(self._root, text)

    # -- classifier ---------------------------------------------------------------------------------

    def classify(self, text: str, *, has_pending_patch: bool, provider: LLMProvider | None = None) -> RouteDecision:
        if self._failures_in_a_row >= MAX_CLASSIFIER_FAILURES:
            return self._fallback(f"classifier off for this session after {MAX_CLASSIFIER_FAILURES} failures in a row")
        decision = self._ask_classifier(text, has_pending_patch=has_pending_patch, provider=provider)
        self._failures_in_a_row = self._failures_in_a_row + 1 if decision.source == "fallback" else 0
        return decision

    def _fallback(self, reason: str) -> RouteDecision:
        announce, self._fallback_stated = not self._fallback_stated, True
        return RouteDecision(Intent.GENERAL_CHAT, "fallback", reason[:MAX_REASON_CHARS], announce=announce)

    def _ask_classifier(self, text: str, *, has_pending_patch: bool, provider: LLMProvider | None) -> RouteDecision:
        pending = "A patch is pending." if has_pending_patch else "No patch is pending."
        request = ChatRequest(
            purpose=Purpose.CLASSIFIER,
            messages=(
                Message(role="system", content=f"{CLASSIFIER_PROMPT}\n{pending}"),
                Message(role="user", content=text[:MAX_CLASSIFIER_INPUT_CHARS]),
            ),
        )
        try:
            response = (provider or self._provider).complete(request)
        except (LLMConfigError, LLMCancelled):
            raise  # no LLM at all (the main call could not run either), or the user cancelled
        except LLMError as exc:
            return self._fallback(f"classifier failed: {type(exc).__name__}: {exc}")
        try:
            intent = Intent(parse_json_object(response.content, ClassifierReply).intent)
        except LLMError as exc:
            lenient = lenient_intent(response.content)
            if lenient is None:
                return self._fallback(f"classifier failed: {type(exc).__name__}: {exc}")
            intent = lenient
        if intent in (Intent.PATCH_EXPLAIN, Intent.PATCH_REVISE) and not has_pending_patch:
            return self._fallback(f"classifier chose {intent.value} but no patch is pending")
        return RouteDecision(intent, "classifier")


def rule_intent(root: Path, text: str, *, has_pending_patch: bool) -> Intent | None:
    """The intent of an obvious input by the rules alone (no model), or None when only the classifier can tell."""
    text = text[:MAX_RULE_CHARS]  # bounds the regex work on very long messages
    if has_pending_patch:
        if _PATCH_REVISE.search(text):
            return Intent.PATCH_REVISE
        if _PATCH_EXPLAIN.search(text):
            return Intent.PATCH_EXPLAIN
    if _SMALL_TALK.match(text):
        return Intent.GENERAL_CHAT
    names_path = bool(project_paths(root, text))
    if names_path and (_AUDIT_EN.match(text) or _AUDIT_ZH.match(text)):
        return Intent.CODE_AUDIT
    if names_path and (_EXPLAIN_EN.match(text) or _EXPLAIN_ZH.match(text)):
        return Intent.CODE_EXPLAIN
    return None


def lenient_intent(text: str) -> Intent | None:
    """The intent of a near-miss answer: a JSON object (fenced, embedded in prose, with extra keys)
    whose intent-like field names exactly one intent, spelled loosely. None for anything else."""
    for candidate in (strip_fence(text), *_EMBEDDED_OBJECT.findall(text)):
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        names = {
            re.sub(r"[\s-]+", "_", value.strip().lower())
            for key, value in data.items()
            if isinstance(value, str) and key.strip().lower() in _INTENT_KEYS
        }
        if len(names) == 1 and (name := names.pop()) in _INTENT_NAMES:
            return Intent(name)
    return None


def project_paths(root: Path, text: str, *, limit: int = 20) -> list[str]:
    """Tokens of `text` naming existing files or folders confined to `root`, in order, without repeats."""
    found: list[str] = []
    tokens: list[str] = []
    for token in _TOKEN.findall(text)[:MAX_PATH_TOKENS]:
        tokens.append(token)
        if not token.isascii():  # "审计src/app.py": the ASCII run inside a mixed token
            tokens.extend(_ASCII_PATH.findall(token))
    for token in tokens:
        token = token.rstrip(".?!？！、")
        if not token or token in found or not _looks_like_path(token):
            continue
        try:
            target = resolve_inside(root, token)
        except WorkspaceError:
            continue
        if target.exists() and target != root.resolve():
            found.append(token)
            if len(found) >= limit:
                break
    return found


def _looks_like_path(token: str) -> bool:
    return "/" in token or "." in token.strip(".") or (token.isascii() and token.isidentifier())
