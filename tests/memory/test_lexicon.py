"""Lexicon v3 (issue 11): word classes, structures over them, and what it must keep from v2."""

from __future__ import annotations

import pytest

from autopatch_j.memory.lexicon import Lexicon, default_lexicon

# The speech acts of lexicon v2 (f5a85c1): each must still be an explicit speech act on its own.
V2_SPEECH_ACTS = [
    "以后", "今后", "往后", "从现在起", "从今以后", "从今天起", "默认", "统一", "一律", "每次都", "不要再", "别再",
    "永远不要", "再也不要", "我们决定", "决定用", "决定采用", "决定了", "就用", "改用", "换成", "约定", "规定",
    "我更喜欢", "我喜欢", "我偏好", "我希望你",
    "from now on", "going forward", "from here on", "in the future", "by default", "as a rule", "let's use",
    "lets use", "let's go with", "let's switch to", "let's standardize on", "we decided", "we've decided",
    "we have decided", "we will use", "we'll use", "we're using", "i prefer", "i'd prefer", "i would prefer",
    "i like", "don't ever", "do not ever", "stop using", "standardize on", "switch to",
]  # fmt: skip
LEX = default_lexicon()


@pytest.mark.parametrize("phrase", V2_SPEECH_ACTS)
def test_every_v2_speech_act_is_still_explicit(phrase: str) -> None:
    assert LEX.is_explicit(f"{phrase} X")


def test_the_bundled_lexicon_is_version_22_with_word_classes() -> None:
    assert LEX.version == 22
    assert LEX.decision_hints.search("团队决定改用 gradle")


def test_a_structure_naming_an_unknown_class_is_refused() -> None:
    data = {"version": 3, "classes": {}, "speech_acts": {"patterns": ["{nothing}"]}}
    with pytest.raises(ValueError, match="unknown word class"):
        Lexicon.from_data(data)


def test_a_class_is_shared_by_every_structure_that_names_it() -> None:
    data = {
        "version": 3,
        "classes": {"crew": {"zh": ["小队"], "en": ["crew"]}, "pick": {"zh": ["拍定"], "en": ["picked"]}},
        "speech_acts": {"patterns": ["{crew}.{0,4}{pick}"]},
    }
    lexicon = Lexicon.from_data(data)
    assert lexicon.is_explicit("小队拍定 X") and lexicon.is_explicit("The crew picked X")
    assert not lexicon.is_explicit("拍定 X") and not lexicon.is_explicit("the crew X")


def test_structures_win_over_listed_words_when_blanking() -> None:
    """ "fine by me" is one confirmation, not "fine" plus two words of slack."""
    assert LEX.is_confirmation("Fine by me, do it that way.")
    assert not LEX.is_confirmation("Fine, but not today.")


def test_an_inflected_class_meets_the_regular_forms_of_its_head_words() -> None:
    """Issue 11, second round: "we're standardizing on", "dropped support" and "trade-offs" without
    an entry of their own; a class without `inflect` stays literal."""
    from autopatch_j.memory.phrases import inflections

    assert inflections("drop") == ["drop", "drops", "droped", "droping", "dropped", "dropping"]
    assert {"standardizes", "standardized", "standardizing"} <= set(inflections("standardize"))
    data = {
        "version": 3,
        "classes": {"pick": {"en": ["settle on"], "inflect": True}, "flat": {"en": ["settle on"]}},
        "speech_acts": {"patterns": ["\\bwe\\b.{0,6}{pick}"]},
        "temporary": {"patterns": ["\\bwe\\b.{0,6}{flat}"]},
    }
    lexicon = Lexicon.from_data(data)
    assert all(lexicon.is_explicit(f"We {v} Helm.") for v in ("settle on", "settled on", "are settling on"))
    assert lexicon.is_temporary("We settle on Helm.") and not lexicon.is_temporary("We're settling on Helm.")


# A temporary marker that names no end ("先这样", "for now") scopes a standing decision when the scope
# ends at a project milestone; a scope that ends with the session, the day or the run stays temporary.
MILESTONE_SCOPED = [
    "超时先设 3 秒 提审前先这样",
    "重试次数先定 5 次 到封版为止先这样",
    "keep retries at 5 until GA, that's it for now",
    "the schema stays frozen before the release branch is cut, for now",
]
SESSION_SCOPED = [
    "今天先这样 封版前再说",
    "这回先把断言注释掉 提审前再打开",
    "for today keep retries at 5, we revisit before GA",
    "this time just skip the lint step, it has to pass before launch",
    "超时暂时设 3 秒",
    "keep retries at 5 for now",
]


@pytest.mark.parametrize("sentence", MILESTONE_SCOPED)
def test_a_scope_ending_at_a_milestone_is_no_temporary_scope(sentence: str) -> None:
    assert LEX.scoped_to_milestone(sentence)
    assert not LEX.is_temporary(sentence)


@pytest.mark.parametrize("sentence", SESSION_SCOPED)
def test_a_scope_ending_with_the_session_or_naming_no_end_stays_temporary(sentence: str) -> None:
    assert LEX.is_temporary(sentence)


def test_the_milestones_are_data() -> None:
    """The gate reads its milestones from the lexicon's `milestone` class, not from code."""
    data = {
        "version": 3,
        "classes": {"milestone": {"zh": ["路演"], "en": ["demo day"]}},
        "temporary": {"zh": ["先这样"], "en": ["for now"]},
        "open_scopes": {"zh": ["先这样"], "en": ["for now"]},
        "milestone_scopes": {"patterns": ["(?:{milestone})前", "\\buntil (?:{milestone})"]},
    }
    lexicon = Lexicon.from_data(data)
    assert not lexicon.is_temporary("端口用 8080 路演前先这样")
    assert not lexicon.is_temporary("port 8080 until demo day, for now")
    assert lexicon.is_temporary("端口用 8080 量产前先这样")
