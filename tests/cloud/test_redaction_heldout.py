"""The held-out secrets sets `eval/secrets/s1`, `s2` and `s3` (each written by an author who never saw the
rules; measured once, tuning material since) meet the targets: recall ≥ 99 % in every form (plain,
JSON-escaped, URL-encoded, wrapped, quoted, Chinese-labelled) and false positives ≤ 2 % on its
look-alikes. Scored exactly as `bench/secret_heldout.py` scores it: a secret is caught when none of
its `must_not_contain` pieces is left, a look-alike is a false positive when it changes at all."""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.cloud.redaction import redact

# each set is read and scored once (module fixture) (docs/testing.md)
pytestmark = pytest.mark.xdist_group("redaction-heldout")

SETS = Path(__file__).resolve().parents[2] / "eval" / "secrets"


@pytest.fixture(scope="module", params=["s1", "s2", "s3"])
def doc(request: pytest.FixtureRequest) -> dict[str, Any]:
    return json.loads(gzip.decompress((SETS / request.param / "secrets.json.gz").read_bytes()))


FORMS = ("plain", "json_escaped", "url_encoded", "wrapped", "quoted", "zh_labelled")


@pytest.mark.parametrize("form", FORMS)
def test_recall_per_form_is_at_least_99_percent(doc: dict[str, Any], form: str) -> None:
    cases = [c for c in doc["secrets"] if c["form"] == form]
    assert len(cases) >= 30
    missed = [c["id"] for c in cases if any(piece in redact(c["text"]) for piece in c["must_not_contain"])]
    assert (len(cases) - len(missed)) / len(cases) >= 0.99, missed


def test_false_positives_at_most_2_percent(doc: dict[str, Any]) -> None:
    looks = doc["lookalikes"]
    assert len(looks) >= 50
    flagged = [c["id"] for c in looks if redact(c["text"]) != c["text"]]
    assert len(flagged) / len(looks) <= 0.02, flagged


def test_every_family_is_in_every_form(doc: dict[str, Any]) -> None:
    forms: dict[str, set[str]] = defaultdict(set)
    for case in doc["secrets"]:
        forms[case["family"]].add(case["form"])
    assert forms and all(found == set(FORMS) for found in forms.values())
