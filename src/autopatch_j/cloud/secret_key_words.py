"""What the words of a key or label say to the secret judge (`secret_judge.py`): the word lists of
`secret_judge_words.json` (words that name a secret, words that name no secret, token prefixes, in
English and Chinese; abbreviations that name a secret only as a key's last word — `cs`, `KS`, `sec`;
the negations that say a label's secret is absent — `没有密码`, `no password`) and a key split into its
words (`snake_case`, `camelCase`, `md5` and `type7` kept whole, a FIX tag's number read as its field
— `fix_554` is `fix` `password` —, a fused word split before the
secret's word it ends in: `requirepass` is `require` `pass`, `bindpw` is `bind` `pw`, `appsec` is
`app` `sec`, `PGPASSWORD` is `pg` `password`)."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

# a word with the digit that completes it stays one word: a hash's name (`md5`: `OSPF_MD5`) and an
# encryption type (`type7`: `vty_pass_type7`); a FIX tag named by its number (`fix_554`, `FIX925`)
# is one word too, read as the field the tag is
_WORD = re.compile(r"(?i:fix[_.-]?+[0-9]{2,4}+|md5|type[0-9])(?![0-9])|[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_FIX_TAG = re.compile(r"fix[_.-]?+(?P<tag>[0-9]{2,4}+)")
# the FIX tags whose value is a credential: 554 Password, 925 NewPassword, 1402 EncryptedPassword,
# 1404 EncryptedNewPassword (`secret_protocols` reads them in a message)
FIX_CREDENTIAL_TAGS = frozenset({"554", "925", "1402", "1404"})
# a key that names one of them by its number (`fix_554`), lowercase: `key_words_of` reads it as a
# password's key
FIX_PASSWORD_KEY = r"fix[_.-]?+(?:" + "|".join(sorted(FIX_CREDENTIAL_TAGS)) + r")(?![0-9])"


@dataclass(frozen=True)
class KeyLexicon:
    secret_en: frozenset[str]
    secret_zh: tuple[str, ...]
    benign_en: frozenset[str]
    benign_zh: tuple[str, ...]
    prefixes: tuple[str, ...]
    fused_suffixes: tuple[str, ...]  # secret words read at the end of a fused word, longest first
    key_abbreviations: frozenset[str] = frozenset()  # name a secret as a key's last word (`PARTNER_KS`)
    negations_en: frozenset[str] = frozenset()  # a word right before a secret's word says it is absent
    negations_zh: tuple[str, ...] = ()  # … right before a Chinese label (`没有密码`, `不含任何密钥`)
    # a vendor's own noun for a credential (`ticket`, `cert`, `master`, `serial`): as a key's last word
    # it makes the value judged by its shape, never a secret by the word alone
    credential_nouns: frozenset[str] = frozenset()
    # the members of a JSON Web Key that are public (`n`, `e`, `x`, `y`, …) and private (`d`, `k`, …)
    jwk_public_members: frozenset[str] = frozenset()
    jwk_private_members: frozenset[str] = frozenset()

    @classmethod
    def of(cls, data: dict[str, object]) -> KeyLexicon:
        known = {"secret_words", "benign_words", "prefixes", "key_abbreviations", "fused_abbreviations", "negations"}
        known |= {"credential_nouns", "jwk_public_members", "jwk_private_members"}
        if set(data) != known:
            raise ValueError(f"secret judge words: expected keys {sorted(known)}, got {sorted(data)}")
        secret, benign, negations = data["secret_words"], data["benign_words"], data["negations"]
        prefixes, abbreviations, fused_short = data["prefixes"], data["key_abbreviations"], data["fused_abbreviations"]
        if not isinstance(secret, dict) or not isinstance(benign, dict) or not isinstance(negations, dict):
            raise ValueError("secret judge words: secret_words, benign_words and negations map a language to words")
        nouns, public, private = data["credential_nouns"], data["jwk_public_members"], data["jwk_private_members"]
        if not (
            isinstance(prefixes, list)
            and isinstance(abbreviations, list)
            and isinstance(fused_short, list)
            and isinstance(nouns, list)
            and isinstance(public, list)
            and isinstance(private, list)
        ):
            raise ValueError("secret judge words: prefixes, abbreviations and credential nouns are lists of words")
        for table in (secret, benign, negations):
            if set(table) != {"en", "zh"}:
                raise ValueError("secret judge words: each word table has exactly the languages en and zh")
        fused = [w for w in secret["en"] if len(w) >= FUSED_SUFFIX] + list(fused_short)
        return cls(
            frozenset(secret["en"]),
            tuple(secret["zh"]),
            frozenset(benign["en"]),
            tuple(benign["zh"]),
            tuple(prefixes),
            tuple(sorted(set(fused), key=lambda w: (-len(w), w))),
            frozenset(abbreviations),
            frozenset(negations["en"]),
            tuple(sorted(negations["zh"], key=lambda w: (-len(w), w))),
            frozenset(nouns),
            frozenset(public),
            frozenset(private),
        )

    def names_secret_as_key(self, key_words: list[str]) -> bool:
        """The key's last word names a secret: a secret's word or an abbreviation of one. A last word
        of one letter after it says which of a pair or a set the value is (`KeyA`, `KEY_B_2`,
        `secret_x`): the word before it is the key's."""
        if len(key_words) >= 2 and len(key_words[-1]) == 1:
            key_words = key_words[:-1]
        return bool(key_words) and (key_words[-1] in self.secret_en or key_words[-1] in self.key_abbreviations)


@cache
def key_lexicon() -> KeyLexicon:
    text = resources.files("autopatch_j.cloud").joinpath("secret_judge_words.json").read_text(encoding="utf-8")
    return KeyLexicon.of(json.loads(text))


def key_words_of(key: str) -> list[str]:
    """The words of a key (`snake_case`, `camelCase`), a fused word that ends in a secret's word
    split before it (`requirepass`, `SSHPASS`, `deststorepass`: `…` `pass`), a FIX tag by its number
    read as its field (`fix_554`, `FIX925`: `fix` `password`; `fix_49`: `fix` `tag`)."""
    return list(_key_words(key))


@lru_cache(maxsize=4096)
def _key_words(key: str) -> tuple[str, ...]:
    """`key_words_of`, kept for the most recent keys (a text repeats its keys: `DB_PASSWORD=` on every line)."""
    out: list[str] = []
    for word in _WORD.findall(key):
        word = word.lower()
        tag = _FIX_TAG.fullmatch(word)
        if tag is not None:
            out += ["fix", "password" if tag.group("tag") in FIX_CREDENTIAL_TAGS else "tag"]
            continue
        suffix = _fused_suffix(word)
        out += [word[: -len(suffix)], suffix] if suffix else [word]
    return tuple(out)


FUSED_HEAD = 3  # letters a fused word holds before its secret word (`sshpass`; `bypass` is no key)
FUSED_LONG_HEAD = 2  # … before a secret word of `FUSED_LONG` letters or more (`PGPASSWORD`)
FUSED_LONG = 6
FUSED_SUFFIX = 4  # the shortest secret word read at the end of a fused one (`pass`, `auth`; not `key`)
FUSED_ABBREVIATION_HEAD = 2  # … before an abbreviation no word ends in (`htpw`, `appsec`)


def _fused_suffix(word: str) -> str | None:
    lexicon = key_lexicon()
    if word in lexicon.secret_en or word in lexicon.key_abbreviations:
        return None
    for suffix in lexicon.fused_suffixes:
        head = FUSED_ABBREVIATION_HEAD if len(suffix) < FUSED_SUFFIX else FUSED_HEAD
        if len(suffix) >= FUSED_LONG:
            head = FUSED_LONG_HEAD
        if word.endswith(suffix) and len(word) - len(suffix) >= head:
            return suffix
    return None


@cache
def _abbreviated_key() -> re.Pattern[str]:
    words = sorted(key_lexicon().key_abbreviations, key=lambda word: (-len(word), word))
    return re.compile(
        "(?:" + "|".join(map(re.escape, words)) + r")[\"'\]]?[ \t+]*+(?:[=:：＝|,]|=>|->|是|为)?[ \t+]*+[\"'`]?\Z"
    )


def ends_in_abbreviated_key(before: str) -> bool:
    """The lowercased text `before` a value ends in a key whose last word abbreviates a secret's
    words and its separator (`cs: `, `"partner_ks": "`): a cheap test, read in its last 16 characters."""
    return _abbreviated_key().search(before, max(0, len(before) - 16)) is not None


# a client's key is the one a browser or an app holds (a payment page's client key, OAuth's client
# key beside its client secret): publishable; a private key's PEM under it is read by the rules
_HELD_BY_CLIENTS = frozenset({"client"})


def benign_kind_of_key(key_words: list[str], lexicon: KeyLexicon) -> bool:
    """A `key` named by a word that says it is no secret's key (`public_key`, `object_key`,
    `client_key`), with no word before that one naming a secret: in `hmac_sha256_key` the
    digest's name says which HMAC the key is for, not what kind of key it is."""
    if len(key_words) < 2 or key_words[-1] != "key":
        return False
    if any(word in lexicon.secret_en and word != "key" for word in key_words[:-2]):
        return False
    return key_words[-2] in lexicon.benign_en or key_words[-2] in _HELD_BY_CLIENTS


# a key named by a field before a `value` field (`- name: X` and `value: …` on the next line, a JSON
# `{"name": "X", "value": "…"}`, a form body's or a query's `name=X&value=…`, a command's `-Name X
# -Value …`): the value is read under that name
PAIR_REACH = 160
_PAIR = re.compile(
    r"(?i:name|key)[\"']?[ \t]*+[:=][ \t]*+[\"']?(?P<name>[A-Za-z_][\w.-]{0,63}+)[\"']?[ \t]*+[,&]?[ \t]*+"
    r"(?:\r?\n[ \t]*+)?(?:-[ \t]*+)?[\"']?(?i:value)[\"']?[ \t]*+[:=][ \t]*+[\"'`]?\Z"
    # the same pair as a command's parameters (`-Name X -Value "…"`, `--key X --value …`)
    r"|(?<![\w-])--?(?i:name|key)[ \t]++[\"']?(?P<flag>[A-Za-z_][\w.-]{0,63}+)[\"']?"
    r"[ \t]++--?(?i:value)[ \t]++[\"'`]?\Z"
)
PAIR_WORDS = frozenset({"name", "key", "value"})
# the same pair read forwards, up to the `value` key: `paired_view` puts the name in its place
_PAIR_FIELDS = re.compile(
    r"(?<![\w-])(?i:name|key)[\"']?[ \t]*+[:=][ \t]*+[\"']?(?P<name>[A-Za-z_][\w.-]{0,63}+)[\"']?[ \t]*+[,&]?[ \t]*+"
    r"(?:\r?\n[ \t]*+)?(?:-[ \t]*+)?[\"']?(?i:value)(?=[\"']?[ \t]*+[:=])"
)

# what stands between a pair's `value` word and its value: an operator and an opening quote
_PAIR_VALUE_OPENING = re.compile(r"[\"']?[ \t]*+[:=][ \t]*+[\"']?")


def paired_view(view: str) -> tuple[str, list[int]] | None:
    """`view` with each `name`/`value` pair written as the name's own field: `{"name": "X", "value":
    "…"}` reads `{"X": "…"}`, `name=X&value=…` reads `X=…`, `- name: X` over `value: …` reads `- X:
    …`, so the key-word rules read the value under its name as they read `X=…`; with the index of
    each view character in `view` (and one trailing entry for the end). None without a pair."""
    parts: list[str] = []
    index: list[int] = []
    pos = 0
    matches = list(_PAIR_FIELDS.finditer(view))
    # a pair whose value is the next pair holds no value of its own, and the inner pair sits where a
    # value belongs: both are read as the plain text they are
    nested: set[int] = set()
    for n, (match, after) in enumerate(itertools.pairwise(matches)):
        if _PAIR_VALUE_OPENING.fullmatch(view, match.end(), after.start()):
            nested |= {n, n + 1}
    for n, match in enumerate(matches):
        if n in nested:
            continue
        parts += [view[pos : match.start()], match.group("name")]
        index += [*range(pos, match.start()), *range(match.start("name"), match.end("name"))]
        pos = match.end()
    if not parts:
        return None
    parts.append(view[pos:])
    index += [*range(pos, len(view)), len(view)]
    return "".join(parts), index


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
# a header of names in any script (`User Name,Access Key Id`, `系统,环境,账号,口令`)
_CSV_HEADER = re.compile(
    r"(?<![\w .-])[A-Za-z\u3400-\u9fff][\w .-]{0,40}+(?:,[A-Za-z\u3400-\u9fff][\w .-]{0,40}+){1,15}\Z"
)
# a table of settings: a column of values beside a column naming each (`…,字段,值,…` over `…,s3.sk,<value>,…`)
_VALUE_HEADERS = frozenset({"值", "value", "val"})
_NAME_HEADERS = frozenset({"字段", "键", "键名", "配置项", "参数", "变量", "key", "field", "name", "setting"})


def _csv_header(view: str, start: int) -> str | None:
    """The header cell above a value in a CSV row (`User Name,Access Key Id,Secret Access Key` over
    `ci,AKIA…,<secret>`, `系统,环境,账号,口令`): the line before ends in as many fields as the row
    has, all names (what comes before them on that line, such as the JSON a tool's output sits in,
    is no field). Under a column of values beside a column that names them (`字段,值`), the name
    in the value's row."""
    line_start = view.rfind("\n", max(0, start - CSV_LINE_MAX), start) + 1
    if line_start == 0:
        return None
    line_end = view.find("\n", start, start + CSV_LINE_MAX)
    head_start = view.rfind("\n", max(0, line_start - 1 - CSV_LINE_MAX), line_start - 1) + 1
    found = _CSV_HEADER.search(view[head_start : line_start - 1].rstrip("\r"))
    if found is None:
        return None
    row = view[line_start : len(view) if line_end == -1 else line_end]
    names = found.group().split(",")
    if row.count(",") != len(names) - 1:
        return None
    name = names[view.count(",", line_start, start)]
    if name.strip().lower() in _VALUE_HEADERS:
        column = next((i for i, cell in enumerate(names) if cell.strip().lower() in _NAME_HEADERS), None)
        if column is not None:
            return row.split(",")[column].strip() or name
    return name


# a value assigned to a variable that is later handed where a secret goes (`ZENODO=<value>` and, a
# few lines on, `?access_token=$ZENODO`, `Authorization: Bearer ${ZENODO}`): read under that key
HAND_REACH = 320
_ASSIGNED_VARIABLE = re.compile(r"(?<![\w$.{-])(?P<name>[A-Za-z_][A-Za-z0-9_]{1,63}+)=\Z")
_HANDED_TO = re.compile(
    r"(?P<key>[A-Za-z_][\w.-]{0,40}+)[\"']?[ \t]*+(?:[=:][ \t]*+(?:[A-Za-z]{2,10}+[ \t]++)?|[ \t]++)[\"']?\Z"
)


def _handed_to(view: str, start: int) -> str | None:
    """The secret's key a variable assigned the value at `start` is handed to later on (within
    `HAND_REACH` characters), if any."""
    found = _ASSIGNED_VARIABLE.search(view, max(0, start - 65), start)
    if found is None:
        return None
    name = found.group("name")
    limit = min(len(view), start + HAND_REACH)
    for reference in ("$" + name, "${" + name + "}"):
        at = view.find(reference, start, limit)
        while at != -1:
            after = at + len(reference)
            if after >= len(view) or not (view[after].isalnum() or view[after] == "_"):
                key = _HANDED_TO.search(view, max(0, at - 48), at)
                if key is not None and key_lexicon().names_secret_as_key(key_words_of(key.group("key"))):
                    return key.group("key")
            at = view.find(reference, after, limit)
    return None


# a Markdown table's cell under its column's header (`| 系统 | appKey |` over `| 门户 | <value> |`)
TABLE_REACH = 8  # rows above a value's, up to its table's first
TABLE_LINE_MAX = 512
_CELL_START = re.compile(r"\|[ \t]{0,4}+\Z")
_HEADER_CELL = re.compile(r"[A-Za-z\u3400-\u9fff][\w .:()（）-]{0,40}+")
_RULE_ROW = re.compile(r"[ \t>│┃#+]*+\|?[ \t]*+:?-{3,}[-:| \t]*+")


def _table_header(view: str, start: int) -> str | None:
    """The header above a value that starts a Markdown table's cell: the cell of the table's first
    row (`_header_row`) with as many `|` before it as the value has on its line, when the cell is no
    column of values (`| setting | value |`: the row's own cell names it). A row cut across lines
    is read whole in the joined view."""
    found = _header_row(view, start)
    if found is None:
        return None
    name = found[0][found[1]].strip()
    return None if name.lower() in _VALUE_HEADERS else name or None  # `| key | value |`: the row names it


def values_column(view: str, start: int) -> str | None:
    """The header of the column of values (`| 系统 | 负责人 | 值 |`, `| service | value |`) whose
    Markdown table cell the value at `start` starts, when no column names each value (`| setting |
    value |`: the row's name is the value's label): the table says where the value stands and the
    header is its label; the cell before it is another column (an owner, a date), no key."""
    found = _header_row(view, start) if start and view[start - 1] in " \t|" else None
    if found is None or found[0][found[1]].strip().lower() not in _VALUE_HEADERS:
        return None
    if any(cell.strip().lower() in _NAME_HEADERS for cell in found[0]):
        return None
    return found[0][found[1]].strip()


def _header_row(view: str, start: int) -> tuple[list[str], int] | None:
    """The cells of the first row of the Markdown table whose cell the value at `start` starts (the
    top of the run of lines holding a `|` above the value's, at most `TABLE_REACH`; a `|---|` rule
    between them is no row) and the index of the value's column in them (as many `|` before it as
    the value has on its line), when every cell of that row reads as a name (a row of values is no
    header)."""
    if _CELL_START.search(view, max(0, start - 5), start) is None:
        return None
    line_start = view.rfind("\n", max(0, start - TABLE_LINE_MAX), start) + 1
    column = view.count("|", line_start, start)
    if line_start == 0 or column == 0:
        return None
    header = None
    end = line_start - 1
    for _ in range(TABLE_REACH):
        begin = view.rfind("\n", max(0, end - TABLE_LINE_MAX), end) + 1
        line = view[begin:end].rstrip("\r")
        if "|" not in line:
            break
        if _RULE_ROW.fullmatch(line) is None:
            header = line
        if begin == 0:
            break
        end = begin - 1
    if header is None:
        return None
    cells = header.split("|")
    if len(cells) <= column:
        return None
    names = [cell.strip() for cell in cells[1:] if cell.strip()]
    if not names or any(_HEADER_CELL.fullmatch(name) is None for name in names):
        return None
    return cells, column


def named_key(view: str, start: int) -> str | None:
    """The name a `name`/`key` field gives the `value` field right before `start`, the name of the
    environment variable whose default the value is, the header of a CSV column or of a Markdown
    table's column, or the secret's key the variable assigned the value is handed to later, if any."""
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
    if start and view[start - 1] == "=":
        return _handed_to(view, start)
    if start and view[start - 1] in " \t|":
        return _table_header(view, start)
    return None
