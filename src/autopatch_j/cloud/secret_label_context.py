"""What stands before a candidate secret value: its separator and the key or label that names it.

`label_context` writes the judge's context features of the text before a value (`secret_judge`
documents them: the separator's kind, the key's and nearby words, whether they name a secret, a key's
id, something benign or an identifier, a vendor's noun for a credential, a Chinese label, a URL
query's field, a command line, a block line, colon-separated fields). `envelope_floor` says where
that text begins when the value stands inside a JSON string that carries a whole text: the
string's own label is the value's, the member's key outside it is the envelope's.
"""

from __future__ import annotations

import re

from autopatch_j.cloud.secret_candidates import CONTEXT
from autopatch_j.cloud.secret_key_words import PAIR_WORDS, KeyLexicon, benign_kind_of_key, key_lexicon, key_words_of
from autopatch_j.cloud.secret_places import (
    QUERY_KEY,
    benign_aside,
    colon_fields,
    names_an_identifier,
    url_path_names_secret,
    zh_secret,
)
from autopatch_j.cloud.secret_value_shape import SCREAMING

_ASCII_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,40}")
# the mark between a key and its value: a connector, then an opening quote or bracket (Lua's `[[`), the
# quote with a string prefix (`r"…"`, `b'…'`, Rust's raw `r#"…"#`, C#'s `@"…"`); a `+` beside it is a
# form body's blank (`PublicKey+=+…` in a URL-encoded form read with its `+` kept)
_SEPARATOR = re.compile(
    r"[ \t+]*+(?:[=:：＝|]|是|为|->|=>|——?|－)?[ \t+]*+"
    r"(?:(?<!\w)(?:[rRbBuUfF]{1,2}|r#{1,3}|@\$?|\$@?)(?=[\"']))?(?:\[\[|[\"'`「“【(\[（『‘〔])?\Z"
)
# a type between a key and ` = ` (`API_KEY: &str = …`, `api_key: str = …`, `KEY: &'static str = …`):
# the key is the name before it (`env: API_TOKEN=…` names no type: no space before `=`, a
# variable's name)
_TYPE_ANNOTATION = re.compile(r"[ \t]*+:[ \t]*+(?P<type>&?(?:'[a-z]++[ \t]++)?[A-Za-z_][\w:<>]{0,30}+)\Z")
_CJK = re.compile(r"[\u3400-\u9fff]")
# a scheme word after a key's separator (`Authorization: Bearer …`); with none, a word is the key
_SCHEME = re.compile(r"(?:(?<=[=:：\"'])|(?<=[=:：\"'][ \t]))[A-Za-z][A-Za-z0-9]{2,9} \Z")
_FULL_MARK = "[REDACTED]"
_SHORT_FLAG = re.compile(r"(?:^|[\s\"'\[,])-([A-Za-z])[ \t]*+\Z")
_ASSIGNED = frozenset({"equals", "colon", "quote", "zh_is", "arrow", "dash", "cell", "element"})
# benign key words naming a place the value points at (an address, a file, a directory): the key
# says what the value is only when the value can be a place — it holds a separator of a path's or an
# address's parts, a scheme's or a port's colon, a variable's or a template's mark
_PLACE_WORDS = frozenset({"uri", "url", "path", "filepath", "dir", "file"})
_PLACE_MARK = re.compile(r"[/\\.:~$%{@]")
# an XML element's start tag right before its text, maybe inside a CDATA section
# (`<robotPwd><![CDATA[…`): the element's name is the value's key
_ELEMENT_OPEN = re.compile(r"<(?P<name>[A-Za-z_][\w.:-]{0,63}+)>(?:<!\[CDATA\[)?\Z")
# a property list's pair: `<key>NAME</key>`, then the value's element (`<string>`, inside an
# `<array>` or not): the value is read under NAME, not under its type's element
_PLIST_PAIR = re.compile(
    r"<key>(?P<name>[^<>\n]{1,64}+)</key>[ \t\r\n]*+(?:<array>[ \t\r\n]*+)?<[A-Za-z]\w{0,15}+>(?:<!\[CDATA\[)?\Z"
)
# a JSON member whose string value opens here: its quoted key, the colon, the opening quote
_MEMBER_OPENS = re.compile(r'"[A-Za-z_][\w.-]{0,40}+"[ \t]*+:[ \t]*+"')
# a text of its own inside a string, before a value: a line break, or a label's last character and
# its separator (a colon only before a blank or a quote: `user:pw@host` is a URL's login, no label)
_OWN_LABEL = re.compile(r"\n|[^\s\"'=:：＝][ \t]*+(?:[=＝：]|:(?=[ \t\"']))")


def envelope_floor(view: str, floor: int, start: int) -> int:
    """Where the label context of the value at `start` begins: `floor`, or the first character of
    the JSON member's string the value stands in (the last `"key": "` between `floor` and `start`)
    when that string holds a text of its own before the value — a line break, or a label and its
    separator. The member's key then carries the whole text (a tool result's `"content"`,
    `"stdout"`, `"log"`) and labels none of its values: `{"content": "isis_md5: \"…\""}` reads
    the label `isis_md5`, `{"password": "…"}` the key `password`. Reads only `view[floor:start]`."""
    last = None
    for opened in _MEMBER_OPENS.finditer(view, floor, start):
        last = opened
    if last is None or _OWN_LABEL.search(view, last.end(), start) is None:
        return floor
    return last.end()


def label_context(
    before: str, whole_before: str, out: dict[str, float], named: str | None = None, value: str | None = None
) -> None:
    """The context features of the text `before` a value (`whole_before`: the `CONTEXT` characters
    before it, past an envelope's floor) into `out`; `named`: the key of a `name`/`value` pair read
    before it; `value`: the value itself, when known — a key naming a place (`mongoUri`,
    `PASS_FILE`) names no kind of a value that cannot be one (`@"4oUj…"`: no separator of a path or
    an address)."""
    lexicon = key_lexicon()
    element = _ELEMENT_OPEN.search(before)
    if element is not None:  # `<robotPwd><![CDATA[…`: the element's name, then its text
        pair = _PLIST_PAIR.search(whole_before)  # the name is a candidate of its own: `before` starts after it
        stripped = pair.group("name") if pair is not None else before[: element.end("name")]
        kind = "element"
    else:
        scheme = _SCHEME.search(before)
        if scheme is not None:
            before = before[: scheme.start()]
        sep = _SEPARATOR.search(before)
        stripped = before[: sep.start()] if sep else before
        stripped = _ARGV_COMMA.sub("", stripped).rstrip("\"'")  # a quoted key: `"kid": "…"`, `["--flag", "…"]`
        mark = sep.group().strip(" \t+") if sep else ""
        kind = _sep_kind(mark, before)
        if kind == "equals" and sep is not None and sep.group()[:1] in " \t":
            typed = _TYPE_ANNOTATION.search(stripped)
            if typed is not None and SCREAMING.fullmatch(typed.group("type")) is None:
                stripped = stripped[: typed.start()]
    out[f"sep:{kind}"] = 1.0
    key = _ASCII_WORDS.findall(stripped[-40:])
    key_words = key_words_of(key[-1]) if key and stripped.endswith(key[-1]) else []
    near = [w for token in _context_tokens(stripped)[-6:] for w in key_words_of(token)]
    if named is not None:
        out["named_pair"] = 1.0
        key_words = key_words_of(named)
        near = [w for w in near if w not in PAIR_WORDS] + key_words
    for word in key_words[-3:]:
        out[f"k:{word}"] = 1.0
    flag = _SHORT_FLAG.search(stripped)
    if flag:
        out[f"short_flag:{flag.group(1)}"] = 1.0
        if kind != "glued":
            # a command's one-letter option, then a blank or a quote, takes the value (`nuget push
            # -k …`, `-A <hex>`): what the letter means is the tool's, so the judge weighs the
            # value's shape beside it; a run glued to `-x` (`-f0Psl…`, a wrapped line of base64)
            # is read so only for `-p` (`short_flag:p`)
            out["short_flag"] = 1.0
    for word in near[-8:]:
        out[f"w:{word}"] = 1.0
    if any(w in lexicon.secret_en for w in key_words) or lexicon.names_secret_as_key(key_words):
        out["key_secret"] = 1.0
    if key_words and key_words[-1] in lexicon.credential_nouns:
        out["key_noun"] = 1.0  # `depot_ticket:`, `app_cert:`, `-serial`: a vendor's noun for a credential
    if any(w in lexicon.benign_en for w in key_words):
        out["key_benign"] = 1.0
    if kind == "space" and key and stripped.endswith(key[-1]) and stripped[: -len(key[-1])].endswith("/"):
        out["key_ends_benign"] = 1.0  # `POST /oauth2/token HTTP/1.1`: a path's last segment names a resource
    elif _key_id(key_words, stripped, lexicon):
        out["key_id"] = 1.0  # `private_key_id`, `SecretId`, `密钥 ID`: the id written beside its key
    elif key_words and (
        (key_words[-1] in lexicon.benign_en and not _no_place(key_words[-1], value))
        or benign_kind_of_key(key_words, lexicon)
        or _benign_word_before(key_words, near, stripped, key[-1] if key else "", lexicon)
    ):
        # `session_id`, `token_type`: the key names something about a secret; `PublicKey`,
        # `object_key`, `idempotency_key`: a key of another kind
        out["key_ends_benign"] = 1.0
    if kind in _ASSIGNED and names_an_identifier(stripped, lexicon):
        out["key_ends_benign"] = 1.0  # `统一社会信用代码：`, `退款单号是：`, `commit为：`: a label naming an identifier
    if kind in _ASSIGNED and benign_aside(stripped, lexicon):
        out["key_ends_benign"] = 1.0  # `clientKey（前端公开）：`, `key id (public):`: the label says what the value is
    if lexicon.names_secret_as_key(key_words):
        out["key_ends_secret"] = 1.0
        if kind in _ASSIGNED:
            out["assigned_to_secret"] = 1.0
    if any(w in lexicon.secret_en and (i == 0 or near[i - 1] not in lexicon.negations_en) for i, w in enumerate(near)):
        out["near_secret"] = 1.0  # not after a negation (`no password`, `without token`)
    if any(w in lexicon.benign_en for w in near):
        out["near_benign"] = 1.0
    # a value read under a name (a CSV column's header, a `name`/`value` pair) takes its labels from
    # that name, not from the text before it (the header row's other columns)
    tail, lead = (named, "") if named is not None else (before[-16:], before[:-16])
    if zh_secret(tail, lexicon.secret_zh, lexicon.benign_zh, lexicon.negations_zh, lead):
        out["zh_secret"] = 1.0
        if out.get("key_benign") is None and kind != "glued":
            out["zh_labelled_value"] = 1.0
    if any(word in tail for word in lexicon.benign_zh):
        out["zh_benign"] = 1.0
    if _CJK.search(tail):
        out["zh_near"] = 1.0
    if kind in ("equals", "other") and QUERY_KEY.search(before) is not None:
        out["url_query"] = 1.0
        if url_path_names_secret(whole_before, lexicon):
            out["url_path_secret"] = 1.0  # `…/auth/magic?uid=…&t=<value>`, `/oauth/callback?code=`
    line = whole_before[whole_before.rfind("\n") + 1 :][-CONTEXT:]
    if line.lstrip().startswith(("$ ", "# ", "> ")) or " -" in line:
        out["command_line"] = 1.0
    if whole_before.endswith("\n") and _block_line(whole_before):
        out["block_line"] = 1.0
    if colon_fields(line):
        out["colon_fields"] = 1.0  # `host:port:db:user:`, not `"a": "b"`, an id `1:<project>:web:` nor a clock


_KEY_ID_OF = frozenset({"key", "secret"})


_ARGV_COMMA = re.compile(r"[\"'][ \t]*+,\Z")
_RUN = re.compile(r"[A-Za-z0-9_\[\]-]++")
_LETTER_AND_DIGIT = re.compile(r"(?=[^0-9]*[0-9])(?=[^A-Za-z]*[A-Za-z])")


def _context_tokens(stripped: str) -> list[str]:
    """The word tokens of the last 40 characters before a key's separator, without a run the
    window's edge cuts and without value-like runs — the `[REDACTED]` mark, eight or more characters
    mixing letters and digits — so a secret before a value reads like the mark it becomes."""
    floor = max(0, len(stripped) - 40)
    tokens: list[str] = []
    for run in _RUN.finditer(stripped, floor):
        text = run.group()
        if run.start() == floor and floor and _RUN.match(stripped, floor - 1):
            continue
        if _FULL_MARK in text or (len(text) >= 8 and _LETTER_AND_DIGIT.match(text) is not None):
            continue
        tokens += _ASCII_WORDS.findall(text)
    return tokens


def _no_place(word: str, value: str | None) -> bool:
    """`word` names a place and `value` cannot be one: no separator of a path's or an address's
    parts, no scheme's colon, no variable's mark."""
    return word in _PLACE_WORDS and value is not None and _PLACE_MARK.search(value) is None


def _benign_word_before(key_words: list[str], near: list[str], stripped: str, key: str, lexicon: KeyLexicon) -> bool:
    """A one-word `key` after a benign word and a space (`public key: …`, `object key: …`)."""
    if key_words != ["key"] or len(near) < 2 or near[-2] not in lexicon.benign_en:
        return False
    return stripped.endswith(" " + key)


def _key_id(key_words: list[str], stripped: str, lexicon: KeyLexicon) -> bool:
    """The key names the id of a key (`…key_id`, `SecretId`, a Chinese label for a key before `ID`):
    an id paired with its secret, not an identifier of something else (`session_id`, `client_id`)."""
    if not key_words or key_words[-1] != "id":
        return False
    if len(key_words) >= 2:
        return key_words[-2] in _KEY_ID_OF
    head = stripped[: len(stripped) - 2].rstrip(" \t")
    return any(head.endswith(word) for word in lexicon.secret_zh if len(word) >= 2)


def _block_line(before: str) -> bool:
    """The line before is a long run of base64 characters (a block: a certificate, a public key)."""
    line = before[before.rfind("\n", 0, len(before) - 1) + 1 : -1]
    return len(line) >= 40 and re.fullmatch(r"[A-Za-z0-9+/=]{40,}+", line[-CONTEXT:]) is not None and "\n" not in line


def _sep_kind(mark: str, before: str) -> str:
    if not before:
        return "start"
    if not mark:
        last = before[-1]
        if last in " \t":
            return "space"
        if last == "\n":
            return "line"
        return "glued" if last.isalnum() else f"char{last}" if last in "/@.:;,&?#" else "other"
    if mark[0] in "=＝":
        return "equals"
    if mark[0] in ":：":
        return "colon"
    if mark[0] in "是为":
        return "zh_is"
    if mark[0] in "-=" and ">" in mark:
        return "arrow"
    if mark[0] in "—－":
        return "dash"
    if mark[0] == "|":
        return "cell"
    return "quote"


# a bracketed aside right after a value, blanks before it allowed (`sign=<hex>（签名结果，不是密钥）`)
_ASIDE_AFTER = re.compile(r"[ \t]*+[（(](?P<words>[^（）()\n]{1,32}+)[）)]")
_CLAUSE_BREAK = re.compile(r"[，,；;、]")
_ARTICLES = frozenset({"a", "an", "the"})


def denied_after(view: str, start: int, end: int, lexicon: KeyLexicon) -> bool:
    """The value at `start`–`end` is followed by a bracketed aside that denies it is a secret at all:
    its last clause is a negation, then a secret's bare word (`（签名结果，不是密钥）`, `(a digest, not
    the key)`): the writer says what the value is not. A qualified word denies one kind of secret
    only (`（不是登录密码）`, `(not the login password)`: another secret still). A span that runs on
    into the aside (a key-word rule's value ends at a blank) is read up to its first bracket."""
    opens = [at for at in (view.find("（", start, end), view.find("(", start, end)) if at > start]
    aside = _ASIDE_AFTER.match(view, min(opens) if opens else end)
    if aside is None:
        return False
    clause = _CLAUSE_BREAK.split(aside.group("words"))[-1].strip()
    english = [w for token in _ASCII_WORDS.findall(clause) for w in key_words_of(token)]
    negated = next((i for i, w in enumerate(english) if w in lexicon.negations_en), None)
    if negated is not None:
        words = [w for w in english[negated + 1 :] if w not in _ARTICLES]
        return len(words) == 1 and words[0] in lexicon.secret_en
    for negation in lexicon.negations_zh:
        if clause.startswith(negation):
            word = clause[len(negation) :].strip()
            return word in lexicon.secret_zh and len(word) > 1
    return False
