"""What a new memory is titled and found by (the offline extractor's Stage 2): its title, aliases and
keywords, from the subject table (Chinese and English) and the content's own words, each list
bounded as the validator wants it."""

from __future__ import annotations

from autopatch_j.memory.lexicon import Lexicon, Subject
from autopatch_j.memory.records import MemoryKind

_TITLE_CHARS = 60
_KIND_LABELS = {
    MemoryKind.USER_PREFERENCE: ("用户偏好", "user preference"),
    MemoryKind.PROJECT_DECISION: ("项目决定", "project decision"),
    MemoryKind.DISCUSSION_CONTEXT: ("讨论上下文", "discussion context"),
}


def metadata(
    lexicon: Lexicon, content: str, kind: MemoryKind, subject: Subject | None, *, chinese: bool
) -> tuple[str, list[str], list[str]]:
    """(title, aliases, keywords) of a memory stating `content`: a subject's titles and keywords, the
    title in the language the user wrote in (`chinese`); without a subject, the content clipped and
    the kind's labels."""
    label_zh, label_en = _KIND_LABELS[kind]
    words = sorted(lexicon.anchor_tokens(content), key=lexicon.keyword_order)
    if subject is not None:
        # in the language the user wrote in (`chinese`); the other one stays among the aliases
        title = subject.title_zh if chinese else subject.title_en
        aliases = [subject.title_zh, subject.title_en, subject.key.replace("_", " ")]
        keywords = [*subject.keywords, *words]
    else:
        title = clip(content, _TITLE_CHARS)
        aliases = [label_zh, label_en]
        keywords = words or [label_en]
    return title, bounded(aliases), bounded(keywords)


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def bounded(values: list[str], limit: int = 16) -> list[str]:
    """The distinct non-blank `values`, stripped, each cut to 160 characters, at most `limit` of them."""
    cleaned = [v.strip()[:160] for v in values if v.strip()]
    return list(dict.fromkeys(cleaned))[:limit]
