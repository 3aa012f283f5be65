"""The learned secret judge beside the rules: its data files refuse unknown keys, candidates and their
context, what it accepts and overrules, and that redaction with it stays idempotent on every tuning
text. That `scripts/train_secret_judge.py` reproduces the shipped weights is `scripts/check_refits.py`'s
check (the fingerprint of its inputs in the suite, the full refit in CI)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from autopatch_j.cloud.redaction import findings, redact, secret_spans
from autopatch_j.cloud.secret_judge import (
    CONTEXT,
    ScoreMemo,
    SecretJudge,
    candidates,
    features,
    shipped_judge,
)
from autopatch_j.cloud.secret_key_words import KeyLexicon

ROOT = Path(__file__).resolve().parents[2]
WEIGHTS = ROOT / "src" / "autopatch_j" / "cloud" / "secret_judge_weights.json"


def test_word_tables_refuse_unknown_keys_and_languages() -> None:
    good = {
        "secret_words": {"en": [], "zh": []},
        "benign_words": {"en": [], "zh": []},
        "negations": {"en": [], "zh": []},
        "prefixes": [],
        "key_abbreviations": [],
        "fused_abbreviations": [],
        "credential_nouns": [],
        "jwk_public_members": [],
        "jwk_private_members": [],
    }
    KeyLexicon.of(good)
    with pytest.raises(ValueError, match="expected keys"):
        KeyLexicon.of({**good, "stop_words": []})
    with pytest.raises(ValueError, match="languages"):
        KeyLexicon.of({**good, "secret_words": {"en": [], "fr": []}})
    with pytest.raises(ValueError, match="languages"):
        KeyLexicon.of({**good, "negations": {"en": []}})
    with pytest.raises(ValueError, match="lists of words"):
        KeyLexicon.of({**good, "credential_nouns": {"en": ["ticket"]}})
    with pytest.raises(ValueError, match="lists of words"):
        KeyLexicon.of({**good, "jwk_private_members": "d"})


def test_weights_refuse_unknown_keys_and_round_trip() -> None:
    with pytest.raises(ValueError, match="threshold, veto and weights"):
        SecretJudge.from_json('{"threshold": 0.5, "veto": 0.1, "weights": {}, "extra": 1}')
    judge = shipped_judge()
    assert SecretJudge.from_json(judge.to_json()) == judge
    assert 0.0 < judge.veto < judge.threshold < 1.0


def test_candidates_are_runs_with_a_digit_or_capital_and_skip_redacted() -> None:
    text = "plain words only, then key=Ab3dEf9h and [REDACTED] and lower123run"
    found = [text[c.start : c.end] for c in candidates(text)]
    assert found == ["Ab3dEf9h", "lower123run"]


def test_context_stops_at_the_previous_candidate_so_redacting_twice_changes_nothing() -> None:
    text = "password Xq7Lm2Zp9Rt4 then Vb8Kw3Nc6Hy1"
    first, second = list(candidates(text))
    assert second.context_start == first.end
    assert next(candidates("x " * 100 + "Ab3dEf9h")).context_start == 200 - CONTEXT


def test_context_reads_key_words_and_chinese_labels() -> None:
    english = "DB_PASSWORD=Xq7Lm2Zp9Rt4"
    assert {"key_secret", "assigned_to_secret", "k:password"} <= features(english, 12, len(english)).keys()
    chinese = "数据库口令是 Xq7Lm2Zp9Rt4"
    assert {"zh_secret", "sep:zh_is"} <= features(chinese, chinese.index("X"), len(chinese)).keys()


def test_shape_features_name_digests_uuids_versions_and_paths() -> None:
    def shape(value: str) -> set[str]:
        return set(features(value, 0, len(value)))

    assert {"hex", "hex_digest"} <= shape("a98ba4eee8671133cdf4778989d70ea75d953a48")
    assert "uuid" in shape("f65be8e2-7de5-43fc-ba74-8684a428188f")
    assert "version" in shape("v2.14.0")
    assert "path" in shape("/usr/local/bin/tool")


def test_judge_accepts_a_value_after_a_secret_label_and_not_an_identifier() -> None:
    judge = shipped_judge()
    secret = "pgpass: db.example:5432:app:svc:Wq8-zR3mKx7Lp2"
    code = "password_field = forms.CharField"
    assert judge.score(secret, secret.index("Wq8"), len(secret), source="token") >= judge.threshold
    assert judge.score(code, code.index("forms"), len(code), source="token") < judge.threshold


def test_a_placeholder_or_a_value_without_context_is_never_accepted() -> None:
    judge = shipped_judge()
    for text in ("token: YOUR_TOKEN_HERE", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"):
        start = text.rindex(" ") + 1
        assert judge.score(text, start, len(text), source="token") == 0.0
    digest = "build Zq8Kx3Vb7Nm2Lp5Rt9 done"
    assert judge.score(digest, 6, 22, source="token") == 0.0


def test_a_judge_that_accepts_nothing_leaves_the_rules_alone() -> None:
    silent = SecretJudge({}, threshold=1.1, veto=0.0)
    text = "api_key=abc123XYZ and $ docker login -u ci -p Zt8qLw2Vn5xKr3"
    assert secret_spans(text, judge=silent) == [(8, 17)]
    assert {f.kind for f in findings(text)} >= {"keyword", "token"}


def _redact_with(text: str, judge: SecretJudge | None) -> str:
    return redact(text, judge=judge)


_TWICE_UNSTABLE = pytest.mark.xfail(
    strict=True,
    reason="an s6 text (a form-encoded `password+%3D`) redacts differently twice with the judge; the "
    "rules alone are stable",
)


@pytest.mark.parametrize(
    "author",
    [
        "s1", "s2", "s3", "s4", "s5", pytest.param("s6", marks=_TWICE_UNSTABLE), "s8", "s9", "s10", "s11", "s12",
        "measured/s13", "measured/s14", "measured/s15",
    ],
)  # fmt: skip
def test_the_judge_makes_no_tuning_text_redact_differently_twice(author: str) -> None:
    """Redacting a second time changes nothing the rules alone would leave unchanged (one text of
    s2, a Rust `String::from("…")` under a key, the rules alone already read twice), on every set."""
    doc = json.loads(gzip.decompress((ROOT / "eval" / "secrets" / author / "secrets.json.gz").read_bytes()))
    texts = [case["text"] for case in doc["secrets"] + doc["lookalikes"]]
    silent = SecretJudge({}, threshold=1.1, veto=0.0)

    def redacted(judge: SecretJudge | None) -> list[str]:
        return [_redact_with(text, judge) for text in texts]

    def unstable(once: list[str], judge: SecretJudge | None) -> set[int]:
        # redaction is a function of its text: one the first pass left as it was reads the same again
        return {i for i, text in enumerate(once) if text != texts[i] and _redact_with(text, judge) != text}

    shipped, rules_alone = redacted(None), unstable(redacted(silent), silent)
    assert unstable(shipped, None) <= rules_alone
    assert len(rules_alone) <= 1
    assert [redact(text) for text in texts[:20]] == shipped[:20]


def test_a_value_cut_at_an_equals_sign_reads_the_same_after_redaction() -> None:
    """`4U~we=[REDACTED]` is no padded token `4U~we=`: the mark stands for the characters it
    replaced, so the second pass judges what the first did (an s5 text, with s9 in training)."""
    text = "消息推送后台 admin 账号：密码（4U~we=1agY.a*8）\n有效期到月底。"
    once = redact(text)
    assert redact(once) == once


def test_digits_assigned_to_a_secret_key_stay_secret_and_a_measure_stays() -> None:
    """Digits straight after a secret's key are a numeric secret whatever their entropy, but one
    character repeated is a fill (`secret_values.placeholder`); a measure is named by its key's last
    word (`…_ITERATIONS`, `…_ROUNDS`), which the judge reads as no secret."""
    assert redact("config apikey: 000000000017 end") == "config apikey: [REDACTED] end"
    assert redact("config apikey: 000000000000 end") == "config apikey: 000000000000 end"
    for text in ("PASSWORD_HASH_ITERATIONS=600000", "bcrypt password_rounds: 12"):
        assert redact(text) == text


def test_a_memo_of_scores_answers_as_scoring_each_finding_does() -> None:
    """A memo keys a score by the window `score` reads (`READ_BEHIND`, `READ_AHEAD`): lines that
    repeat with another pair name or another next field still get their own score."""
    lines = [
        "DB_PASSWORD=Ab3dEf9h",
        "- name: API_TOKEN" + " " * 60 + "# rotated token\n  value: Zq8Kx3Vb7Nm2",
        "- name: IMAGE_TAG" + " " * 60 + "# rotated token\n  value: Zq8Kx3Vb7Nm2",
        'x Xy7Kp2Lm   password="abc"',
        'x Xy7Kp2Lm   colour="abc"',
        "build Zq8Kx3Vb7Nm2Lp5Rt9 done",
        "密码是 Ab3dEf9h",
        "h:5432:d:u:Xy7Kp2Lm",
    ]
    filler = "\n" + "plain words here " * 12 + "\n"  # the same history before every line
    text = filler.join(lines[i % len(lines)] for i in range(64))
    judge = shipped_judge()
    found = [f for f in findings(text) if f.kind != "rule"]
    memo: ScoreMemo = {}
    scored = [judge._score_of(f, memo) for f in found]
    assert scored == [judge.score(f.view, *f.at, f.context_start, source=f.kind) for f in found]
    assert len(set(scored)) > 4 and 0 < len(memo) < len(found) / 4


@pytest.mark.parametrize(
    "text",
    [
        'pub const BILLING_API_KEY: &str = r#"Kx8Qm2Vz7Lp4Wn9Rt3Yc6Hb1"#;',
        'pub const BILLING_API_KEY: &\'static str = "Kx8Qm2Vz7Lp4Wn9Rt3Yc6Hb1";',
        "    billing_api_key: str = b'Kx8Qm2Vz7Lp4Wn9Rt3Yc6Hb1'",
    ],
)
def test_context_reads_the_key_of_a_typed_constant_and_a_prefixed_string(text: str) -> None:
    """A type between the key and ` = ` and a string prefix (`r#"`, `b'`) before the quote: the value
    is assigned to the key's words, not to the type's."""
    start = text.index("Kx8")
    found = features(text, start, start + 24)
    assert {"assigned_to_secret", "k:api", "k:key", "sep:equals"} <= found.keys()
    assert "k:str" not in found


def test_context_keeps_a_name_after_a_colon_when_no_type_is_written() -> None:
    text = "env: API_TOKEN = Kx8Qm2Vz7Lp4Wn9Rt3Yc6Hb1"
    assert {"k:api", "k:token"} <= features(text, text.index("Kx8"), len(text)).keys()


def test_a_value_inside_a_json_member_s_text_reads_its_own_label_not_the_member_s_key() -> None:
    inside = '{"kind": "tool_result", "stdout": "relay up\nrip_md5: "Vb2xMq7kLs9"\n"}'
    at = inside.index("Vb2")
    read = features(inside, at, at + 11)
    assert {"k:rip", "k:md5"} <= read.keys()
    assert not read.keys() & {"w:stdout", "w:kind", "w:tool", "w:result"}
    member = '{"kind": "tool_result", "password": "Vb2xMq7kLs9"}'
    at = member.index("Vb2")
    assert {"k:password", "w:result"} <= features(member, at, at + 11).keys()
