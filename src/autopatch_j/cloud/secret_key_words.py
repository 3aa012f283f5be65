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
# `{"name": "X", "value": "…"}`, a command's `-Name X -Value …`): the value is read under that name
PAIR_REACH = 160
_PAIR = re.compile(
    r"(?i:name|key)[\"']?[ \t]*+[:=][ \t]*+[\"']?(?P<name>[A-Za-z_][\w.-]{0,63}+)[\"']?[ \t]*+,?[ \t]*+"
    r"(?:\r?\n[ \t]*+)?(?:-[ \t]*+)?[\"']?(?i:value)[\"']?[ \t]*+[:=][ \t]*+[\"'`]?\Z"
    # the same pair as a command's parameters (`-Name X -Value "…"`, `--key X --value …`)
    r"|(?<![\w-])--?(?i:name|key)[ \t]++[\"']?(?P<flag>[A-Za-z_][\w.-]{0,63}+)[\"']?"
    r"[ \t]++--?(?i:value)[ \t]++[\"'`]?\Z"
)
PAIR_WORDS = frozenset({"name", "key", "value"})


# a literal that is the default of an environment lookup is read under the variable's name
# (`os.environ.get("AC_PASSWORD", "…")`, `process.env.WANDB_API_KEY ?? "…"`, `ENV['X'] ||= '…'`,
# `${DB_PASSWORD:-…}`): the value is what the variable holds when it is unset
ENV_REACH = 96
_ENV_NAME = r"([A-Za-z_][\w.-]{0,63}+)"
_ENV_DEFAULT = re.compile(
    rf"(?:(?:environ\.get|getenv|Getenv|env\.fetch|ENV\.fetch|env)[ \t]*+\([ \t]*+[\"']{_ENV_NAME}[\"'][ \t]*+,"
    rf"|(?:process\.env|import\.meta\.env)\.{_ENV_NAME}[ \t]*+(?:\?\?|\|\|)"
    rf"|(?:ENV|environ)\[[\"']{_ENV_NAME}[\"']\][ \t]*+(?:\|\|=?|\?\?|or\b|\.fetch))[ \t]*+[\"'`]\Z"
    rf"|\$\{{{_ENV_NAME}:?-\Z"
)


CSV_LINE_MAX = 512
_CSV_HEADER = re.compile(r"[A-Za-z][A-Za-z0-9 _.-]{0,40}+(?:,[A-Za-z][A-Za-z0-9 _.-]{0,40}+){1,15}")


def _csv_header(view: str, start: int) -> str | None:
    """The header cell above a value in a CSV row (`User Name,Access Key Id,Secret Access Key` over
    `ci,AKIA…,<secret>`): the line before has the same number of fields, all names."""
    line_start = view.rfind("\n", max(0, start - CSV_LINE_MAX), start) + 1
    if line_start == 0:
        return None
    line_end = view.find("\n", start, start + CSV_LINE_MAX)
    head_start = view.rfind("\n", max(0, line_start - 1 - CSV_LINE_MAX), line_start - 1) + 1
    header = view[head_start : line_start - 1].rstrip("\r")
    if _CSV_HEADER.fullmatch(header) is None:
        return None
    row = view[line_start : len(view) if line_end == -1 else line_end]
    names = header.split(",")
    if row.count(",") != len(names) - 1:
        return None
    return names[view.count(",", line_start, start)]


def named_key(view: str, start: int) -> str | None:
    """The name a `name`/`key` field gives the `value` field right before `start`, the name of the
    environment variable whose default the value is, or the header of a CSV column, if any."""
    before = view[max(0, start - 12) : start]
    if "alue" in before:
        found = _PAIR.search(view, max(0, start - PAIR_REACH), start)
        if found:
            return found.group("name") or found.group("flag")
    if start and view[start - 1] == ",":
        header = _csv_header(view, start)
        if header:
            return header
    if start and view[start - 1] in "\"'`-":
        found = _ENV_DEFAULT.search(view, max(0, start - ENV_REACH), start)
        if found:
            return next(name for name in found.groups() if name)
    return None
