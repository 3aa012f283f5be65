"""The prefilter that skips a rule when the text lacks every literal it needs changes no result: on
every text the redaction tests and sets hold (three held-out sets, the family corpus, the forms and
look-alikes, the adversarial inputs, mixed case and non-ASCII text), `secret_spans` with the
prefilter finds exactly the spans it finds with every rule run."""

from __future__ import annotations

import dataclasses
import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from autopatch_j.cloud.redaction import RULES, secret_spans
from autopatch_j.cloud.secret_values import located
from tests.cloud import secret_corpus
from tests.cloud.redaction_inputs import NEW_FORMS, NEW_PATHS, NEW_SHAPES, QUADRATIC_BEFORE
from tests.cloud.test_redaction_forms import FORMS, LOOK_ALIKES

SETS = Path(__file__).resolve().parents[2] / "eval" / "secrets"
EVERY_RULE = tuple(dataclasses.replace(rule, needs=()) for rule in RULES)


def _texts() -> list[str]:
    texts = [text for _form, text, _pieces, _kept in FORMS] + list(LOOK_ALIKES)
    corpus = secret_corpus.build()
    texts += [case.text for case in corpus.secrets] + corpus.benign
    for name in ("s1", "s2", "s3"):
        doc = json.loads(gzip.decompress((SETS / name / "secrets.json.gz").read_bytes()))
        texts += [case["text"] for case in doc["secrets"] + doc["lookalikes"]]
    texts += [make(400) for make in {**QUADRATIC_BEFORE, **NEW_FORMS, **NEW_SHAPES, **NEW_PATHS}.values()]
    return texts


TEXTS = _texts()


def test_rules_name_their_literals_in_lowercase() -> None:
    assert any(rule.needs for rule in RULES)
    assert all(literal == literal.lower() and literal for rule in RULES for literal in rule.needs)


TRANSFORMS: list[Callable[[str], str]] = [str, str.upper, str.swapcase, lambda t: "İ" + t.replace(" ", " K ")]


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_the_prefilter_changes_no_span(transform: Callable[[str], str]) -> None:
    assert len(TEXTS) > 1000
    changed = [text for text in map(transform, TEXTS) if secret_spans(text) != secret_spans(text, EVERY_RULE)]
    assert changed == []


def test_a_rule_whose_literal_is_absent_is_skipped() -> None:
    only_github = tuple(rule for rule in RULES if rule.name == "github_token")
    token = "ghp_" + "Ab1" * 12
    assert secret_spans(f"x {token} y", only_github) == [(2, 2 + len(token))]
    # a rule that lies about its literal is skipped: the prefilter is what decides
    lying = tuple(dataclasses.replace(rule, needs=("nowhere",)) for rule in only_github)
    assert secret_spans(f"x {token} y", lying) == []


def test_a_located_search_finds_what_finditer_finds() -> None:

    pattern = re.compile(r"(?i)(?<![\w-])(?:token|pass\w*)[ \t]*+[:=][ \t]*+(?P<s>\S++)")
    texts = ["Token: A1 PASSWORD=b2 xtoken: c3 pass = d4", "İ token: e5", "TOKEN:TOKEN:f6", "", "token"]
    for text in texts:
        assert [m.span() for m in located(pattern, "token|pass")(text)] == [m.span() for m in pattern.finditer(text)]
