"""The text layer's one fold (memory/text/__init__.py): width, case and Chinese script."""

from __future__ import annotations

from importlib import resources

from hypothesis import given
from hypothesis import strategies as st

from autopatch_j.memory.sentences import fold as sentence_fold
from autopatch_j.memory.text import fold


def test_traditional_characters_fold_to_simplified_and_simplified_stay() -> None:
    assert fold("建議以後 DTO 一律用 record") == "建议以后 dto 一律用 record"
    assert fold("建议以后统一") == "建议以后统一"
    assert fold("ＰＹＴＨＯＮ 設定") == "python 设定"


def test_the_extractors_fold_is_the_text_layers_with_plain_apostrophes() -> None:
    assert sentence_fold("Let’s 統一") == "let's 统一"


@given(st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), max_size=40))
def test_the_fold_keeps_one_character_for_one_on_chinese_text(text: str) -> None:
    assert len(fold(text)) == len(text)


def test_the_table_holds_one_pair_per_line_of_two_different_han_characters() -> None:
    lines = resources.files("autopatch_j.memory.text").joinpath("t2s.txt").read_text("utf-8").splitlines()
    assert lines[0].startswith("# OpenCC")
    pairs = lines[1:]
    assert len(pairs) > 2000
    assert all(len(p) == 2 and p[0] != p[1] and not p.isascii() for p in pairs)
    assert len({p[0] for p in pairs}) == len(pairs)
