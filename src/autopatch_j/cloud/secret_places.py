"""Where a candidate secret value stands on the page, for the secret judge (`secret_judge.py`) (C-24).

* **announced**: the value is alone on its line (after at most a quoted reply's or a box's gutter,
  `> `, `│ `) and the line before it (after at most one blank line) ends in a colon — a heading of
  one word (`Output:`) announces a block, not a value —, is a shell command that names a secret
  (`$ kubectl … jsonpath='{.data.password}' | base64 -d`, a root prompt's `]# base64 -w0
  …/jwt_hs256.key`) or ends in a Chinese copula and names a secret (`用的 API Secret就是` /
  `> <value>`); `names_a_secret` says whether that line names one
  (`Password for the elastic user (…):`; not after a negation: `这里面没有密码：`). **printed**: the
  value is the last field of the line a command prints when it prints a file whose path names a
  secret (`$ cat ~/.davfs2/secrets` over `<url> <user> <value>`).
* **a request header's value** given on a command line (`curl -H 'X-Svc: <value>'`, `header_value`).
* **a call's argument** (`call_argument`): a quoted literal among the arguments of an open call
  (`Client("…", "…")`), with the words of the calls' names.
* **a URL query's value** (`?uid=…&t=<value>`, `QUERY_KEY`) and whether the URL's path names a
  secret (`/auth/magic`, `/login`: `url_path_names_secret`) or the field's whole value is one
  token that reads random whatever its name (`&lz_at=<value>&…`: `query_random`).
* **a literal assigned in code** (`code_literal`): the value is a whole string literal, in any
  language's quotes (`"…"`, `'…'`, a backquote, a triple quote, `r#"…"#`, `@"…"`, `q{…}`,
  `%q(…)`, `[[…]]`), assigned to a name (`=`, `?=`, `:=`, `||=`, `<-`) or defined as a constant
  (`#define NAME …`, `define('NAME', …)`), holding no space, no URL, no login at a host and no
  fields of a connection string (whose parts the rules read); not an attribute inside a markup tag.
* **stated in prose** (`stated`): the value follows an English copula (`… the string pasted from
  the console was <value>`, `the new one is <value>`, quoted or not), so a sentence that names no
  secret still hands the judge a value to weigh by its shape and the words around it;
  **presented** (`presented`): the value follows a colon that ends a clause of prose (three words
  or more, or Chinese text: `… do not copy it anywhere else: <value>`) and ends its line or sentence.
* **the next field** after it (`next_key_secret`): assigned to a secret's key (`username="…"
  password="…"`: a value paired with a secret is often its key id), or the value is written into
  a file named for a secret (`echo '…' > ~/.vault_pass`).
* **a request's signature** (`signed_request`): the value of a `sign`/`signature` field among a
  request's fields, one of which names the signature's algorithm or the request's time
  (`…&sign=<hex>&signType=MD5`, `"signature": "…", "sign_method": "HMAC-SHA256"`,
  `…&timestamp=…&sign=<hex>`): computed from the request, which anyone who sees it holds, not the
  key that signed it.
* **a label naming an identifier** (`names_an_identifier`): a Chinese word for one (`证书指纹`,
  `订单号`), also before a copula (`退款单号是：`), or an English one before a copula (`commit为：`,
  `事件 ID是：`, not a key's id: `密钥 ID为：`).
* **a label's aside** (`benign_aside`): a bracketed aside closing the label that holds a word naming
  no secret (`clientKey（前端公开）：`, `key id (public):`): the label says what the value is.
* **fields of a colon-separated line** before it (`colon_fields`: `host:port:db:user:<value>`, a
  `.pgpass` line), counting no colon of a clock time (a log line's `…T21:07:43+08:00`) nor of an
  identifier that starts with a number (`1:<project number>:web:…`).
* **a Chinese label** before it (`zh_secret`): a copula (`是`, `值为`) names a secret only as the
  connector right before the value, so `这是输出` (this is the output) a line above a digest names
  nothing, nor after a word that names something else (`指纹是 …`: the fingerprint is …); a label
  right after a negation (`不含任何密钥`, `没有密码`) says the secret is absent.

Each reads a bounded window before the value (a line of at most `ANNOUNCE_REACH` characters, the
URL on the value's line), so the judge stays linear.
"""

from __future__ import annotations

import re

from autopatch_j.cloud.secret_key_words import KeyLexicon, benign_kind_of_key, key_lexicon, key_words_of
from autopatch_j.cloud.secret_sinks import APP_ID_ARGUMENT, callees
from autopatch_j.cloud.secret_values import looks_random

__all__ = [
    "AHEAD",
    "ANNOUNCE_REACH",
    "CALL_LITERAL_MIN",
    "IDENTIFIER",
    "QUERY_KEY",
    "announced",
    "benign_aside",
    "call_argument",
    "code_literal",
    "colon_fields",
    "header_value",
    "names_a_secret",
    "names_an_identifier",
    "next_key_secret",
    "presented",
    "printed",
    "public_label",
    "query_random",
    "quoted_literal",
    "signed_request",
    "stated",
    "url_path_names_secret",
    "zh_secret",
]

_ASCII_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,40}")
_CJK = re.compile(r"[\u3400-\u9fff]")

QUERY_KEY = re.compile(r"[?&][A-Za-z_][\w.-]{0,31}+=\Z")
_URL_PATH = re.compile(r"//[^\s/?#]{1,255}+(?P<path>/[^\s?#]{0,255}+)?\?")


# a clock time and a zone offset (`21:07:43`, `04:11:27,311`, `+08:00`): a timestamp's colons, no fields
_CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?![\d:])|[+-]\d{2}:\d{2}(?![\d:])")
_FIELD_RUN = re.compile(r"[^\s\"'`]*+\Z")


def colon_fields(line: str) -> bool:
    """The `line` before a value holds three or more colons that no blank follows, outside a clock
    time (a log line's timestamp), with no `//` (`host:port:db:user:`, a `.pgpass` line), and the
    colon-separated run before the value does not start with a bare number (a Firebase app id
    `1:<project number>:web:…`, a version: an identifier's fields)."""
    bare = _CLOCK.sub("", line) if ":" in line else line
    if bare.count(":") - bare.count(": ") < 3 or "//" in line:
        return False
    run = _FIELD_RUN.search(line)
    return run is None or not run.group().split(":", 1)[0].isdigit()


# the key right after a value (`username="…" password="…"`, `USER=… PASS=…`)
AHEAD = 40
_NEXT_KEY = re.compile(r"[\"']?[ \t,;&，、]{1,3}+[\"']?(?P<key>[^\s=:：\"']{1,32}?)[\"']?[ \t]*+(?:[=:：]|是|为)")


# a value written into a file (`echo '…' > ~/.vault_pass`, `>> .pgpass`): the file's name is its key
_INTO_FILE = re.compile(r"[\"']?[ \t]*+>>?[ \t]*+(?:[^\s/;&|<>]{0,32}/){0,4}(?P<key>[^\s/;&|<>]{1,32})")


def next_key_secret(view: str, end: int) -> bool:
    """The next field after `end` (within `AHEAD` characters) is assigned to a secret's key, or the
    value is written into a file whose name names a secret."""
    limit = min(len(view), end + AHEAD)
    found = _NEXT_KEY.match(view, end, limit) or _INTO_FILE.match(view, end, limit)
    if found is None:
        return False
    lexicon = key_lexicon()
    key = found.group("key")
    words = key_words_of(key)
    return (bool(words) and words[-1] in lexicon.secret_en) or any(word in key for word in lexicon.secret_zh)


# a request's signature (`sign=`, `"signature": "`) and a field of the same request naming its
# algorithm or the time it was signed at (a marketplace API's `timestamp=…&sign=<hex>`: the server
# signs the path and the time again and refuses a stale one)
_SIGN_KEY = re.compile(r"(?i)(?<![\w.-])(?:sign|signature)[\"']?[ \t]*+[=:][ \t]*+[\"']?\Z")
_SIGN_ALGORITHM = re.compile(
    r"(?i)[&;,?\s\"'](?:(?:sign|signature)[_-]?(?:type|method|alg(?:orithm)?)|timestamp)[\"']?[ \t]*+[=:]"
)
SIGNED_REACH = 160


def signed_request(view: str, start: int, end: int) -> bool:
    """The value at `start`–`end` is a request's `sign`/`signature` field and a field naming its
    algorithm or its `timestamp` stands within `SIGNED_REACH` characters on either side, on the same
    line: a digest of one request, not a key (a link signed to stay valid until it `expires` is
    none of these)."""
    if _SIGN_KEY.search(view, max(0, start - 16), start) is None:
        return False
    low = max(view.rfind("\n", max(0, start - SIGNED_REACH), start) + 1, start - SIGNED_REACH)
    high = view.find("\n", end, end + SIGNED_REACH)
    high = min(len(view), end + SIGNED_REACH) if high == -1 else high
    return _SIGN_ALGORITHM.search(view, low, high) is not None


_FIELD_END = frozenset("&#\"' \t\r\n")
# one token of a query's value: no blank a `+` may stand for, no path, no escape left; not hex alone
_QUERY_TOKEN = re.compile(r"(?![0-9a-fA-F]++\Z)[A-Za-z0-9_.~|=-]++")
# or standard base64 with its padding (`gz/ETk…s5I=`): a `/` in it is no path's, a path ends in no `=`
_PADDED_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4}){4,}+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)")


def query_random(view: str, start: int, end: int) -> bool:
    """The value at `start`–`end` of a URL query's or a form body's field (the caller knows it is
    one: `QUERY_KEY`) is the field's whole value (up to the next `&`, a blank, a quote or the end)
    and one token that reads random (`looks_random`; not hex alone, a digest's or an id's alphabet),
    whatever the field's name (`?lz_at=…`, `&xendit=…`); padded base64 (`_PADDED_BASE64`) is one
    token too."""
    if end < len(view) and view[end] not in _FIELD_END:
        return False
    token = _QUERY_TOKEN.fullmatch(view, start, end) or _PADDED_BASE64.fullmatch(view, start, end)
    return token is not None and looks_random(view[start:end])


# a bracketed aside that closes a label, right before its separator (`clientKey（前端公开）：`)
_ASIDE = re.compile(r"[（(](?P<words>[^（）()\n]{1,24}+)[）)][ \t]*+\Z")


def benign_aside(label: str, lexicon: KeyLexicon) -> bool:
    """`label` (the text before a value's separator) ends in a bracketed aside holding a benign word
    (`（公开）`, `(public)`, `（示例）`, `（资源 ID）`) and neither a secret's word nor a negation (`(API
    token, not its id)`, `（不是应用 ID）`): the label says the value is public or an example."""
    aside = _ASIDE.search(label[-40:])
    if aside is None:
        return False
    words = aside.group("words")
    english = [w for token in _ASCII_WORDS.findall(words) for w in key_words_of(token)]
    if any(w in lexicon.secret_en or w in lexicon.negations_en for w in english):
        return False
    if any(w in words for w in lexicon.secret_zh) or any(w in words for w in lexicon.negations_zh):
        return False
    return any(w in lexicon.benign_en for w in english) or any(w in words for w in lexicon.benign_zh)


# what closes a label line before the value it shows: blanks, quotes and a colon
_LABEL_CLOSE = " \t\"'`:："


def public_label(label: str, lexicon: KeyLexicon) -> bool:
    """`label` — the line that announces a value on the next line, or the clause before the colon
    that presents it — names an identifier (`names_an_identifier`: `统一社会信用代码：`) or ends in an
    aside saying what the value is (`benign_aside`: `存储账户（资源 ID）：`, `key (public):`)."""
    head = label[-PRESENT_REACH:].rstrip(_LABEL_CLOSE)
    return bool(head) and (names_an_identifier(head, lexicon) or benign_aside(head, lexicon))


# a copula closing a label (`订单号是：`, `commit为：`); a Chinese label ending in `号` names a number
# or an account (`订单号`, `序列号`, `提交号`, `账号`)
_ZH_COPULA_END = re.compile(r"[ \t]*+[是为]\Z")
_ZH_NUMBER = "号"
_KEY_ID_OF = frozenset({"key", "secret"})


def names_an_identifier(label: str, lexicon: KeyLexicon) -> bool:
    """`label` (the text before a value's separator) names an identifier, not a secret: it ends in a
    Chinese word for one (`统一社会信用代码`, `证书指纹`, `提交号`), also before a copula
    (`退款单号是`), or, before a copula, in an English word for one that names no key's id
    (`commit为`, `事件 ID是`; `密钥 ID为` and `key ID是` name the id written beside a key)."""
    copula = _ZH_COPULA_END.search(label)
    head = label if copula is None else label[: copula.start()]
    if _CJK.search(head[-1:]) and head.endswith((*lexicon.benign_zh, _ZH_NUMBER)):
        return True
    tokens = _ASCII_WORDS.findall(head[-40:])
    if copula is None or not tokens or not head.endswith(tokens[-1]):
        return False
    words = key_words_of(tokens[-1])
    if not words or words[-1] not in lexicon.benign_en:
        return False
    if words[-1] != "id":
        return True
    before = head[: len(head) - len(tokens[-1])].rstrip(" \t")
    named = key_words_of(tokens[-2]) if len(tokens) >= 2 and before.endswith(tokens[-2]) else []
    owner = words[-2] if len(words) >= 2 else named[-1] if named else ""
    return owner not in _KEY_ID_OF and not any(before.endswith(word) for word in lexicon.secret_zh if len(word) >= 2)


# a JSON member's name right before its value (`"n": "`), and a JSON Web Key's key type
_MEMBER = re.compile(r"[{,][ \t\n]*+(?P<q>[\"'])(?P<name>[A-Za-z0-9_]{1,8}+)(?P=q)[ \t]*+:[ \t]*+(?P=q)\Z")
_KEY_TYPE = re.compile(r"([\"'])kty\1[ \t]*+:")
JWK_REACH = 160


def jwk_member(view: str, start: int, end: int, lexicon: KeyLexicon) -> str | None:
    """`public` or `private` when `view[start:end]` is the value of a member of a JSON Web Key in an
    object that names its key type (`"kty":`, or `'kty':` in a Python dict's text, within
    `JWK_REACH` characters before the value in the same object, or `AHEAD` after it; the member's
    name and value in one kind of quotes): a public member (`"n"`, `"e"`, `"x"` …,
    `jwk_public_members`) anyone may read, a private one (`"d"`, `"p"`, `"k"` …,
    `jwk_private_members`) a secret; None for any other value."""
    member = _MEMBER.search(view, max(0, start - 16), start)
    if member is None:
        return None
    name = member.group("name")
    public, private = name in lexicon.jwk_public_members, name in lexicon.jwk_private_members
    kind = "public" if public else "private" if private else None
    if kind is None:
        return None
    floor = max(0, start - JWK_REACH)
    opened = view.rfind("{", floor, start)
    if opened != -1 and _KEY_TYPE.search(view, opened, start) is not None:
        return kind
    after = view[end : end + AHEAD]
    closed = after.find("}")
    return kind if _KEY_TYPE.search(after if closed == -1 else after[:closed]) is not None else None


# a bracketed aside after a label, up to its separator (`口令哈希（sha256，不是口令本身）：`)
_LABEL_ASIDE = re.compile(r"[（(][^（）()\n]{1,40}+[）)][ \t]*+[:：=][ \t]*+\Z")
ASIDE_REACH = 96


def digest_before_aside(view: str, start: int, lexicon: KeyLexicon) -> bool:
    """The label of the value at `start` (on its line, at most `ASIDE_REACH` characters) ends in a
    bracketed aside after a word that names an identifier (`用户的口令哈希（sha256，不是口令本身）：`,
    `password hash (sha256, not the password itself):`): the value is what that word names — a
    hash, a digest, a fingerprint —, whatever secret word the label or the aside holds."""
    floor = max(0, start - ASIDE_REACH)
    line = view[max(floor, view.rfind("\n", floor, start) + 1) : start]
    aside = _LABEL_ASIDE.search(line)
    if aside is None:
        return False
    head = line[: aside.start()].rstrip(" \t")
    if names_an_identifier(head, lexicon):
        return True
    tokens = _ASCII_WORDS.findall(head[-40:])
    words = key_words_of(tokens[-1]) if tokens and head.endswith(tokens[-1]) else []
    return bool(words) and words[-1] in lexicon.benign_en and words[-1] != "id"


def url_path_names_secret(before: str, lexicon: KeyLexicon) -> bool:
    """The URL whose query holds the value has a path word that names a secret (`/auth/`, `/login`)."""
    at = before.rfind("://")
    if at == -1 or "\n" in before[at:]:
        return False
    found = _URL_PATH.match(before, at + 1)
    if found is None or not found.group("path"):
        return False
    words = (w for token in _ASCII_WORDS.findall(found.group("path")) for w in key_words_of(token))
    return any(w in lexicon.secret_en for w in words)


ANNOUNCE_REACH = 160
# a line that announces the value on the next line ends in `:` (or is a shell command naming a
# secret); the value's line holds nothing else — it ends there, or where the JSON string that
# carried the lines closes (`…initialAdminPassword\n<value>"}` of a decoded tool result, also when
# the JSON is printed over several lines: `<value>"\n}`)
_LINE_REST = re.compile(r"[ \t]*+(?:\r?\n|\Z|\"(?=[ \t\r\n]*+[,}\]]|\Z))")
_ANNOUNCING_END = re.compile(r"[:：][ \t]*+\Z")
# a Chinese copula closing a line (`用的 API Secret 就是` / `> <value>`): the line names the value on
# the next line when it also names a secret
_ZH_COPULA_LINE_END = re.compile(r"[是为][ \t]*+\Z")
# a quoted reply's or a box's gutter before the value on its line (`> `, `>> `, `│ `)
_QUOTE_GUTTER = re.compile(r"[ \t]{0,16}+(?:[>│┃|][ \t]?){1,3}+[ \t]*+\Z")
# a log's record prefix, a service's name before `|` (docker compose: `jenkins  | `), which the line
# announcing the value starts with too
_RECORD_PREFIX = re.compile(r"[A-Za-z][\w.-]{0,40}+[ \t]*+\|[ \t]*+")
# a short label of prose before the value on its line (`New value: `, `Generated: `): one or two
# words, the first capitalised, then a colon
_PROSE_LABEL = re.compile(r"[ \t]*+[A-Z][a-z]{1,15}+(?: [a-z]{1,15}+)?:[ \t]++")
# a line that ends a sentence (`Password for the [elastic] user successfully reset.`)
_SENTENCE_END = re.compile(r"[A-Za-z)\]][.!。][ \t\r]*+\Z")


def announced(view: str, start: int, end: int) -> str | None:
    """The line before `view[start:end]` (after at most one blank line, within `ANNOUNCE_REACH`
    characters) when the value is alone on its line — after at most a quoted reply's or a box's
    gutter (`> `, `│ `), or after a log's record prefix that the line before starts with too
    (`jenkins  | `, one empty record between allowed; that line must name a secret) — and that
    line ends in a colon (two words or more, or a secret's word), is
    a shell command (`$ …`, a root prompt's `]# …`) naming a secret, or ends in a Chinese copula
    and names a secret: the value it prints, asks for or states (`Password for the elastic user:` /
    `  +r3i…`, `$ kubectl … jsonpath='{.data.password}' | base64 -d` / `HMGu…`, `it wrapped like
    this:` / `<value>`, `用的 API Secret 就是` / `> <value>`). Also the line before a value after a
    short label of prose (`New value: <value>`) when that line is a sentence naming a secret
    (`Password for the [elastic] user successfully reset.`). None otherwise."""
    line_start = view.rfind("\n", max(0, start - 64), start) + 1
    lead = view[line_start:start]
    if line_start == 0 or _LINE_REST.match(view, end) is None:
        return None
    record = ""  # a log's record prefix every line repeats (`jenkins  | `)
    labelled = False  # after a short label of prose (`New value: `)
    if lead.strip(" \t") and _QUOTE_GUTTER.match(lead) is None:
        if _PROSE_LABEL.fullmatch(lead) is not None:
            labelled = True
        elif _RECORD_PREFIX.fullmatch(lead) is None:
            return None
        else:
            record = lead.rstrip(" \t")
    prev_end = line_start - 1
    if prev_end <= 0:
        return None
    if view[prev_end - 1 : prev_end] == "\n":  # one blank line between
        prev_end -= 1
    prev_start = view.rfind("\n", max(0, prev_end - ANNOUNCE_REACH), prev_end) + 1
    previous = view[prev_start:prev_end]
    if labelled:  # a sentence naming a secret, then the labelled value: `… successfully reset.` / `New value: …`
        return previous if _SENTENCE_END.search(previous) is not None and names_a_secret(previous) else None
    if record:
        if previous.rstrip(" \t\r") == record and prev_start > 1:  # one empty record between
            prev_end = prev_start - 1
            prev_start = view.rfind("\n", max(0, prev_end - ANNOUNCE_REACH), prev_end) + 1
            previous = view[prev_start:prev_end]
        if not previous.startswith(record) or not names_a_secret(previous[len(record) :]):
            return None  # a log's records often end in a colon: only one naming a secret announces
        previous = previous[len(record) :]
    if _ANNOUNCING_END.search(previous) is not None and (
        len(_ASCII_WORDS.findall(previous)) >= 2 or _CJK.search(previous) or names_a_secret(previous)
    ):
        return previous  # a heading of one word (`Output:`, `Result:`) announces a block, not a value
    if ("$ " in previous or "]# " in previous) and names_a_secret(previous):
        return previous  # a command that reads a secret (`git rev-parse HEAD` prints none), also as root
    if _ZH_COPULA_LINE_END.search(previous) is not None and _CJK.search(previous) and names_a_secret(previous):
        return previous  # `飞书应用用的 App Secret 就是` / `> <value>`
    return None


# a shell prompt, then a command that prints a file, and the file's path
_PRINTS_FILE = re.compile(
    r"(?:^|[^\w$#])[$#] (?:sudo[ \t]++)?(?:cat|head|tail|more|less|type|Get-Content)[ \t]++(?:-[\w-]++[ \t]++)*+"
    r"(?P<path>[^\s|;&<>]++)"
)


def printed(view: str, start: int, end: int) -> str | None:
    """The command line right before the line `view[start:end]` ends (a blank before the value) when
    it prints a file whose path names a secret (`$ cat ~/.davfs2/secrets` over `<url> <user>
    <value>`): the value is the last field of that file's line. Reads at most `ANNOUNCE_REACH`
    characters of each line."""
    if _LINE_REST.match(view, end) is None or view[start - 1 : start] not in (" ", "\t"):
        return None
    line_start = view.rfind("\n", max(0, start - ANNOUNCE_REACH), start) + 1
    if line_start == 0:
        return None
    prev_start = view.rfind("\n", max(0, line_start - 1 - ANNOUNCE_REACH), line_start - 1) + 1
    previous = view[prev_start : line_start - 1]
    command = _PRINTS_FILE.search(previous)
    if command is None or not names_a_secret(command.group("path")):
        return None
    return previous


# a request header's value given on a command line (`curl -H 'X-Svc-Auth: …'`, `--header "…: …"`)
_HEADER_OPTION = re.compile(r"(?<![\w-])(?:-H|--header)[ \t=]++[\"']?[A-Za-z][\w-]{0,40}+:[ \t]*+\Z")


def header_value(view: str, start: int) -> bool:
    """The value at `start` is a request header's, given with `-H`/`--header` (reads 64 characters)."""
    return _HEADER_OPTION.search(view, max(0, start - 64), start) is not None


def names_a_secret(line: str) -> bool:
    """A line holds a word or Chinese label that names a secret (a copula alone is none), not right
    after a negation (`这里面没有密码：`, `no password in this output:`)."""
    lexicon = key_lexicon()
    if any(_unnegated(line, word, lexicon.negations_zh) for word in lexicon.secret_zh if word not in _ZH_COPULAS):
        return True
    tokens = _ASCII_WORDS.findall(line)
    return any(
        w in lexicon.secret_en and (i == 0 or tokens[i - 1].lower() not in lexicon.negations_en)
        for i, token in enumerate(tokens)
        for w in key_words_of(token)
    )


# a here-string: the text a shell gives a command on its standard input (`cmd <<< '…'`)
_HERE_STRING = re.compile(r"<<<[ \t]*+[\"']?\Z")
HERE_REACH = 120


def fed_on_stdin(view: str, start: int) -> bool:
    """The value at `start` is a here-string given to a command whose line (at most `HERE_REACH`
    characters of it) names a secret (`sign.sh --passphrase-stdin <<< '…'`, `login --password-stdin
    <<< …`): the command reads the secret from its input."""
    if _HERE_STRING.search(view, max(0, start - 8), start) is None:
        return False
    floor = max(0, start - HERE_REACH)
    return names_a_secret(view[max(floor, view.rfind("\n", floor, start) + 1) : start])


def _unnegated(text: str, word: str, negations: tuple[str, ...], start: int = 0) -> bool:
    """`word` occurs in `text` (from `start`) at least once not right after one of `negations`
    (`没有密码`, `不含任何密钥`: the label says its secret is absent)."""
    at = text.find(word, start)
    while at != -1:
        if not text.endswith(negations, 0, at):
            return True
        at = text.find(word, at + 1)
    return False


# a copula (`token 是 …`, `值为 …`) names a secret only as the connector right before the value:
# `这是输出` (this is the output) a line before a digest names nothing
_ZH_COPULAS = frozenset({"是", "值是", "值为"})
_ZH_OPENERS = " \t\"'`「“【([（『‘〔:：=＝"


def zh_secret(
    tail: str, words: tuple[str, ...], benign: tuple[str, ...] = (), negations: tuple[str, ...] = (), lead: str = ""
) -> bool:
    """A Chinese secret word in `tail` (the text right before a value) not right after one of
    `negations` (`不含任何密钥`, read back into `lead`, the text before `tail`); a copula only at its
    end, and not after a word of `benign` (`指纹是 …`: the fingerprint is …)."""
    bare = tail.rstrip(_ZH_OPENERS)
    for word in words:
        if word not in _ZH_COPULAS:
            if word in tail and (not negations or _unnegated(lead[-8:] + tail, word, negations, len(lead[-8:]))):
                return True
        elif bare.endswith(word) and not bare[: len(bare) - len(word)].endswith(benign or ("\0",)):
            return True
    return False


# a string literal's opening: a quote or a triple quote with a string prefix (`r#"`, `@"`, `b'`), a
# quoting operator with its bracket (`q{`, `%q(`), a long bracket (`[[`)
_LITERAL_OPEN = re.compile(
    r"(?:(?<![\w$])(?:[rRbBuUfF]{1,2}|r#{1,3}|@)?(?:\"\"\"|'''|[\"'`])|(?<![\w$])(?:%[qQ]|qq?)[({\[<]|\[\[)\Z"
)
_CLOSER = {"(": ")", "{": "}", "[": "]", "<": ">", "[[": "]]"}
# what stands before the literal: an assignment to a name (not `==`, `!=`, `<=`, `>=`), or a
# constant's definition
_ASSIGNED = re.compile(
    r"(?:[\w$\])\"'`][ \t]*+(?<![=!<>])(?:\?\?|\|\||[?:])?=|[\w$\])][ \t]*+<-"
    r"|#define[ \t]++[A-Za-z_]\w*+|\bdefine\([ \t]*+[\"'][^\"'\n]{1,64}+[\"'][ \t]*+,)[ \t]*+\Z"
)
_LITERAL_REACH = 96
_OPEN_TAG = re.compile(r"<[A-Za-z][^<>]*+\Z")
# a URL, a login at a host, fields of a connection string: a value of parts the rules read
_STRUCTURED = re.compile(r"\s|://|@[\w-]++\.[A-Za-z]|;[ \t]*+[A-Za-z][\w ]{0,30}+=")


def code_literal(view: str, start: int, end: int) -> bool:
    """`view[start:end]` is a whole string literal assigned to a name or defined as a constant in
    code (see the module docstring); reads at most `_LITERAL_REACH` characters before it."""
    floor = max(0, start - _LITERAL_REACH, view.rfind("\n", max(0, start - _LITERAL_REACH), start) + 1)
    opened = _LITERAL_OPEN.search(view, max(floor, start - 8), start)
    if opened is None or not view.startswith(_closer(opened.group()), end):
        return False
    if _STRUCTURED.search(view, start, end) is not None or _ASSIGNED.search(view, floor, opened.start()) is None:
        return False
    return _OPEN_TAG.search(view, floor, opened.start()) is None  # an attribute inside a tag is none


def _closer(opener: str) -> str:
    """What closes a literal opened by `opener`: its quote (three for a triple quote, `"#` after
    `r#"`) or its closing bracket (`}` after `q{`, `]]` after `[[`)."""
    if opener in _CLOSER:
        return _CLOSER[opener]
    if opener[-1] in _CLOSER:
        return _CLOSER[opener[-1]]
    quote = opener.lstrip("rRbBuUfF#@%q")
    return quote + "#" * opener.count("#")


_COPULA = re.compile(r"(?<![\w-])(?:is|was|are|were|IS|WAS)[ \t]++[\"'`]?\Z")


def stated(view: str, start: int) -> bool:
    """The value at `start` follows an English copula (`… was <value>`, `… was "<value>"`); reads 9
    characters back."""
    return _COPULA.search(view, max(0, start - 9), start) is not None


PRESENT_REACH = 80
# a colon after a clause of prose: three words or more (the last one right before the colon), or
# Chinese text (four characters or more, the last of them or a full-width bracket right before the
# colon); then the value, maybe quoted
_PRESENTING = re.compile(
    r"(?:(?<![\w-])[A-Za-z][\w-]{0,30}+[ \t,]++){2,}+[A-Za-z][\w-]{0,30}+[:：][ \t]*+[\"'`]?\Z"
    r"|[\u3400-\u9fff）](?:[ \t]*+[:：])[ \t]*+[\"'`]?\Z"
)
_PRESENTED_END = re.compile(r"[\"'`]?[ \t]*+(?:[,，。；;][^\n]{0,80}+)?(?:\r?\n|\Z)")


def presented(view: str, start: int, end: int) -> bool:
    """The value at `start`–`end` is presented after a colon that ends a clause of prose (`… do not
    copy it anywhere else: <value>`, `…先记在这里： <value>`) and closes its line or its sentence: a
    sentence that names no secret hands the judge the value it shows. Reads at most
    `PRESENT_REACH` characters of the line back and 80 ahead."""
    floor = max(0, start - PRESENT_REACH, view.rfind("\n", max(0, start - PRESENT_REACH), start) + 1)
    at = start
    while at > floor and view[at - 1] in " \t\"'`":
        at -= 1
    if at == floor or view[at - 1] not in ":：":
        return False  # the cheap test first: no colon right before the value
    found = _PRESENTING.search(view, floor, start)
    if found is None or _PRESENTED_END.match(view, end) is None:
        return False
    return found.group()[0].isascii() or len(_CJK.findall(view, floor, found.end())) >= 4


_QUOTES = frozenset("\"'`")
CALL_LITERAL_MIN = 12  # a shorter literal in a call is a name or an option (`"x86_64"`, `"HTML2PDF"`)
# a UUID or a hex digest names a thing: as a call's argument it is an id, not a key
IDENTIFIER = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|[0-9a-f]{40}|[0-9a-f]{64}")


# a literal that is an object's member inside a call's arguments: its key, a colon or `=`, its quote
_KEYED_MEMBER = re.compile(r"[{,][ \t]*+[\"']?[A-Za-z_][\w.-]{0,63}+[\"']?[ \t]*+[:=][ \t]*+[\"'`]\Z")


def call_argument(view: str, start: int, end: int, out: dict[str, float]) -> None:
    """A quoted literal among a call's arguments (`Client("…", "…")`, `hmac.New(…, []byte("…"))`):
    `call_arg` (at least `CALL_LITERAL_MIN` characters, no UUID and no lowercase SHA-1 or SHA-256
    digest unless it is passed right after an app's number: `after_app_id`), and the words of the
    open calls' names (`c:client`, `c:hmac`); `key_ends_benign` when the innermost call's name ends
    in a benign word or names a benign kind of key, unless the literal is an object's member under
    its own key (`{ 'x-ticket': '…' }`): the key names it."""
    if end - start < CALL_LITERAL_MIN or not quoted_literal(view, start, end):
        return
    after_app_id = any(m.end() == start for m in APP_ID_ARGUMENT.finditer(view, max(0, start - 32), start))
    if IDENTIFIER.fullmatch(view, start, end) and not after_app_id:
        return
    names = callees(view, start - 1)
    if not names:
        return
    out["call_arg"] = 1.0
    if after_app_id:
        out["after_app_id"] = 1.0  # `TLSSig(1400573459, '<hex>')`: an SDK's secret beside its app's number
    for word in {w for name in names for w in key_words_of(name.rsplit(".", 1)[-1])}:
        out[f"c:{word}"] = 1.0
    if _KEYED_MEMBER.search(view, max(0, start - 72), start) is not None:
        return  # `request({ header: { 'x-ticket': '…' } })`: the member's key names the value, not the call
    lexicon = key_lexicon()
    inner = key_words_of(names[0].rsplit(".", 1)[-1])
    if inner and (inner[-1] in lexicon.benign_en or benign_kind_of_key(inner, lexicon)):
        out["key_ends_benign"] = 1.0  # `publicKey("…")`, `sha256("…")`: the call names what it holds


def quoted_literal(view: str, start: int, end: int) -> bool:
    """`view[start:end]` is a whole string literal: the same quote right before and right after it."""
    return start > 0 and end < len(view) and view[start - 1] in _QUOTES and view[end] == view[start - 1]
