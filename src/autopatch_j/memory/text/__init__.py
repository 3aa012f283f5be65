"""The text layer of Memory: one fold, one tokenizer, one CJK range, for search and extraction.

- `fold`: NFKC, casefold and Traditional Chinese characters to Simplified — the only case, width and
  script folding (`ＰＹＴＨＯＮ` = `python`, `建議統一` = `建议统一`; the character table `t2s.txt` is
  generated from OpenCC by `scripts/build_t2s.py`).
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
#: `has_cjk` as an SQLite GLOB pattern (SQLite compares a class's ranges by code point).
CJK_GLOB = f"*[{CJK.encode('ascii').decode('unicode_escape')}]*"
#: Identifiers, paths and versions: ASCII letters/digits joined by `_ . / -` (after the fold).
IDENTIFIER = re.compile(r"[0-9a-z]+(?:[._/\-]+[0-9a-z]+)+")

TokenKind = Literal["identifier", "word", "cjk"]


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    kind: TokenKind
    part: bool = False  # a word inside an identifier ("pip" of "pip-tools")


def fold(text: str) -> str:
    """NFKC, casefold, then each Traditional Chinese character as its Simplified one: the one folding of
    every text Memory compares (one character for one, so positions in the fold are the RAW text's
    wherever NFKC keeps them)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return folded if folded.isascii() else folded.translate(_simplified())


@functools.cache
def _simplified() -> dict[int, str]:
    """The character table of `t2s.txt` (read on the first text that is not ASCII)."""
    from importlib import resources

    table: dict[int, str] = {}
    for line in resources.files(__name__).joinpath("t2s.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            table[ord(line[0])] = line[1]
    return table


def has_cjk(text: str) -> bool:
    return _HAS_CJK.search(text) is not None


def tokens(
    text: str, *, folded: bool = False, search_mode: bool = True, question_words: tuple[str, ...] = ()
) -> Iterator[Token]:
    """The tokens of `text` in order: identifiers whole (then their parts as words), Latin words, and
    the words of each CJK run (segment.words: with `search_mode`, a long word's shorter words too;
    without it, the run cut at `question_words` first)."""
    text = text if folded else fold(text)
    if "." not in text and "_" not in text and "/" not in text and "-" not in text:
        yield from _plain(text, search_mode, question_words)  # no identifier: it joins by one of these
        return
    position = 0
    for match in IDENTIFIER.finditer(text):
        yield from _plain(text[position : match.start()], search_mode, question_words)
        yield _token(match.group(), "identifier")
        for part in _plain(match.group(), search_mode, question_words):
            yield _token(part.text, part.kind, True)
        position = match.end()
    yield from _plain(text[position:], search_mode, question_words)


def _plain(text: str, search_mode: bool, question_words: tuple[str, ...]) -> Iterator[Token]:
    for match in TOKEN.finditer(text):
        run = match.group("cjk")
        if run is None:
            yield _token(match.group(), "word")
        else:
            for word in _segmenter()(run, search_mode=search_mode, question_words=question_words):
                yield _token(word, "cjk")


#: Tokens are values: one instance per (text, kind, part) serves every text that holds it.
_token = functools.lru_cache(maxsize=16384)(Token)


@functools.cache
def _segmenter() -> Callable[..., tuple[str, ...]]:
    """segment.words, imported on the first CJK run (the module loads the segmenter on first use)."""
    from autopatch_j.memory.text.segment import words

    return words
