"""How a hit matched (memory/matching.py): the Latin keys read without the segmenter are exactly the
keys of a value's Latin words and identifiers, so reading them first never changes a label."""

from __future__ import annotations

import json
from pathlib import Path

from autopatch_j.memory.matching import keysets_of, latin_keys, match_of, probes_of, value_keys
from autopatch_j.memory.terms import normalize
from autopatch_j.memory.text import has_cjk

ROOT = Path(__file__).resolve().parents[2]
TEXTS = [
    "Deploy with helm（部署用 helm）",
    "用 pip-tools 锁定 requirements.txt 的版本",
    "建議統一用 snake_case 命名 API 欄位",
    "⼀次部署 v2.3.1 到 staging",  # a Kangxi radical the fold makes CJK
    "ＰＹＴＨＯＮ 3.12 と pytest",
]


def _memory_texts() -> list[str]:
    found: list[str] = []
    for path in sorted((ROOT / "eval" / "realistic" / "dev").glob("*/*.json"))[:40]:
        for session in json.loads(path.read_text(encoding="utf-8"))["sessions"]:
            found += [text for memory in session["memories"] for text in (memory["title"], memory["content"])]
    return found


def test_the_latin_keys_are_the_value_keys_that_hold_no_cjk_in_order() -> None:
    texts = [normalize(text) for text in (*TEXTS, *_memory_texts())]
    assert len(texts) > 1_000 and sum(map(has_cjk, texts)) > 300
    for text in texts:
        assert latin_keys(text) == tuple(key for key in value_keys(text) if not has_cjk(key)), text


def test_a_chinese_key_still_labels_a_hit_by_its_words() -> None:
    values = [normalize("部署前先跑测试 deploy"), normalize("helm chart")]
    for keys, label in (
        (frozenset({"部署"}), "words"),
        (frozenset({"deploy"}), "words"),
        (frozenset({"k8s"}), "content"),
    ):
        assert match_of("部署 问题", keys, probes_of(keys), values) == label


def test_keysets_label_every_hit_as_the_values_tokenized_on_the_search_path() -> None:
    """A hit labelled from its values' kept key sets (`keysets_of`) gets the label of the path that
    tokenizes the values holding a probe — also where a stem is no prefix of its word (dying → die)."""
    texts = [normalize(text) for text in (*TEXTS, *_memory_texts()[:400], "dying builds", "ugly hacks")]
    queries = ["deploy", "部署", "die", "ugli", "requirements.txt", "python test", "版本 api", "hack", "build"]
    labels = set()
    for n, text in enumerate(texts):
        values = (text, texts[n - 1])
        for query in queries:
            keys = frozenset(value_keys(normalize(query)))
            probes = probes_of(keys)
            plain = match_of(normalize(query), keys, probes, values)
            assert match_of(normalize(query), keys, probes, values, keysets=keysets_of(values)) == plain, (
                query,
                values,
            )
            labels.add(plain)
    assert {"words", "content"} <= labels
