"""Stage-1 validation (M-42, M-46): structural errors fail the whole output; semantic gates filter one candidate."""

from __future__ import annotations

import pytest

from autopatch_j.memory.batches import ExtractionRequest
from autopatch_j.memory.contracts import CandidateOut, ExtractionOutput, SourceOut
from autopatch_j.memory.errors import ExtractionRejected
from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.records import Intent, MemoryKind, Source, SourceRole, Turn, TurnStatus
from autopatch_j.memory.validation import enclosing_sentence, validate_extraction

LEX = default_lexicon()


def turn(turn_id: int, user: str, assistant: str | None = "好的。", seq: int | None = None) -> Turn:
    return Turn(
        id=turn_id,
        thread_id=1,
        seq=seq if seq is not None else turn_id,
        intent=Intent.GENERAL_CHAT,
        status=TurnStatus.COMPLETED if assistant is not None else TurnStatus.FAILED,
        user_text=user,
        assistant_text=assistant,
        error=None,
        created_at=0.0,
        updated_at=0.0,
    )


def request(*turns: Turn, prior: Turn | None = None, suppressed: tuple[Source, ...] = ()) -> ExtractionRequest:
    return ExtractionRequest(
        thread_id=1,
        compaction="",
        turns=turns,
        prior_turn=prior,
        job_for_turn={t.id: 100 + t.id for t in turns},
        suppressed=suppressed,
    )


def cand(kind: str, content: str, *sources: tuple[int, str, str], subject: str = "") -> CandidateOut:
    return CandidateOut(
        kind=kind,  # type: ignore[arg-type]
        content=content,
        subject=subject,
        sources=[SourceOut(turn_id=t, role=r, quote=q) for t, r, q in sources],  # type: ignore[arg-type]
    )


def out(*candidates: CandidateOut, compaction: str = "c") -> ExtractionOutput:
    return ExtractionOutput(compaction=compaction, candidates=list(candidates))


def kept(req: ExtractionRequest, *candidates: CandidateOut) -> list[str]:
    return [c.content for c in validate_extraction(out(*candidates), req, LEX).candidates]


# -- structural: the whole output fails ---------------------------------------------------------


def test_quote_must_be_an_exact_substring() -> None:
    req = request(turn(1, "以后先给结论。"))
    good = cand("user_preference", "以后先给结论", (1, "user", "以后先给结论"))
    bad = cand("user_preference", "以后先给结论", (1, "user", "以后先给出结论"))
    with pytest.raises(ExtractionRejected, match="exact substring"):
        validate_extraction(out(good, bad), req, LEX)


def test_source_turn_must_be_in_the_input() -> None:
    req = request(turn(2, "以后先给结论。"), prior=turn(1, "hi"))
    with pytest.raises(ExtractionRejected, match="turn 9 is not in the input"):
        validate_extraction(out(cand("user_preference", "x", (9, "user", "x"))), req, LEX)


def test_role_must_match_the_quoted_side() -> None:
    req = request(turn(1, "以后先给结论。", "我会先给结论。"))
    with pytest.raises(ExtractionRejected):
        validate_extraction(out(cand("user_preference", "先给结论", (1, "assistant", "以后先给结论"))), req, LEX)


def test_a_failed_turn_has_no_assistant_side() -> None:
    req = request(turn(1, "以后先给结论。", None))
    with pytest.raises(ExtractionRejected):
        validate_extraction(out(cand("discussion_context", "x", (1, "assistant", "x"))), req, LEX)


@pytest.mark.parametrize(
    "bad",
    [
        cand("user_preference", "", (1, "user", "以后先给结论")),
        cand("user_preference", "x" * 2001, (1, "user", "以后先给结论")),
        cand("user_preference", "以后先给结论"),
        cand("user_preference", "以后先给结论", *[(1, "user", "以后")] * 9),
        cand("user_preference", "以后先给结论", (1, "user", "以后先给结论"), subject="s" * 201),
    ],
)
def test_length_bounds(bad: CandidateOut) -> None:
    with pytest.raises(ExtractionRejected):
        validate_extraction(out(bad), request(turn(1, "以后先给结论。")), LEX)


def test_compaction_bound() -> None:
    with pytest.raises(ExtractionRejected, match="compaction"):
        validate_extraction(out(compaction="x" * 4001), request(turn(1, "hi")), LEX)
    assert validate_extraction(out(compaction="x" * 4000), request(turn(1, "hi")), LEX).compaction == "x" * 4000


# -- semantic gates: one candidate is filtered --------------------------------------------------------


def test_explicit_chinese_preference_is_kept() -> None:
    req = request(turn(1, "以后先给结论，再展开。"))
    assert kept(req, cand("user_preference", "先给结论", (1, "user", "以后先给结论"))) == ["先给结论"]


def test_explicit_english_decision_is_kept() -> None:
    req = request(turn(1, "From now on, we use pytest for every test."))
    c = cand("project_decision", "Use pytest for every test", (1, "user", "From now on, we use pytest for every test."))
    assert kept(req, c) == ["Use pytest for every test"]


def test_no_speech_act_is_filtered_but_the_rest_survives() -> None:
    req = request(turn(1, "项目用 Python 吗？以后先给结论。"))
    result = validate_extraction(
        out(
            cand("project_decision", "项目用 Python", (1, "user", "项目用 Python")),
            cand("user_preference", "先给结论", (1, "user", "以后先给结论")),
            compaction="kept",
        ),
        req,
        LEX,
    )
    assert [c.content for c in result.candidates] == ["先给结论"]
    assert [f.index for f in result.filtered] == [0]
    assert result.compaction == "kept"


def test_content_must_be_anchored_in_the_quote() -> None:
    req = request(turn(1, "以后先给结论。"))
    assert kept(req, cand("user_preference", "Always answer in English", (1, "user", "以后先给结论"))) == []


@pytest.mark.parametrize(
    "text",
    [
        "这次简单说一下就行，以后不用这样。",  # temporary (even with 以后 nearby)
        "Just this once, from now on style is fine to skip.",
        "以后要不要都用 uv？",  # undecided question
        "也许以后都用 uv 管理依赖",  # speculation
        "pom.xml 里默认现在配置的是 Java 17",  # a current code fact, despite 默认
        "By default the build currently uses Java 17.",
    ],
)
def test_temporary_questions_speculation_and_code_facts_never_form_statements(text: str) -> None:
    req = request(turn(1, text))
    quote = text.split("，")[0] if "，" in text else text
    c = cand("project_decision", quote, (1, "user", quote))
    assert kept(req, c) == []


def test_assistant_only_claims_never_form_a_decision() -> None:
    req = request(turn(1, "怎么管理依赖？", "以后统一用 uv 管理依赖。"))
    assert kept(req, cand("project_decision", "统一用 uv 管理依赖", (1, "assistant", "以后统一用 uv 管理依赖"))) == []


def test_evidence_only_in_the_context_turn_is_not_new() -> None:
    prior = turn(1, "以后先给结论。")
    req = request(turn(2, "谢谢"), prior=prior)
    assert kept(req, cand("user_preference", "先给结论", (1, "user", "以后先给结论"))) == []


def test_short_confirmation_needs_proposal_and_confirmation() -> None:
    prior = turn(1, "依赖怎么管？", "我建议项目统一用 uv 管理依赖。")
    req = request(turn(2, "同意"), prior=prior)
    both = cand(
        "project_decision",
        "项目统一用 uv 管理依赖",
        (1, "assistant", "我建议项目统一用 uv 管理依赖"),
        (2, "user", "同意"),
    )
    only_user = cand("project_decision", "项目统一用 uv 管理依赖", (2, "user", "同意"))
    only_proposal = cand("project_decision", "项目统一用 uv 管理依赖", (1, "assistant", "我建议项目统一用 uv 管理依赖"))
    assert kept(req, both, only_user, only_proposal) == ["项目统一用 uv 管理依赖"]


def test_confirmation_content_must_be_anchored_in_the_proposal() -> None:
    prior = turn(1, "依赖怎么管？", "我建议项目统一用 uv 管理依赖。")
    req = request(turn(2, "OK, let's do that."), prior=prior)
    c = cand(
        "project_decision",
        "Use Poetry",
        (1, "assistant", "我建议项目统一用 uv 管理依赖"),
        (2, "user", "OK, let's do that."),
    )
    assert kept(req, c) == []


def test_confirmation_needs_a_proposal_signal() -> None:
    prior = turn(1, "依赖怎么管？", "项目现在用 pip 安装依赖。")
    req = request(turn(2, "好的"), prior=prior)
    c = cand("project_decision", "用 pip 安装依赖", (1, "assistant", "项目现在用 pip 安装依赖"), (2, "user", "好的"))
    assert kept(req, c) == []


def test_confirmation_must_follow_the_proposal_directly() -> None:
    first = turn(1, "依赖怎么管？", "我建议项目统一用 uv 管理依赖。")
    between = turn(2, "再看看别的", "好的。")
    req = request(between, turn(3, "同意"), prior=first)
    c = cand(
        "project_decision", "统一用 uv 管理依赖", (1, "assistant", "我建议项目统一用 uv 管理依赖"), (3, "user", "同意")
    )
    assert kept(req, c) == []


def test_a_long_reply_is_not_a_short_confirmation() -> None:
    prior = turn(1, "依赖怎么管？", "我建议项目统一用 uv 管理依赖。")
    req = request(turn(2, "同意你说的有道理但是我还要想想"), prior=prior)
    c = cand(
        "project_decision", "统一用 uv 管理依赖", (1, "assistant", "我建议项目统一用 uv 管理依赖"), (2, "user", "同意")
    )
    assert kept(req, c) == []


def test_discussion_context_is_non_factual_and_needs_no_speech_act() -> None:
    req = request(turn(1, "我们在比较 FastAPI 和 Flask。"))
    result = validate_extraction(
        out(cand("discussion_context", "比较 FastAPI 和 Flask", (1, "user", "比较 FastAPI 和 Flask"))), req, LEX
    )
    (only,) = result.candidates
    assert only.kind is MemoryKind.DISCUSSION_CONTEXT and only.non_factual


def test_forgotten_evidence_cannot_form_a_candidate_again() -> None:
    req = request(
        turn(1, "以后先给结论。以后用中文回答。"),
        suppressed=(Source(turn_id=1, role=SourceRole.USER, quote="以后先给结论。"),),
    )
    assert kept(
        req,
        cand("user_preference", "先给结论", (1, "user", "以后先给结论")),
        cand("user_preference", "用中文回答", (1, "user", "以后用中文回答")),
    ) == ["用中文回答"]


def test_candidate_is_owned_by_the_job_of_its_newest_quoted_turn() -> None:
    req = request(turn(1, "以后先给结论。"), turn(2, "以后用中文回答。"))
    result = validate_extraction(
        out(cand("user_preference", "用中文回答", (2, "user", "以后用中文回答"), (1, "user", "以后先给结论"))), req, LEX
    )
    assert result.candidates[0].extraction_job_id == 102


def test_enclosing_sentence() -> None:
    text = "第一句。这次先这样，以后再说！最后"
    assert enclosing_sentence(text, "以后再说") == "这次先这样，以后再说！"
    assert enclosing_sentence("One. Two three. Four", "three") == "Two three."
    # A quote that ends its own sentence is not widened into the next one (issue 11, eighth round).
    assert (
        enclosing_sentence("别老给我贴免责声明了，烦。能不能直接说？", "别老给我贴免责声明了，烦。")
        == "别老给我贴免责声明了，烦。"
    )
    assert enclosing_sentence("Use ruff. Should we?", "Use ruff.") == "Use ruff."


def test_confirmation_needs_the_turn_right_before_even_inside_a_gapped_batch() -> None:
    # Turn 2 (the real predecessor of 3) is not in this batch (it waits for a retry): turn 1's proposal
    # must not be taken as the one confirmed.
    req = request(turn(1, "依赖怎么管？", "我建议项目统一用 uv 管理依赖。"), turn(3, "同意"))
    c = cand(
        "project_decision", "统一用 uv 管理依赖", (1, "assistant", "我建议项目统一用 uv 管理依赖"), (3, "user", "同意")
    )
    assert kept(req, c) == []


def test_scrubbing_forgotten_quotes_never_grows_the_compaction() -> None:
    """Issue 9.6: the compaction's 4,000-character bound (a CHECK in the schema) survives the scrub."""
    from autopatch_j.memory.validation import MAX_COMPACTION_CHARS, scrub_forgotten

    compaction = "好" * MAX_COMPACTION_CHARS
    scrubbed = scrub_forgotten(compaction, (Source(turn_id=1, role=SourceRole.ASSISTANT, quote="好"),))
    assert len(scrubbed) <= MAX_COMPACTION_CHARS and "好" not in scrubbed
