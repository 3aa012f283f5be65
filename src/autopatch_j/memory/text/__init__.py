"""The text layer of Memory: one fold, one tokenizer, one CJK range, for search and extraction.

- `fold`: NFKC and casefold — the only case/width folding (`ＰＹＴＨＯＮ` = `python`); `simplified`:
  Traditional Chinese characters as Simplified (`什麼` = `什么`), for search's terms.
- `CJK`: the CJK character class (kana, CJK ideographs and their extensions/compatibility forms,
  Hangul), written once here.
- `tokens`: the tokens of a text in order — identifiers, paths and versions whole (`snake_case`,
  `src/app.py`, `3.10`, `pip-tools`), Latin words, and CJK runs split into the words they contain by
  a segmenter (`segment.py`, loaded only when a text holds CJK).
- `languages.py`: the language registry (which script a token is in, its filler words as data).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

#: Kana, CJK ideographs (with extension A and compatibility forms), Hangul syllables.
CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
TOKEN = re.compile(f"(?P<cjk>[{CJK}]+)|(?P<word>[^\\W_{CJK}]+)", re.UNICODE)
_HAS_CJK = re.compile(f"[{CJK}]")
#: Identifiers, paths and versions: ASCII letters/digits joined by `_ . / -` (after the fold).
IDENTIFIER = re.compile(r"[0-9a-z]+(?:[._/\-]+[0-9a-z]+)+")

TokenKind = Literal["identifier", "word", "cjk"]


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    kind: TokenKind
    part: bool = False  # a word inside an identifier ("pip" of "pip-tools")


def fold(text: str) -> str:
    """NFKC, then casefold: the one folding of every text Memory compares (`ＰＹＴＨＯＮ` = `python`)."""
    return unicodedata.normalize("NFKC", text).casefold()


def simplified(text: str) -> str:
    """`text` with each Traditional Chinese character as its Simplified form (`traditional.txt`, read
    on the first text that is not ASCII): what search's terms are made of, so that `什麼設定` and
    `什么设定` are the same words."""
    return text if text.isascii() else text.translate(_simplified())


@functools.cache
def _simplified() -> dict[int, str]:
    """Each Traditional character's Simplified form (scripts/build_traditional.py, from OpenCC)."""
    from importlib import resources

    raw = resources.files("autopatch_j.memory.text").joinpath("traditional.txt").read_text(encoding="utf-8")
    pairs = (line.split("\t") for line in raw.splitlines() if line and not line.startswith("#"))
    return {ord(t): s for t, s in pairs}


def has_cjk(text: str) -> bool:
    return _HAS_CJK.search(text) is not None


def tokens(text: str, *, folded: bool = False, search_mode: bool = True) -> Iterator[Token]:
    """The tokens of `text` in order: identifiers whole (then their parts as words), Latin words, and
    the words of each CJK run (segment.words: with `search_mode`, a long word's shorter words too)."""
    text = text if folded else fold(text)
    position = 0
    for match in IDENTIFIER.finditer(text):
        yield from _plain(text[position : match.start()], search_mode)
        yield _token(match.group(), "identifier")
        for part in _plain(match.group(), search_mode):
            yield _token(part.text, part.kind, True)
        position = match.end()
    yield from _plain(text[position:], search_mode)


def _plain(text: str, search_mode: bool) -> Iterator[Token]:
    for match in TOKEN.finditer(text):
        run = match.group("cjk")
        if run is None:
            yield _token(match.group(), "word")
        else:
            for word in _segmenter()(run, search_mode=search_mode):
                yield _token(word, "cjk")


#: Tokens are values: one instance per (text, kind, part) serves every text that holds it.
_token = functools.lru_cache(maxsize=16384)(Token)


@functools.cache
def _segmenter() -> Callable[..., tuple[str, ...]]:
    """segment.words, imported on the first CJK run (the module loads the segmenter on first use)."""
    from autopatch_j.memory.text.segment import words

    return words
