"""What the words of a key or label say to the secret judge (`secret_judge.py`): the word lists of
`secret_judge_words.json` (words that name a secret, words that name no secret, token prefixes, in
English and Chinese) and a key split into its words (`snake_case`, `camelCase`, a fused word split
before the secret's word it ends in: `requirepass` is `require` `pass`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


@dataclass(frozen=True)
class KeyLexicon:
    secret_en: frozenset[str]
    secret_zh: tuple[str, ...]
    benign_en: frozenset[str]
    benign_zh: tuple[str, ...]
    prefixes: tuple[str, ...]
    fused_suffixes: tuple[str, ...]  # secret words read at the end of a fused word, longest first

    @classmethod
    def of(cls, data: dict[str, object]) -> KeyLexicon:
        known = {"secret_words", "benign_words", "prefixes"}
        if set(data) != known:
            raise ValueError(f"secret judge words: expected keys {sorted(known)}, got {sorted(data)}")
        secret, benign, prefixes = data["secret_words"], data["benign_words"], data["prefixes"]
        if not isinstance(secret, dict) or not isinstance(benign, dict) or not isinstance(prefixes, list):
            raise ValueError("secret judge words: secret_words and benign_words map a language to words")
        for table in (secret, benign):
            if set(table) != {"en", "zh"}:
                raise ValueError("secret judge words: each word table has exactly the languages en and zh")
        fused = sorted((w for w in secret["en"] if len(w) >= FUSED_SUFFIX), key=lambda w: (-len(w), w))
        return cls(
            frozenset(secret["en"]),
            tuple(secret["zh"]),
            frozenset(benign["en"]),
            tuple(benign["zh"]),
            tuple(prefixes),
            tuple(fused),
        )


@cache
def key_lexicon() -> KeyLexicon:
    text = resources.files("autopatch_j.cloud").joinpath("secret_judge_words.json").read_text(encoding="utf-8")
    return KeyLexicon.of(json.loads(text))


def key_words_of(key: str) -> list[str]:
    """The words of a key (`snake_case`, `camelCase`), a fused word that ends in a secret's word
    split before it (`requirepass`, `SSHPASS`, `deststorepass`: `…` `pass`)."""
    return list(_key_words(key))


@lru_cache(maxsize=4096)
def _key_words(key: str) -> tuple[str, ...]:
    """`key_words_of`, kept for the most recent keys (a text repeats its keys: `DB_PASSWORD=` on every line)."""
    out: list[str] = []
    for word in _WORD.findall(key):
        word = word.lower()
        suffix = _fused_suffix(word)
        out += [word[: -len(suffix)], suffix] if suffix else [word]
    return tuple(out)


FUSED_HEAD = 3  # letters a fused word holds before its secret word (`sshpass`; `bypass` is no key)
FUSED_SUFFIX = 4  # the shortest secret word read at the end of a fused one (`pass`, `auth`; not `key`)


def _fused_suffix(word: str) -> str | None:
    lexicon = key_lexicon()
    if word in lexicon.secret_en:
        return None
    for suffix in lexicon.fused_suffixes:
        if word.endswith(suffix) and len(word) - len(suffix) >= FUSED_HEAD:
            return suffix
    return None


def benign_kind_of_key(key_words: list[str], lexicon: KeyLexicon) -> bool:
    """A `key` named by a word that says it is no secret's key (`public_key`, `object_key`)."""
    return len(key_words) >= 2 and key_words[-1] == "key" and key_words[-2] in lexicon.benign_en


# a key named by a field before a `value` field (`- name: X` and `value: …` on the next line, a JSON
# `{"name": "X", "value": "…"}`): the value is read under that name
PAIR_REACH = 160
_PAIR = re.compile(
    r"(?i:name|key)[\"']?[ \t]*+[:=][ \t]*+[\"']?(?P<name>[A-Za-z_][\w.-]{0,63}+)[\"']?[ \t]*+,?[ \t]*+"
    r"(?:\r?\n[ \t]*+)?(?:-[ \t]*+)?[\"']?(?i:value)[\"']?[ \t]*+[:=][ \t]*+[\"'`]?\Z"
)
PAIR_WORDS = frozenset({"name", "key", "value"})


def named_key(view: str, start: int) -> str | None:
    """The name a `name`/`key` field gives the `value` field right before `start`, if any."""
    if "alue" not in view[max(0, start - 12) : start]:
        return None
    found = _PAIR.search(view, max(0, start - PAIR_REACH), start)
    return found.group("name") if found else None
