"""Secret redaction applied before anything from a task result is stored (C-24).

Covers `key=value` / `key: value` forms of api_key/password/secret/token/credential (any case, quoted
or not), `Authorization:` headers, `Bearer` tokens, the token prefixes `sk-` (incl. `sk-ant-`,
`sk-proj-`), `ghp_ gho_ ghu_ ghs_ ghr_ github_pat_`, `xox?-`, `xapp-`, AWS access key ids, JWTs, PEM
private-key blocks (also when cut off) and `scheme://user:pass@` URL credentials.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

REDACTED = "[REDACTED]"

_KEY_WORDS = r"(?:api[_-]?key|apikey|password|passwd|pwd|secret|token|credentials?|access[_-]?key)"


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]


def _whole(_m: re.Match[str]) -> str:
    return REDACTED


def _keep_first_group(m: re.Match[str]) -> str:
    return m.group(1) + REDACTED


def _key_value(m: re.Match[str]) -> str:
    quote = m.group("q") or ""
    return f"{m.group('key')}{m.group('sep')}{quote}{REDACTED}{quote}"


RULES: tuple[Rule, ...] = (
    Rule(
        "pem_private_key",
        re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.DOTALL),
        _whole,
    ),
    Rule(
        "url_credentials",
        re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@"),
        lambda m: f"{m.group(1)}{REDACTED}@",
    ),
    Rule("authorization_header", re.compile(r"(?i)\b(authorization\s*[:=]\s*)[^\r\n]+"), _keep_first_group),
    Rule("bearer", re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+"), _keep_first_group),
    Rule(
        "key_value",
        re.compile(
            r"(?i)(?P<key>[\"']?[\w.-]*" + _KEY_WORDS + r"[\w.-]*[\"']?)"
            r"(?P<sep>\s*[:=]\s*)(?!\[REDACTED\])"
            r"(?:(?P<q>[\"'])(?P<qv>[^\"'\r\n]*)(?P=q)|(?P<v>[^\s\"',;}\]]+))"
        ),
        _key_value,
    ),
    Rule("openai_anthropic_key", re.compile(r"\bsk-[A-Za-z0-9_-]{6,}"), _whole),
    Rule("github_token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{6,}"), _whole),
    Rule("github_pat", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{6,}"), _whole),
    Rule("slack_token", re.compile(r"\bxox[a-zA-Z]-[A-Za-z0-9-]{4,}"), _whole),
    Rule("slack_app_token", re.compile(r"\bxapp-[A-Za-z0-9-]{4,}"), _whole),
    Rule("aws_access_key_id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"), _whole),
    Rule("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"), _whole),
)


def redact(text: str) -> str:
    """Replace every secret the rules know with `[REDACTED]`; idempotent."""
    for rule in RULES:
        text = rule.pattern.sub(rule.replace, text)
    return text


def contains_secret(text: str) -> bool:
    """True when any rule would change the text."""
    return redact(text) != text
