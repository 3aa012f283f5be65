"""Secrets found by the grammar around them rather than by a `key=value` separator (C-24): a secret
introduced in prose ("the prod db password is …", "my token for staging is …"), a Chinese label
with a verb between the label and the value (密码改成了 …, 令牌已更新为 …, 用这个密码登录：…), a
password flag and its value as two items of an argv list (`"--password", "…"`, `redis-cli -a …`)
a Markdown table row (`| DB_PASSWORD | … |`), the argument a `printf` format puts after a
password word (`printf 'machine h login u password %s\n' '…'`), a password option right after a
user option (`-U admin -P '…'`), a login given to `-u` (`curl -u user:…`, `lftp -u user,…`; a URL
given to `-u` — `beeline -u 'jdbc:hive2://…'` — is an address), a password set in SQL (`IDENTIFIED
BY '…'`), a secret after its encryption type in a device config (`enable secret 0 …`) and a literal
piped into a login that reads stdin (`echo '…' | kinit …`, `| sudo -S`).

Prose is where words live, so a value found this way must read like a password, not a word:
`passwordish` (≥ 6 characters with a letter and a digit or a symbol other than `-_./`, or high
entropy; never a number, a range or a setting). Every pattern is linear: its quantifiers are
bounded or possessive, and the lazy ones are bounded by a small constant.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from autopatch_j.cloud.secret_rules import Rule, with_needs
from autopatch_j.cloud.secret_values import (
    CALL_ARGS,
    CJK,
    QUOTED_OR_BARE,
    SETTING,
    ZH_LABEL,
    Span,
    context_secret,
    key_before,
    located,
    looks_random,
    placeholder,
    quoted_or_bare,
    secretish,
)

_LETTER = re.compile(r"[A-Za-z]")
_DIGIT = re.compile(r"[0-9]")
_HARD_SYMBOL = re.compile(r"[^\w\s./-]")
# numbers, ranges and sizes: `3600`, `8-16`, `90d`, `2.5.1`
_MEASURE = re.compile(r"[0-9][0-9.,:~-]{0,20}+[a-zA-Z]{0,3}")
_TRAILING = ".,;:。，；：、"


def passwordish(value: str) -> bool:
    """A value that reads like a password in prose (see the module docstring)."""
    if len(value) < 6 or SETTING.fullmatch(value) or _MEASURE.fullmatch(value):
        return False
    if looks_random(value):
        return True
    return bool(_LETTER.search(value)) and bool(_DIGIT.search(value) or _HARD_SYMBOL.search(value))


def _trimmed(value: str, span: Span, quoted: bool) -> tuple[str, Span]:
    """A bare value without the sentence punctuation after it, a `)` it does not open, a quote it
    does not open, or the backquotes around it."""
    if quoted:
        return value, span
    start, end = 0, len(value)
    if value.startswith("`"):
        start = 1
    while end > start and (
        value[end - 1] in _TRAILING
        or (value[end - 1] == ")" and "(" not in value[start : end - 1])
        or (value[end - 1] in "`\"'" and value[end - 1] not in value[start : end - 1])
    ):
        end -= 1
    return value[start:end], (span[0] + start, span[0] + end)


def _grammar_rule(
    pattern: re.Pattern[str], locator: str, min_len: int, needs_cjk: bool = False
) -> Callable[[str], Iterator[Span]]:
    """Values the pattern finds after a label or a verb (tried where `locator` finds its start)."""
    matches = located(pattern, locator)

    def find(view: str) -> Iterator[Span]:
        if needs_cjk and CJK.search(view) is None:
            return
        for match in matches(view):
            found = quoted_or_bare(match)
            if found is None or (
                needs_cjk and match.group("en") and not match.group("mid") and match.group("c")[0] in ":=：＝"
            ):
                continue  # `API-KEY: …` is the key=value rules' to read
            value, span = _trimmed(*found)
            if len(value) < min_len or not passwordish(value):
                continue
            if placeholder(view, value, span[0]) or CALL_ARGS.search(value) or _CODE.match(value):
                continue
            yield span

    return find


# code after a connector (`= getpass.getpass(`, `: os.environ[`)
_CODE = re.compile(r"[A-Za-z_][\w.]*+[(\[]")

# "the prod db password is …", "my token for staging is now …", "passphrase was set to …": a secret
# word, up to five words, a connector, the value; or a secret word and up to six words (a user at a
# host among them) closed by a colon, as an installer prints the password it generated ("A temporary
# password is generated for root@localhost: …", "The generated password for the elastic built-in
# superuser is : …"), tried first so that a verb after `is` does not end the reading
_PROSE = re.compile(
    r"(?i)(?<![\w-])(?:passwords?|passwd|passphrase|passcode|pin|tokens?|api[ _-]?keys?|secrets?|secret[ _-]keys?"
    r"|access[ _-]keys?|credentials?)"
    r"(?:(?:[ \t]++[\w.@-]{1,24}+){1,6}?[ \t]*+:"
    r"|(?:[ \t]++[\w.-]{1,24}+){0,5}?[ \t]++(?:is|was|are)(?:[ \t]++(?:now|still|set[ \t]++to|changed[ \t]++to))?)"
    r"[ \t]++(?!\[REDACTED\])" + QUOTED_OR_BARE
)

# 密码改成了 …, 令牌已更新为：…, 用这个密码登录：…, 访问密钥设置为 …, AppSecret 改成了 …: a label
# (Chinese, or an English key word), up to six CJK characters, then 是/为/成(了) or a colon or equals
_ZH_LABEL_VERB = re.compile(
    r"(?:" + ZH_LABEL + r"|(?P<en>(?i:secret|password|passwd|token|api[ _-]?key|access[ _-]?key))[ \t]?)"
    r"(?:[（(][^）)\n]{1,30}+[）)][ \t]?)?(?P<mid>[\u4e00-\u9fff]{0,6}?)"
    r"(?P<c>(?:是|为|為|成)了?[ \t]*+[:：]?|如下[:：]?[ \t]*+\r?\n[ \t]*+|[:：=＝])[ \t]*+(?!\[REDACTED\])"
    + QUOTED_OR_BARE
)
# 登陆密码Qm7x…: a label glued to an ASCII value (mixed case or a symbol, ≥ 8 characters)
_ZH_GLUED = re.compile(ZH_LABEL + r"(?P<v>[A-Za-z0-9][!-~]{7,255}+)")
_LOWER = re.compile(r"[a-z]")
_UPPER = re.compile(r"[A-Z]")


def _zh_glued(view: str) -> Iterator[Span]:
    if CJK.search(view) is None:
        return
    for match in _ZH_GLUED.finditer(view):
        value, span = _trimmed(match.group("v"), match.span("v"), False)
        mixed = _LOWER.search(value) and (_UPPER.search(value) or _HARD_SYMBOL.search(value))
        if len(value) >= 8 and passwordish(value) and mixed and not placeholder(view, value, span[0]):
            yield span


# "root password Qm7x…", "secret key `…`": a secret word, a space, a value with a letter and a digit;
# a digit between them is the value's encryption type in a device config (`enable secret 0 …`,
# `username ops password 0 …`)
_WORD_SPACE_VALUE = re.compile(
    r"(?i)(?<![\w-])(?:(?:password|passwd|passphrase|pwd|token|secret[ _-]key|api[ _-]key|access[ _-]key)[ \t]++"
    r"(?:[0-9][ \t]++)?|secret[ \t]++[0-9][ \t]++)"
    r"(?!\[REDACTED\])(?:`(?P<bq>[^`\r\n]{6,256}+)`|\"(?P<dq>[^\"\r\n]{6,256}+)\"|'(?P<sq>[^'\r\n]{6,256}+)'"
    r"|(?P<v>[!-~]{8,256}+))"
)


def _word_space_value(view: str) -> Iterator[Span]:
    for match in _WORD_SPACE_VALUE.finditer(view):
        group = next(g for g in ("bq", "dq", "sq", "v") if match.group(g) is not None)
        value, span = _trimmed(match.group(group), match.span(group), group != "v")
        if not (_LETTER.search(value) and _DIGIT.search(value)) or not passwordish(value):
            continue
        if placeholder(view, value, span[0]) or CALL_ARGS.search(value) or _CODE.match(value):
            continue
        yield span


# 账号/密码：admin / …, AK/SK 分别是 … / …, user/pass: admin/…: the second of a pair
_PAIR = re.compile(
    r"(?i)(?:账号|帐号|用户名?|user(?:name)?|login|ak|access[ _-]?key(?:[ _-]?id)?)[ \t]*+/[ \t]*+"
    r"(?:密码|口令|password|passwd|pass|pwd|sk|secret(?:[ _-]?key)?)[ \t]*+(?:分别是|分别为|是|为|[:：=＝])[ \t]*+"
    r"[^\s/]{1,128}+[ \t]*+/[ \t]*+(?!\[REDACTED\])(?P<s>[^\s，。,;；]{4,256}+)"
)


# `管理员：admin / …`, `管理员 admin / …`, `…/console  ops / …`: after a label's colon, a Chinese label
# and a blank or a gap of two blanks, an account's name, a slash between blanks and a value holding a
# letter, a digit and a symbol other than `.`, `/` and `-` (a password; a path, a version, a ratio or
# `read / write` holds none)
_LOGIN_SLASH = re.compile(
    r"(?:(?<=[:：])|(?<=[:：\u4e00-\u9fff][ \t])|(?<=\S[ \t]{2}))(?P<u>[a-z][a-z0-9_.-]{1,31}+)[ \t]++/[ \t]++"
    r"(?!\[REDACTED\])(?P<s>[^\s/，。,;；（(]{6,64}+)"
)


def _pairs(view: str) -> Iterator[Span]:
    for match in _PAIR.finditer(view):
        value, span = _trimmed(match.group("s"), match.span("s"), False)
        if secretish(value) and not placeholder(view, value, span[0]):
            yield span
    if " / " not in view:
        return
    for match in _LOGIN_SLASH.finditer(view):
        value, span = _trimmed(match.group("s"), match.span("s"), False)
        if not (_LETTER.search(value) and _DIGIT.search(value) and _HARD_SYMBOL.search(value)):
            continue
        if passwordish(value) and not placeholder(view, value, span[0]):
            yield span


# "use `…` as the password", "set the staging token to …": the value before the word, or after `to`
_USE_AS = re.compile(
    r"(?i)(?<![\w-])use[ \t]++" + QUOTED_OR_BARE + r"[ \t]++as[ \t]++(?:the[ \t]++|my[ \t]++|our[ \t]++|your[ \t]++)?"
    r"(?:[\w-]{1,24}+[ \t]++){0,2}?(?:password|passphrase|token|api[ _-]?key|secret)"
)
_SET_TO = re.compile(
    r"(?i)(?<![\w-])(?:set|change|changed|reset|update|updated|rotate|rotated)[ \t]++(?:[\w-]{1,24}+[ \t]++){0,3}?"
    r"(?:password|passphrase|token|api[ _-]?key|secret)[ \t]++to[ \t]++(?!\[REDACTED\])" + QUOTED_OR_BARE
)

# `"--password", "…"` / `'--token','…'` in an argv list (a subprocess call, a JSON tool call)
_ARGV_FLAG = re.compile(
    r"(?i)[\"']--?(?:[a-z]{1,20}-){0,3}(?:password|passwd|pass|pwd|token|api-key|apikey|secret|secret-key|auth-token)"
    r"[\"'][ \t]*+,[ \t]*+[\"'](?!-|\[REDACTED\])(?P<s>[^\"'\r\n]{1,256}+)[\"']"
)
# a command's own password flag, in a shell line or an argv list: `redis-cli -a …`, `ssh-keygen -N …`,
# an LDAP client's bind password `ldapsearch -w …`, an identity server's `ipa-server-install -p … -a …`,
# openGauss's client `gsql -W …`, an SNMPv3 user's authentication and privacy passphrases given to a
# Net-SNMP tool (`snmpwalk -v3 … -A … -X …`)
_OWN_PASSWORD_FLAG = (
    ("redis-cli", "-a"),
    ("gsql", "-W"),
    ("ssh-keygen", "-[NP]"),
    ("sshpass", "-p"),
    ("ipa-server-install", "-[ap]"),
    *((f"ldap{verb}", "-w") for verb in ("search", "modify", "add", "delete", "whoami", "passwd", "compare", "modrdn")),
    *((f"snmp{verb}", "-[AX]") for verb in ("walk", "bulkwalk", "get", "getnext", "bulkget", "set", "table", "trap")),
)
_COMMAND_LINE = re.compile(
    r"(?<![\w-])(?P<c>" + "|".join(name for name, _flag in _OWN_PASSWORD_FLAG) + r")(?![\w-])[^\n]*+"
)
_COMMAND_FLAG = {
    name: re.compile(
        r"[\s\"',]" + flag + r"[\"']?(?:[ \t]*+,[ \t]*+|[ \t]++)[\"']?(?!-|\[REDACTED\])(?P<s>[^\s\"',\]]++)"
    )
    for name, flag in _OWN_PASSWORD_FLAG
}
_COMMAND_NAMES = ("redis-cli", "ssh-keygen", "sshpass", "ldap", "ipa-server-install", "gsql", "snmp")


def _command_flags(view: str) -> Iterator[Span]:
    if not any(name in view for name in _COMMAND_NAMES):
        return
    for line in _COMMAND_LINE.finditer(view):
        for match in _COMMAND_FLAG[line.group("c")].finditer(view, line.start(), line.end()):
            value = match.group("s")
            if len(value) >= 4 and not placeholder(view, value, match.start("s")):
                yield match.span("s")


# `curl -u user:password`, `--user "user:password"`, `lftp -u user,password`; a login whose password
# is empty (`-u <key>:`) carries the key as its user, as an API that takes its key by basic auth expects
_BASIC_AUTH_FLAG = re.compile(
    r"(?<![\w-])(?:-u|--user)\s++[\"']?(?P<u>[^\s:,\"']++)(?P<sep>[:,])[\"']?(?!\[REDACTED\])(?P<s>[^\s\"']*+)"
)
_PORT = re.compile(r"\d++(?:/[^\s]*+)?")
# the rest of a URL after its first scheme (`jdbc:` + `hive2://…`, `http:` + `//…`): `-u <url>` gives
# an address (`beeline -u 'jdbc:hive2://…'`), not a login
_URL_REST = re.compile(r"(?:[A-Za-z][\w+.-]{0,31}+:)?//")


def _basic_auth_flag(view: str) -> Iterator[Span]:
    for match in _BASIC_AUTH_FLAG.finditer(view):
        user, secret = match.group("u"), match.group("s")
        if _URL_REST.match(secret):
            continue
        if match.group("sep") == ",":
            # a comma also lists users (`ps -u root,daemon`): a password only when it reads as one
            if passwordish(secret) and not placeholder(view, secret, match.start("s")):
                yield match.span("s")
        elif secret:
            if not (secret.startswith("$") or _PORT.fullmatch(secret) or placeholder(view, secret, match.start("s"))):
                yield match.span("s")
        elif looks_random(user) and not placeholder(view, user, match.start("u")):
            yield match.span("u")


# `htpasswd -b FILE USER PASSWORD`; `echo '…' | docker login --password-stdin`
_HTPASSWD = re.compile(
    r"(?<![\w-])htpasswd[ \t]++-[a-zA-Z]{0,4}b[a-zA-Z]{0,4}[ \t]++(?:-[a-zA-Z]{1,4}[ \t]++)?+"
    r"[^\s]++[ \t]++[^\s]++[ \t]++[\"']?(?!\[REDACTED\])(?P<s>[^\s\"']++)"
)
_PIPED_PASSWORD = re.compile(
    r"(?<![\w-])(?:echo|printf)[ \t]++(?:-n[ \t]++)?[\"']?(?!\$|\[REDACTED\])(?P<s>[^\s\"'|]{4,256}+)[\"']?[ \t]*+\|"
    r"(?=[^\n]{0,200}?(?:--password-stdin|passwd[ \t]++--stdin|chpasswd|(?<![\w-])kinit(?![\w-])|sudo[ \t]++-S))"
)
# `-U admin -P '…'` (ipmitool, sqlcmd): a password option right after a user option and its value
_USER_THEN_PASSWORD = re.compile(
    r"(?<![\w-])-[uU][ \t]++[\"']?[^\s\"'-][^\s\"']{0,63}+[\"']?[ \t]++-P[ \t]++(?!\[REDACTED\])" + QUOTED_OR_BARE
)
# SQL: `ALTER USER … IDENTIFIED BY '…'`, `CREATE USER … IDENTIFIED WITH mysql_native_password BY '…'`
_IDENTIFIED_BY = re.compile(
    r"(?i)(?<![\w-])identified[ \t]++(?:with[ \t]++[\w-]{1,40}+[ \t]++)?by[ \t]++(?:password[ \t]++)?"
    r"(?!\[REDACTED\])" + QUOTED_OR_BARE
)


def _option_values(pattern: re.Pattern[str]) -> Callable[[str], Iterator[Span]]:
    """The values the pattern finds after an option or a keyword that reads like a password (not a
    port, a setting or a reference)."""

    def find(view: str) -> Iterator[Span]:
        for match in pattern.finditer(view):
            found = quoted_or_bare(match)
            if found is None:
                continue
            value, span = _trimmed(*found)
            if secretish(value) and " " not in value and not placeholder(view, value, span[0]):
                yield span

    return find


# a setter or builder call with a literal: `ds.setPassword("…")`, `.apiKey('…')`, `withToken("…")`
_SETTER = re.compile(
    r"(?:\.|(?<![\w.])(?=set|with))(?:set|with)?_?(?i:password|passwd|passphrase|secret|api_?key|access_?token|token"
    r"|credentials?)\([ \t]*+[\"'](?!\[REDACTED\])(?P<s>[^\"'\r\n]{4,256}+)[\"'][ \t]*+\)"
)


def _literals(pattern: re.Pattern[str], needs: str, strict: bool = False) -> Callable[[str], Iterator[Span]]:
    """Secret-looking literals the pattern's `s` group holds; only in text holding `needs`. `strict`:
    the literal must read like a password (`passwordish`, no space), not only like no word."""

    def find(view: str) -> Iterator[Span]:
        if needs not in view:
            return
        for match in pattern.finditer(view):
            value = match.group("s")
            if strict and (" " in value or not passwordish(value)):
                continue
            if secretish(value) and not placeholder(view, value, match.start("s")):
                yield match.span("s")

    return find


def _flag_values(pattern: re.Pattern[str]) -> Callable[[str], Iterator[Span]]:
    def find(view: str) -> Iterator[Span]:
        for match in pattern.finditer(view):
            value = match.group("s")
            if len(value) >= 4 and not placeholder(view, value, match.start("s")):
                yield match.span("s")

    return find


# `printf '… password %s\n' 'VALUE'`: a format whose first `%s` follows a secret word, then its argument
_PRINTF = re.compile(
    r"(?i)(?<![\w-])printf[ \t]++(?P<q>['\"])[^%'\"]{0,200}?"
    r"(?:password|passwd|pass|token|secret|api[_-]?key)[ \t]*+[:=]?[ \t]*+%s[^'\"]{0,200}+(?P=q)[ \t]++"
    r"(?!-|\[REDACTED\])" + QUOTED_OR_BARE
)


def _printf_argument(view: str) -> Iterator[Span]:
    if "printf" not in view:
        return
    for match in _PRINTF.finditer(view):
        found = quoted_or_bare(match)
        if found is not None and secretish(found[0]) and not placeholder(view, found[0], found[1][0]):
            yield found[1]


# `aws_secret_access_key <value>`, `GITHUB_TOKEN <value>`: a key name, a space, a high-entropy value
_SPACED = re.compile(
    r"(?i)(?P<k>(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|[_-]key)[\w.-]{0,40}+)[ \t]++"
    r"(?P<s>[A-Za-z0-9+/=_.~-]{16,512}+)(?![\w+/=.~-])"
)
_DASHED_WORDS = re.compile(r"[a-z0-9]++(?:[-_.][a-z0-9]++)++")


def _spaced_values(view: str) -> Iterator[Span]:
    for match in _SPACED.finditer(view):
        value, key = match.group("s"), key_before(view, match.start()) + match.group("k")
        if _DASHED_WORDS.fullmatch(value) or placeholder(view, value, match.start("s")):
            continue
        if looks_random(value) or context_secret(key, value):
            yield match.span("s")


_SECRET_NAME = (
    r"[\w.:-]{0,40}?(?i:passw(?:or)?d|passwd|secret|token|api[_-]?key|private[_-]?key|credential)[\w.-]{0,40}+"
)
# YAML block scalar: `password: |` and the value indented on the next line
_YAML_BLOCK = re.compile(
    r"(?<![\w.-])" + _SECRET_NAME + r"[ \t]*+:[ \t]*+[|>][-+]?[ \t]*+\r?\n[ \t]++(?!\[REDACTED\])(?P<s>[^\s]{4,256}+)"
)
# XML element `<password>…</password>`; .NET `key="ApiKey" value="…"`; a call `(“API_KEY”, “…”)`
_XML_ELEMENT = re.compile(r"<(?P<k>" + _SECRET_NAME + r")>(?!\[REDACTED\])(?P<s>[^<\s]{4,256}+)</(?P=k)>")
_KEY_VALUE_ATTRS = re.compile(
    r"(?i)key=[\"'](?:" + _SECRET_NAME + r")[\"'][ \t]++value=[\"'](?!\[REDACTED\])(?P<s>[^\"'\r\n]{4,256}+)[\"']"
)
_NAME_THEN_VALUE = re.compile(
    r"\([ \t]*+[\"'](?:" + _SECRET_NAME + r")[\"'][ \t]*+,[ \t]*+[\"'](?!\[REDACTED\])(?P<s>[^\"'\r\n]{4,256}+)[\"']"
)

_STRONG_WORD = re.compile(r"(?i)passw(?:or)?d|pwd|secret|token|api[_-]?key|credential|private[_-]?key|access[_-]?key")
_CONTEXT_WORD = re.compile(r"(?i)key|auth|sig(?:nature)?|salt|cookie|session")
# `| NAME | value |`: a table cell naming a secret, the next cell its value (backquoted or bare)
_TABLE_ROW = re.compile(
    r"\|[ \t]*+`?(?P<k>[\w.-]{2,64}+)`?[ \t]*+\|[ \t]*+(?:`(?P<bq>[^`|\r\n]{1,256}+)`|(?P<v>[^\s|`]{1,256}+))"
    r"(?=[ \t]*+(?:\||\r?\n|\Z))"
)


def _table_rows(view: str) -> Iterator[Span]:
    for match in _TABLE_ROW.finditer(view):
        key = match.group("k")
        group = "bq" if match.group("bq") is not None else "v"
        value, start = match.group(group), match.start(group)
        if placeholder(view, value, start):
            continue
        if (_STRONG_WORD.search(key) and secretish(value)) or (
            _CONTEXT_WORD.search(key) and context_secret(key, value)
        ):
            yield match.span(group)


# `smtp.login("user@host", "…")`, `ftp.login('deploy', '…')`, `auth=("user", "…")`,
# `HTTPBasicAuth("user", "…")`: a login call's or an auth pair's literal user and password
_LOGIN_CALL = re.compile(
    r"(?i)(?:\.(?:login|authenticate|auth)\(|(?<![\w-])auth[ \t]*+[=:][ \t]*+\(|basicauth\()"
    r"[ \t]*+[\"'][^\"'\r\n]{1,128}+[\"'][ \t]*+,[ \t]*+[\"']"
    r"(?!\[REDACTED\])(?P<s>[^\"'\r\n]{4,256}+)[\"'][ \t]*+[,)]"
)
# "log in with `…`", "sign in using …": the value an authentication verb is done with
_LOG_IN_WITH = re.compile(
    r"(?i)(?<![\w-])(?:log[ \t-]?in|sign[ \t-]?in|authenticate|auth)[ \t]++(?:[\w-]{1,24}+[ \t]++){0,2}?"
    r"(?:with|using)[ \t]++(?!\[REDACTED\])(?:`(?P<bq>[^`\r\n]{6,256}+)`|" + QUOTED_OR_BARE + ")"
)


def _log_in_with(view: str) -> Iterator[Span]:
    for match in _LOG_IN_WITH.finditer(view):
        group = "bq" if match.group("bq") is not None else None
        found = (match.group("bq"), match.span("bq"), True) if group else quoted_or_bare(match)
        if found is None:
            continue
        value, span = _trimmed(*found)
        if passwordish(value) and " " not in value and not placeholder(view, value, span[0]):
            yield span


_SHAPE_RULES: tuple[Rule, ...] = (
    Rule("prose_secret", _grammar_rule(_PROSE, "pass|pin|token|api|secret|access|credential", 6)),
    Rule("chinese_label_verb", _grammar_rule(_ZH_LABEL_VERB, ZH_LABEL + "|secret|passw|token|api|access", 6, True)),
    Rule("argv_password_flag", _flag_values(_ARGV_FLAG)),
    Rule("command_password_flag", _command_flags),
    Rule("basic_auth_flag", _basic_auth_flag),
    Rule("table_row", _table_rows),
    Rule("printf_argument", _printf_argument),
    Rule("spaced_key_value", _spaced_values),
    Rule("chinese_label_glued", _zh_glued),
    Rule("word_space_value", _word_space_value),
    Rule("credential_pair", _pairs),
    Rule("use_as_password", _grammar_rule(_USE_AS, "use", 6)),
    Rule("set_password_to", _grammar_rule(_SET_TO, "set|change|reset|update|rotate", 6)),
    Rule("htpasswd_password", _literals(_HTPASSWD, "htpasswd")),
    Rule("piped_password", _literals(_PIPED_PASSWORD, "|")),
    Rule("user_password_option", _option_values(_USER_THEN_PASSWORD)),
    Rule("sql_identified_by", _option_values(_IDENTIFIED_BY)),
    Rule("setter_literal", _literals(_SETTER, "(")),
    Rule("yaml_block_value", _literals(_YAML_BLOCK, "\n")),
    Rule("xml_element", _literals(_XML_ELEMENT, "</")),
    Rule("config_key_value_attributes", _literals(_KEY_VALUE_ATTRS, "value=", strict=True)),
    Rule("call_name_then_value", _literals(_NAME_THEN_VALUE, "(", strict=True)),
    Rule("login_call", _literals(_LOGIN_CALL, "(")),
    Rule("log_in_with", _log_in_with),
)

# the words a `_SECRET_NAME` holds, lowercased
_SECRET_WORDS = ("pass", "secret", "token", "key", "credential")
# the literal each rule's matches hold, lowercased (see `Rule.needs`); a rule not listed always runs
_NEEDS: dict[str, tuple[str, ...]] = {
    "prose_secret": ("pass", "pin", "token", "api", "secret", "access", "credential"),
    "argv_password_flag": ("pass", "pwd", "token", "api", "secret"),
    "command_password_flag": _COMMAND_NAMES,
    "basic_auth_flag": ("-u",),
    "table_row": ("|",),
    "printf_argument": ("printf",),
    "spaced_key_value": ("secret", "token", "pass", "key"),
    "word_space_value": ("pass", "pwd", "token", "key"),
    "credential_pair": ("/",),
    "use_as_password": ("use",),
    "set_password_to": ("to",),
    "htpasswd_password": ("htpasswd",),
    "piped_password": ("|",),
    "user_password_option": ("-p",),
    "sql_identified_by": ("identified",),
    "setter_literal": ("pass", "secret", "key", "token", "credential"),
    "yaml_block_value": _SECRET_WORDS,
    "xml_element": ("</",),
    "config_key_value_attributes": ("value=",),
    "call_name_then_value": _SECRET_WORDS,
    "login_call": ("login", "auth"),
    "log_in_with": ("with", "using"),
}
SHAPE_RULES: tuple[Rule, ...] = with_needs(_SHAPE_RULES, _NEEDS)
