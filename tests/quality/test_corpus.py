"""The checkout's quality corpus (eval/corpus/): versioned, large enough, balanced zh/en, every category,
every reference sound."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autopatch_j.quality.corpus import (
    CATEGORIES,
    MIN_CASES,
    CorpusError,
    load_corpus,
    parse_corpus,
)


@pytest.fixture(scope="module")
def corpus_text() -> str:
    from autopatch_j.quality.corpus import DEV_FILE, CorpusFolder

    return CorpusFolder.of_checkout().file(DEV_FILE).read_text(encoding="utf-8")


#: The id prefix of each retired held-out part, in the order of `corpus.RETIRED` (issue 11).
RETIRED_PREFIXES = ("t-", *(f"h{n}-" for n in range(2, 11)), "h10b-", *(f"h{n}-" for n in range(11, 21)))


def test_bundled_corpus_is_valid_and_versioned() -> None:
    corpus = load_corpus()
    assert len(corpus.cases) >= MIN_CASES
    assert corpus.changelog[-1].version == corpus.version


def test_about_half_chinese_and_half_english() -> None:
    languages = load_corpus().languages()
    zh, en = languages.get("zh", 0), languages.get("en", 0)
    assert zh >= 35 and en >= 35
    assert abs(zh - en) <= 0.1 * (zh + en)


def test_every_category_has_cases_in_both_languages() -> None:
    corpus = load_corpus()
    for category in CATEGORIES:
        languages = {case.language for case in corpus.cases if case.category == category}
        assert languages, category
        if category != "mixed_language":
            assert {"zh", "en"} <= languages, category


def test_every_gold_quote_is_an_exact_substring(corpus_text: str) -> None:
    corpus = load_corpus()
    checked = 0
    for case in corpus.cases:
        for memory in case.memories:
            for source in memory.sources:
                assert source.quote in getattr(case.turns[source.turn], source.role)
                checked += 1
    assert checked >= 60


def test_confirmations_cite_the_proposal_and_the_confirmation() -> None:
    for case in load_corpus().cases:
        if case.category != "confirmation_with_proposal":
            continue
        roles = {source.role for memory in case.memories for source in memory.sources}
        assert roles == {"user", "assistant"}, case.id


def _first_source(raw):  # type: ignore[no-untyped-def]
    return raw["cases"][0]["memories"][0]["sources"][0]


def _mutate(text: str, mutate) -> str:  # type: ignore[no-untyped-def]
    raw = json.loads(text)
    mutate(raw)
    return json.dumps(raw, ensure_ascii=False)


@pytest.mark.parametrize(
    ("mutation", "message"),
    [
        (lambda raw: raw["cases"].__setitem__(slice(10, None), []), "at least"),
        (lambda raw: _first_source(raw).__setitem__("quote", "not in the turn"), "exact substring"),
        (lambda raw: raw["cases"][1].__setitem__("id", raw["cases"][0]["id"]), "duplicate case id"),
        (lambda raw: raw["cases"][0]["expect"].__setitem__("kinds", []), "differ from the active gold kinds"),
        (lambda raw: _first_source(raw).__setitem__("role", "assistant"), "without a user source"),
        (lambda raw: raw["cases"][0].__setitem__("unexpected", 1), "breaks its format"),
        (lambda raw: raw.__setitem__("version", "9.9.9"), "changelog"),
    ],
)
def test_a_broken_corpus_is_refused(corpus_text: str, mutation, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CorpusError, match=message):
        parse_corpus(_mutate(corpus_text, mutation))


def test_a_corpus_file_on_disk_loads(tmp_path: Path, corpus_text: str) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(corpus_text, encoding="utf-8")
    assert len(load_corpus(path).cases) == len(load_corpus().cases)


def test_the_dev_part_folds_in_every_retired_test_part() -> None:
    """Issue 11: each round's held-out part was measured once, then retired into dev, its figure
    in the changelog (t-* 80/96, h2-* 88/105, h3-* 82/105, h4-* 92/105, h5-* 82/105, h6-* 88/105, h7-* 84/105,
    h8-* 78/105, h9-* 68/105, h10-* 84/105, h10b-* 78/105, h11-* 89/105, h12-* 92/105, h13-* 85/105,
    h14-* 92/105, h15-* 82/105, h16-* 84/105, h17-* 91/105, h18-* 94/105, h19-* 88/105, h20-* 92/105)."""
    from autopatch_j.quality.corpus import RETIRED, CorpusFolder
    from autopatch_j.quality.parts import load_part

    folder = CorpusFolder.of_checkout()
    dev = load_part("dev", folder)
    ids = folder.part_case_ids("dev")
    assert list(ids) == ["corpus.json", *RETIRED]
    assert len(dev.cases) == sum(len(v) for v in ids.values()) == 120 + 96 + 105 * 20
    for name, prefix in zip(RETIRED, RETIRED_PREFIXES, strict=True):
        assert ids[name] == {case.id for case in dev.cases if case.id.startswith(prefix)}
        retired = parse_corpus(folder.file(name).read_text(encoding="utf-8"), min_cases=1)
        assert "Retired" in retired.changelog[-1].changes and RETIRED[name] in retired.changelog[-1].changes
