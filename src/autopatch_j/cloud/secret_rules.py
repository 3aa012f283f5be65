"""The secret families `redaction.redact` knows, one rule each (written from the providers' documented
token formats; the family names are the ones `tests/cloud/secret_corpus.py` measures).

Every pattern must run in linear time on any input: quantifiers over a character class are either
bounded (`{0,40}`), possessive (`*+`, `++`) or follow a lookbehind that admits only one start per run
of that class. `bench/redaction_bench.py` checks the growth on adversarial input.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from autopatch_j.cloud.secret_values import (
    CALL_ARGS,
    CJK,
    HEX_KEY,
    OPENING_QUOTE,
    QUOTED_OR_BARE,
    ZH_LABEL,
    Span,
    context_secret,
    example_token,
    key_before,
    located,
    looks_random,
    placeholder,
    quoted_or_bare,
    secretish,
)


@dataclass(frozen=True, slots=True)
class Rule:
    """A secret family: `find(view)` yields the spans of its secrets. `needs`: lowercase literals
    one of which the lowercased text holds wherever the rule can match (a cheap prefilter: text
    without any of them skips the rule); empty when no literal is required."""

    name: str
    find: Callable[[str], Iterator[Span]]
    needs: tuple[str, ...] = ()


def with_needs(rules: tuple[Rule, ...], needs: dict[str, tuple[str, ...]]) -> tuple[Rule, ...]:
    """The rules, each with the literals `needs` lists under its name (see `Rule`)."""
    unknown = set(needs) - {rule.name for rule in rules}
    if unknown:
        raise ValueError(f"no rule named {sorted(unknown)}")
    return tuple(replace(rule, needs=needs.get(rule.name, rule.needs)) for rule in rules)


# a token written masked (`AKIAXXXXXXXXXXXXXXXX`, `ghp_xxxx…`, `sk-****`): a run no random body holds
_MASKED_BODY = re.compile(r"x{6}|X{6}|\*{3}|•{2}")


def _spans(pattern: re.Pattern[str], group: str | None = None) -> Callable[[str], Iterator[Span]]:
    """Spans of every match (or of its named group), except masked ones and documentation
    examples (`example_token`)."""

    def find(view: str) -> Iterator[Span]:
        for match in pattern.finditer(view):
            start, end = match.span(group) if group else match.span()
            if _MASKED_BODY.search(view, start, end) is None and not example_token(view[start:end]):
                yield start, end

    return find


def token(name: str, pattern: str, flags: int = 0) -> Rule:
    return Rule(name, _spans(re.compile(pattern, flags)))


def grouped(name: str, pattern: str, flags: int = 0) -> Rule:
    """A rule whose secret is the named group `s` (the context before it stays)."""
    return Rule(name, _spans(re.compile(pattern, flags), "s"))


_NOT_ALNUM = r"(?<![A-Za-z0-9])"
_B64 = r"A-Za-z0-9+/"

# --- key = value forms ---------------------------------------------------------------------------

_STRONG = (
    r"api[_ -]?key|apikey|passw(?:or)?d|passwd|passphrase|secret(?![_-]?(?:name|ref|arn|id)(?![a-z]))|credentials?"
    r"|access[_-]?key|private[_-]?key|auth[_-]?key"
    r"|token(?!s|iz|[_-]?(?:type|count|len|limit|usage|ids?)(?![a-z]))|pass(?<![a-z]pass)(?![a-z])|pwd(?<![a-z]pwd)(?![a-z])"
)
_CONTEXT = r"key|auth|sig(?:nature)?|salt|cred|cookie|session|dsn|conn(?:ection)?[_-]?str|(?<![a-z])[as]k(?![a-z])"
_SEP = r"[\"'`]?\]?[ \t]*+(?::=|=>|[:=：＝])[ \t]*+(?!\[REDACTED\])"
# a value: triple-quoted, quoted (with a string prefix: r'…', b"…", C#'s @"…" and $"…"), backquoted,
# in Lua's long brackets ([[…]]) or bare
_VALUE = (
    r"(?:(?:[rRbBuUfF]{1,2}+|@\$?|\$@?)(?=[\"']))?(?:\"\"\"(?P<tq>[^\"\r\n]{1,256}+)\"\"\""
    r"|\"(?P<dq>[^\"\r\n]*+)|'(?P<sq>[^'\r\n]*+)|`(?P<bq>[^`\r\n]*+)|\[\[(?P<lb>[^\]\r\n]{1,256}+)\]\]"
    r"|(?P<v>[^\s\"'`,;}\[\]()<>|&]++))"
)


_KEY_CHARS = re.compile(r"[\w.-]*+")
_SEP_VALUE = re.compile(_SEP + _VALUE)


_NOT_PASSWORDS = frozenset({"pwd", "oldpwd"})
# a value that names a file rather than holding a secret (`SECRET_KEY_FILE=/run/secrets/key`)
_PATH_KEY = re.compile(r"(?i)(?:file|path|dir|location)\Z")
_PATH_VALUE = re.compile(r"(?:~|\.{1,2})?/[a-z0-9_./-]*+")
# a setting read where a value would be: the next one after an empty key (`DM_PWD= SMS_AP_ID=`), a
# parameter naming a file (`AuthAltParameters=jwt_key=/var/spool/slurm/jwt_hs256.key`)
_NAMED_SETTING = re.compile(r"[A-Za-z][A-Za-z0-9]*+(?:[_.][A-Za-z0-9]++)++=|[\w.-]{1,64}+=(?:~|\.{1,2})?/[\w./-]*+")
_VALUE_TAIL = re.compile(r"[^\s\"'`,;}<>|&]*+")
_QUOTED_ARG = re.compile(r"\(\s*+[\"'](?P<a>[^\"'\r\n]{16,256}+)[\"']")


def _value(match: re.Match[str]) -> tuple[str, Span] | None:
    groups = match.groupdict()
    for group in ("tq", "dq", "sq", "bq", "lb", "v"):
        if groups.get(group) is not None:
            return match.group(group), match.span(group)
    return None


_CALLEE = re.compile(r"[A-Za-z_][\w.]*+(?:::[A-Za-z_][\w.]*+){0,4}+")
# a type in an annotation (`token: str`, `password: SecretStr`, `apiKey: string`)
_TYPE_NAME = re.compile(r"str|bytes|int|float|bool|string|number|boolean|any|Any|None|Optional|Secret\w{0,12}")
# a number under a key that names a duration, a size or a count (`TOKEN_REFRESH_INTERVAL_MS = 300000`)
_MEASURE_KEY = re.compile(
    r"(?i)interval|timeout|ttl|expir|lifetime|[^a-z]ms\Z|seconds?|secs?\Z|minutes?|hours?|days?|length|len\Z|size"
    r"|count|limit|max|min|retries|port"
)


# a key that names something about the secret, not the secret (`api_key_header_name`, `TOKEN_ENDPOINT`,
# `passwordVariable`: the variable a pipeline binds it to)
_NAMING_KEY = re.compile(
    r"(?i)(?:name|header|field|param|label|type|format|prefix|endpoint|url|uri|host|version|algorithm|alg|mode"
    r"|policy|scope|audience|issuer|variable|var)\Z"
)
# the public half of a key pair, or a key published on purpose (`PublicKey =`, `pubkey:`, `publishable_key`)
_PUBLIC_KEY = re.compile(r"(?i)pub(?:lic|lishable)?[_.-]?key")
# a token that is a position in a listing, not a credential (`page_token`, `next_token`, `cursor`)
_NOT_CREDENTIAL_KEY = re.compile(r"(?i)(?:page|next|continuation|pagination|sync|resume)[_-]?token")
# a URL with no user info, query or fragment (`https://auth.example.com/oauth2/token`)
_PLAIN_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,20}+://[^\s@?#]{1,512}+")
# a YAML tag (`password: !vault |`, `token: !Ref Param`)
_YAML_TAG = re.compile(r"![A-Za-z]{2,20}")
# a dotted path into the environment or a settings object (`process.env.API_KEY`, `settings.SECRET_KEY`)
_CONFIG_PATH = re.compile(
    r"(?:process\.env|import\.meta\.env|os\.environ|env|ENV|config|Config|settings|secrets|cfg|conf|self|this"
    r"|props|params|vars|context|ctx)\.[A-Za-z_][\w.]{0,120}+"
)


def _is_reference(view: str, key: str, value: str, span: Span) -> bool:
    """A setting, an environment reference, a path or code that names the secret rather than holding it."""
    if placeholder(view, value, span[0]) or _TYPE_NAME.fullmatch(value):
        return True
    if value.isdigit() and _MEASURE_KEY.search(key):
        return True
    if span[0] and view[span[0] - 1] == "`" and " " in value:  # TOKEN=`cat /run/secrets/token`: a command,
        return not any(looks_random(word) for word in value.split())  # unless it echoes a literal
    if (_PATH_KEY.search(key) and _PATH_VALUE.fullmatch(value)) or _NAMED_SETTING.fullmatch(value):
        return True
    if _NAMING_KEY.search(key) or _NOT_CREDENTIAL_KEY.search(key) or _PUBLIC_KEY.search(key):
        return True
    if _PLAIN_URL.fullmatch(value) or _YAML_TAG.fullmatch(value) or _CONFIG_PATH.fullmatch(value):
        return True
    last = value.rsplit(".", 1)[-1].lower()  # self.api_key = api_key, secret = settings.secret
    return bool(re.fullmatch(r"[A-Za-z_][\w.]*", value)) and key.lower().rsplit(".", 1)[-1] == last


# a call whose first argument is a string literal (`token.rstrip(".?!")`, `re.compile(r"…")`)
_LITERAL_CALL = re.compile(r"\([rbuf]{0,2}+[\"']")


def _method_literal(view: str, value: str, at: int) -> bool:
    """`value(` is a method or module function called with a literal: code, even when the literal
    holds characters `CALL_ARGS` does not take (a password never reads `name.attr("…`)."""
    return "." in value and _LITERAL_CALL.match(view, at) is not None


def _literal_argument(view: str, key: str, arg: re.Match[str], accept: Callable[[str, str], bool]) -> bool:
    """`KEY = bytes.fromhex("…")`, `API_KEY = SecretStr("…")`: a random literal passed to a call."""
    literal = arg.group("a")
    if placeholder(view, literal, arg.start("a")) or not accept(key, literal):
        return False
    return looks_random(literal) or HEX_KEY.fullmatch(literal) is not None


# `&` and what follows it up to the next `&`, when that is no query field's name (`&page=2`)
_AMPERSAND_RUN = re.compile(r"&[^\s\"'`,;}<>|&=]++(?!=)")


def _ampersand_tail(view: str, at: int) -> int:
    """Where a bare value that reaches an `&` at `at` ends: a config value holds `&`
    (`merchant.key=6#eN&3fb0&Q`) unless a query field follows (`token=…&page=2`)."""
    while (run := _AMPERSAND_RUN.match(view, at)) is not None:
        at = run.end()
    return at


def _key_value_finder(words: str, accept: Callable[[str, str], bool]) -> Callable[[str], Iterator[Span]]:
    """`key sep value` where the key (a run of `[\\w.-]`) contains one of `words`: find a word, take
    its whole run as the key (each run is examined once), then read the separator and the value.
    The words (lowercase) are searched in the lowercased text, where the regular expression engine
    can skip ahead by their first letters (several times faster than a case-insensitive search)."""
    keyword = re.compile(r"(?i)(?:" + words + r")")
    lowercase = re.compile(r"(?:" + words + r")")

    def find(view: str) -> Iterator[Span]:
        pos = 0
        folded = view.lower()
        hay, words_in = (folded, lowercase) if len(folded) == len(view) else (view, keyword)
        while (hit := words_in.search(hay, pos)) is not None:
            key_end = _KEY_CHARS.match(view, hit.end()).end()  # type: ignore[union-attr]
            pos = max(key_end, hit.end())
            match = _SEP_VALUE.match(view, key_end)
            found = None if match is None else _value(match)
            if match is None or found is None:
                continue
            pos = max(pos, match.end())  # a value is never re-read as keys: each character is read once
            value, span = found
            key = key_before(view, hit.start()) + view[hit.start() : key_end]
            if key.lower() in _NOT_PASSWORDS:
                continue
            if (
                match.group("v") is not None
                and span[1] < len(view)
                and view[span[1]] == "<"
                and _CALLEE.fullmatch(value)
            ):
                continue  # `token = useCookie<string>(…)`: a generic call
            if match.group("v") is not None and view.startswith("[REDACTED]", span[1]):
                continue  # `dsn = postgresql://user:[REDACTED]@host/db`: the secret's part is marked already
            if match.group("v") is not None and span[1] < len(view) and view[span[1]] in "([":
                is_call = CALL_ARGS.match(view, span[1]) or _method_literal(view, value, span[1])
                if is_call and _CALLEE.fullmatch(value):
                    # code: a call names the secret; only a literal argument can be one
                    arg = _QUOTED_ARG.match(view, span[1])
                    if arg is not None and _literal_argument(view, key, arg, accept):
                        yield arg.span("a")
                    continue
                tail = _VALUE_TAIL.match(view, span[1])
                span = (span[0], tail.end())  # type: ignore[union-attr]
                value = view[span[0] : span[1]]
                pos = max(pos, span[1])
            if match.group("v") is not None and view.startswith("&", span[1]):
                span = (span[0], _ampersand_tail(view, span[1]))
                value = view[span[0] : span[1]]
                pos = max(pos, span[1])
            if _is_reference(view, key, value, span):
                continue
            if accept(key, value):
                yield span

    return find


# --- command lines -------------------------------------------------------------------------------

_MYSQL_LINE = re.compile(r"(?i)(?<![\w-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb)(?![\w-])[^\n]*+")
_GLUED_P = re.compile(r"\s-p(?!\[REDACTED\])(?:'(?P<q>[^'\n]{1,256}+)'|\"(?P<d>[^\"\n]{1,256}+)\"|(?P<s>[^\s\"']++))")


def _mysql_password(view: str) -> Iterator[Span]:
    for line in _MYSQL_LINE.finditer(view):
        for flag in _GLUED_P.finditer(line.group()):
            start, end = flag.span(next(g for g in ("q", "d", "s") if flag.group(g) is not None))
            start, end = line.start() + start, line.start() + end
            if not placeholder(view, view[start:end], start):  # `-p"$DB_PASS"` names the password
                yield start, end


_CLI_FLAG = re.compile(
    r"(?i)(?<![\w-])--?(?:[a-z]{1,20}-){0,3}(?:password|passwd|passphrase|pass|pwd|token|api-key|secret|secret-key)(?:=|\s++)"
    # a bare value ends before a backtick: the end of an inline code span (`` `… --token $HF_TOKEN` ``)
    r"(?!-|\[REDACTED\])(?:\"(?P<dq>[^\"\r\n]*+)|'(?P<sq>[^'\r\n]*+)|(?P<v>[^\s\"'`]++))"
)


def _cli_flags(view: str) -> Iterator[Span]:
    for match in _CLI_FLAG.finditer(view):
        found = _value(match)
        if found is not None and not placeholder(view, found[0], found[1][0]) and not _PATH_VALUE.fullmatch(found[0]):
            yield found[1]


_SSHPASS = re.compile(r"(?<![\w-])sshpass[\s+]++-p[\s+]*+(?!\[REDACTED\])" + QUOTED_OR_BARE)


def _sshpass(view: str) -> Iterator[Span]:
    for match in _SSHPASS.finditer(view):
        found = quoted_or_bare(match)
        if found is None or placeholder(view, found[0], found[1][0]):
            continue  # `sshpass -p "$DEPLOY_PASS"` names the password
        if found[2] or len(found[0]) >= 4:
            yield found[1]


# Chinese labels (密码是…, 口令…, 密钥：…, 授权码为…, 授权码是：…) and English keys with a Chinese
# connector (token 是 …); a copula may take a colon after it
_ZH_LABELS = re.compile(
    r"(?:" + ZH_LABEL + r"[)）」】]?"
    r"(?:[ \t]*+(?:(?:是|为|為)(?:[ \t]*+[:：])?|[:：=＝]|[-=]>|→)|[ \t]++|" + OPENING_QUOTE + ")"
    r"|(?i:(?:token|password|passwd|pwd|api[_ -]?key|secret|access[_ -]?key)[a-z_-]{0,20}+"
    r"[ \t]*+(?:(?:是|为|為)(?:[ \t]*+[:：])?|：|＝)))"
    r"[ \t]*+(?!\[REDACTED\])" + QUOTED_OR_BARE
)


_ZH_LABEL_MATCHES = located(_ZH_LABELS, ZH_LABEL + "|token|passw|pwd|api|secret|access")


def _chinese_labels(view: str) -> Iterator[Span]:
    if CJK.search(view) is None:
        return
    for match in _ZH_LABEL_MATCHES(view):
        found = quoted_or_bare(match)
        if found is not None and secretish(found[0].strip(".,;。，；")):
            value, (start, end), _quoted = found
            if placeholder(view, value, start) or CALL_ARGS.search(value):
                continue
            yield start, end - (len(value) - len(value.rstrip(".,;")))


_NETRC_PASSWORD = re.compile(r"(?im)^[ \t]*+password[ \t]++(?P<s>[^\s]++)[ \t]*+$")


def _netrc_password(view: str) -> Iterator[Span]:
    """A `.netrc` line of its own: `password VALUE` and nothing after it."""
    for match in _NETRC_PASSWORD.finditer(view):
        if secretish(match.group("s")) and not placeholder(view, match.group("s"), match.start("s")):
            yield match.span("s")


_AWS_ID = r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}"

# scheme://user:pass@ — the password runs to the last `@` before the host (it may hold `@`, `?`)
_URL_CREDENTIALS = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}://(?P<u>[^/\s:@]*+):(?P<s>[^/\s]*)@")
_TEMPLATE_CHARS = re.compile(r"[\[\]<>{}]")
# a login that names its own slots (`USER:PASS@`, `user:password@`): a template, like `<user>:<pass>`
_SLOT_LOGIN = re.compile(r"(?i)(?:db_?)?user(?:name)?:(?:pass(?:word)?|passwd|pwd)")


def _url_credentials(view: str) -> Iterator[Span]:
    for match in _URL_CREDENTIALS.finditer(view):
        user, secret = match.group("u"), match.group("s")
        if not secret or _TEMPLATE_CHARS.search(user + secret) or placeholder(view, secret, match.start("s")):
            continue
        if _SLOT_LOGIN.fullmatch(f"{user}:{secret}"):
            continue
        yield match.start("u"), match.end("s")


_AUTHORIZATION = re.compile(r"(?i)authorization[\"']?[ \t]*+[:=][ \t]*+(?!\[REDACTED\])(?P<s>[^\r\n]++)")
_AUTH_SCHEME = re.compile(r"(?i)(?:bearer|basic|token|digest|negotiate)[ \t]++")


def _authorization_header(view: str) -> Iterator[Span]:
    """`Authorization: …` to the end of the line, unless the credential is a placeholder."""
    for match in _AUTHORIZATION.finditer(view):
        start = match.start("s")
        scheme = _AUTH_SCHEME.match(view, start)
        cred_start = scheme.end() if scheme else start
        credential = view[cred_start : match.end("s")].split(None, 1)
        if credential and not placeholder(view, credential[0].strip("\"'"), cred_start):
            yield match.span("s")


_BASIC = re.compile(r"(?i)(?<![A-Za-z])basic[ \t]++(?P<s>[A-Za-z0-9+/]{8,512}+={0,2})(?![A-Za-z0-9+/=])")


def _basic_credentials(view: str) -> Iterator[Span]:
    """`Basic <base64 of user:password>` wherever it is written (a header in JSON, after a label)."""
    for match in _BASIC.finditer(view):
        try:
            decoded = base64.b64decode(match.group("s"), validate=True).decode("utf-8")
        except ValueError:
            continue
        if ":" in decoded:
            yield match.span("s")


# a private key written as bare base64, with no armor around it: DER (`MII…`, `MIG…`, `MHc…`, `MC4…`;
# a SEQUENCE whose first element is the version of a private key) or a whole PEM block encoded again
# (`LS0tLS1CRUdJTi…` is `-----BEGIN `, a kubeconfig's `client-key-data`)
_ENCODED_KEY = re.compile(r"(?<![A-Za-z0-9+/])(?:M(?:II|IG|Hc|C4)|LS0tLS1CRUdJTi)[A-Za-z0-9+/]{36,}+={0,2}")
_ENCODED_LABEL = re.compile(r"-----BEGIN (?![A-Z0-9 ]{0,40}?PUBLIC)[A-Z0-9 ]{0,40}?PRIVATE KEY-----")
# after a private key's version (INTEGER 0 or 1): an algorithm (SEQUENCE, PKCS#8), the modulus
# (INTEGER, PKCS#1 RSA, DSA) or the key itself (OCTET STRING, SEC1 EC); a certificate, a public key
# or a signing request starts with a SEQUENCE instead of a version
_KEY_AFTER_VERSION = {0: (0x30, 0x02), 1: (0x04, 0x30)}


def _der_private_key(head: bytes) -> bool:
    """Whether DER bytes start a private key: SEQUENCE, its length, INTEGER 0 or 1, then one of
    `_KEY_AFTER_VERSION`."""
    if len(head) < 8 or head[0] != 0x30:
        return False
    at = 2 if head[1] < 0x80 else 2 + (head[1] & 0x7F)
    version = head[at : at + 3]
    if len(version) < 3 or version[:2] != b"\x02\x01" or version[2] not in _KEY_AFTER_VERSION:
        return False
    return at + 3 < len(head) and head[at + 3] in _KEY_AFTER_VERSION[version[2]]


def _encoded_private_keys(view: str) -> Iterator[Span]:
    """A private key in base64 with no armor (see `_ENCODED_KEY`), read from its first bytes."""
    for match in _ENCODED_KEY.finditer(view):
        value = match.group()
        head = base64.b64decode(value[: min(64, len(value) // 4 * 4)])  # whole groups of four
        if head.startswith(b"-----BEGIN "):
            if _ENCODED_LABEL.match(head.decode("latin-1")):
                yield match.span()
        elif _der_private_key(head):
            yield match.span()


_NETRC_LINE = re.compile(
    r"(?i)(?<![\w-])machine[ \t+]++[^\s+]++[^\n]{0,300}?(?<![\w-])password[ \t+]++(?P<s>[^\s\[&]++)"
)


def _netrc_line(view: str) -> Iterator[Span]:
    for match in _NETRC_LINE.finditer(view):
        if not placeholder(view, match.group("s"), match.start("s")):
            yield match.span("s")


_CLOUD_KEY_PAIR = re.compile(
    _NOT_ALNUM + r"(?:LTAI[A-Za-z0-9]{12,30}+|AKID[A-Za-z0-9]{13,40}+)(?![A-Za-z0-9])[\s\"',:;|=]{1,8}+"
    r"(?P<s>[A-Za-z0-9+/]{16,64}+)(?![A-Za-z0-9+/])"
)


def _cloud_key_pair(view: str) -> Iterator[Span]:
    for match in _CLOUD_KEY_PAIR.finditer(view):
        if looks_random(match.group("s")):
            yield match.span("s")


_RULES: tuple[Rule, ...] = (
    # armored blocks whose label names a secret: PEM private keys (RSA, EC, DSA, OPENSSH, PKCS#8,
    # encrypted), PGP private key blocks, a seed, a token, a JWT (`-----BEGIN USER NKEY SEED-----`),
    # also when cut off; a label naming a public key or none of these (a certificate) is no secret
    token(
        "private_key_block",
        r"-----BEGIN (?=[A-Z0-9 ]{0,40}?(?:PRIVATE KEY|SEED|SECRET|TOKEN|JWT|PASSWORD|CREDENTIAL))"
        r"(?![A-Z0-9 ]{0,40}?PUBLIC)[A-Z0-9 ]{1,48}+-----"
        r".*?(?:-{5,}END [A-Z0-9 ]{1,48}+-{5,}|\Z)",
        re.DOTALL,
    ),
    # credentials in URLs: scheme://user:pass@ and scheme://:pass@ (redis, amqp, postgres, …)
    Rule("url_credentials", _url_credentials),
    Rule("authorization_header", _authorization_header),
    Rule("basic_credentials", _basic_credentials),
    Rule("encoded_private_key", _encoded_private_keys),
    grouped(
        "bearer", r"(?i)bearer\s++(?!\[REDACTED\])(?P<s>(?=[A-Za-z0-9._~+/=-]*?[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,})"
    ),
    Rule("key_value", _key_value_finder(_STRONG, lambda _key, _value: True)),
    Rule("secret_context", _key_value_finder(_CONTEXT, context_secret)),
    Rule("cli_password_flag", _cli_flags),
    Rule("mysql_password_flag", _mysql_password),
    Rule("sshpass", _sshpass),
    Rule("chinese_label", _chinese_labels),
    Rule("netrc_line", _netrc_line),
    grouped("openssl_key_flag", r"(?<![\w-])-K[ \t]++(?P<s>[0-9a-fA-F]{32,128}+)(?![0-9a-fA-F])"),
    Rule("netrc_password", _netrc_password),
    # OpenAI (sk-, sk-proj-, sk-svcacct-, sk-admin-; legacy keys carry "T3BlbkFJ") and Anthropic
    token("openai_project_key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{12,}"),
    token("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{12,}"),
    token("openai_key", _NOT_ALNUM + r"sk-[A-Za-z0-9]{12,}[A-Za-z0-9_-]*+"),
    token("openai_key_glued", r"sk-[A-Za-z0-9]{20,}[A-Za-z0-9_-]*+"),
    token("openai_marker", r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{0,200}T3BlbkFJ[A-Za-z0-9_-]*+"),
    # GitHub, GitLab
    token("github_token", r"gh[pousr]_[A-Za-z0-9]{30,}"),
    token("github_token_short", _NOT_ALNUM + r"gh[pousr]_[A-Za-z0-9]{12,}"),
    token("github_pat", r"github_pat_[A-Za-z0-9_]{12,}"),
    token("gitlab_token", r"gl(?:pat|dt|rt|ptt|ft|cbt|imt|oas|soat|ffct|agent)-[A-Za-z0-9_-]{20,}"),
    # Slack: a short one needs the number every kind of token has after its dash (`xoxb-1234-…`)
    token("slack_token", r"xox[a-zA-Z]-[A-Za-z0-9-]{10,}"),
    token("slack_token_short", _NOT_ALNUM + r"xox[a-zA-Z]-[0-9][A-Za-z0-9-]{3,}"),
    token("slack_app_token", r"xapp-[A-Za-z0-9-]{4,}"),
    grouped("slack_webhook", r"hooks\.slack\.com/(?P<s>(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{8,})"),
    grouped("discord_webhook", r"discord(?:app)?\.com/api/webhooks/(?P<s>[0-9]{5,30}/[A-Za-z0-9_-]{20,})"),
    # AWS: key ids anywhere, and a 40-char secret written next to one
    token("aws_key_pair", _AWS_ID + r"[\s\"',:;|=]{1,8}[" + _B64 + r"]{40}(?![" + _B64 + r"])"),
    token("aws_access_key_id", _AWS_ID + r"(?<!EXAMPLE)"),  # AWS's own docs example stays
    # the secret written right after an Alibaba or Tencent key id (`Credential("AKID…", "…")`)
    Rule("cloud_key_pair", _cloud_key_pair),
    # Alibaba Cloud and Tencent Cloud access key ids
    token("aliyun_access_key_id", _NOT_ALNUM + r"LTAI[A-Za-z0-9]{12,30}+(?![A-Za-z0-9])"),
    token("tencent_secret_id", _NOT_ALNUM + r"AKID[A-Za-z0-9]{13,40}+(?![A-Za-z0-9])"),
    # Google
    token("google_api_key", r"AIza[0-9A-Za-z_-]{35}"),
    token("google_oauth_secret", r"GOCSPX-[A-Za-z0-9_-]{20,}"),
    token("google_oauth_token", r"ya29\.[0-9A-Za-z_-]{20,}"),
    token("google_refresh_token", _NOT_ALNUM + r"1//0[0-9A-Za-z_-]{30,}"),
    # payment, mail, messaging
    token("stripe_key", r"(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{10,}"),
    token("stripe_webhook_secret", r"whsec_[A-Za-z0-9]{20,}"),
    token("sendgrid_key", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}"),
    token("mailgun_key", _NOT_ALNUM + r"key-[0-9a-f]{32}"),
    token("mailchimp_key", r"[0-9a-f]{32}-us[0-9]{1,2}(?![0-9])"),
    token("twilio_api_key", _NOT_ALNUM + r"SK[0-9a-fA-F]{32}(?![0-9a-fA-F])"),
    token("telegram_bot_token", r"(?<![0-9])[0-9]{8,10}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"),
    token("discord_bot_token", _NOT_ALNUM + r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"),
    token("square_token", r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}"),
    token("shopify_token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    # Azure
    grouped("azure_account_key", r"(?i)(?:account|sharedaccess)key\s*+=\s*+(?P<s>[" + _B64 + r"=]{20,})"),
    grouped("azure_sas_signature", r"(?i)[?&;]sig=(?P<s>[A-Za-z0-9%+/=]{16,})"),
    # package registries, developer platforms
    token("npm_token", r"npm_[A-Za-z0-9]{36}"),
    token("pypi_token", r"pypi-Ag[A-Za-z0-9_-]{50,}"),
    token("huggingface_token", r"(?:hf_|api_org_)[A-Za-z0-9]{30,}"),
    token("docker_hub_token", r"dckr_pat_[A-Za-z0-9_-]{20,}"),
    token("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}"),
    token("databricks_token", r"dapi[a-f0-9]{32}(?:-[0-9])?"),
    token("linear_key", r"lin_api_[A-Za-z0-9]{40}"),
    token("postman_key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    token("grafana_token", r"(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[a-f0-9]{8})"),
    token("hashicorp_vault_token", r"hv[sb]\.[A-Za-z0-9_-]{24,}"),
    token("age_secret_key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    token("notion_token", r"(?:secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35})"),
    token("jwt", r"eyJ[A-Za-z0-9_-]{4,}+\.eyJ[A-Za-z0-9_-]{4,}+\.[A-Za-z0-9_-]*+"),
)

_KEYS = ("key", "pass", "pwd", "secret", "credential", "token")
_CONTEXTS = ("key", "auth", "sig", "salt", "cred", "cookie", "session", "dsn", "conn", "ak", "sk")
_GITLAB = ("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "glimt-", "gloas-", "glsoat-", "glffct-")
_AWS = ("akia", "asia", "abia", "acca", "a3t")
# the literal each rule's matches hold, lowercased (see `Rule.needs`); a rule not listed always runs
_NEEDS: dict[str, tuple[str, ...]] = {
    "private_key_block": ("-----begin ",),
    "url_credentials": ("://",),
    "authorization_header": ("authorization",),
    "basic_credentials": ("basic",),
    "encoded_private_key": ("mii", "mig", "mhc", "mc4", "ls0tls1crudjti"),
    "bearer": ("bearer",),
    "key_value": _KEYS,
    "secret_context": _CONTEXTS,
    "cli_password_flag": ("pass", "pwd", "token", "api-key", "secret"),
    "mysql_password_flag": ("mysql", "mariadb"),
    "sshpass": ("sshpass",),
    "netrc_line": ("machine",),
    "openssl_key_flag": ("-k",),
    "netrc_password": ("password",),
    "openai_project_key": ("sk-",),
    "anthropic_key": ("sk-ant-",),
    "openai_key": ("sk-",),
    "openai_key_glued": ("sk-",),
    "openai_marker": ("t3blbkfj",),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github_token_short": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github_pat": ("github_pat_",),
    "gitlab_token": (*_GITLAB, "glagent-"),
    "slack_token": ("xox",),
    "slack_token_short": ("xox",),
    "slack_app_token": ("xapp-",),
    "slack_webhook": ("hooks.slack.com/",),
    "discord_webhook": ("/api/webhooks/",),
    "aws_key_pair": _AWS,
    "aws_access_key_id": _AWS,
    "cloud_key_pair": ("ltai", "akid"),
    "aliyun_access_key_id": ("ltai",),
    "tencent_secret_id": ("akid",),
    "google_api_key": ("aiza",),
    "google_oauth_secret": ("gocspx-",),
    "google_oauth_token": ("ya29.",),
    "google_refresh_token": ("1//0",),
    "stripe_key": ("_live_", "_test_"),
    "stripe_webhook_secret": ("whsec_",),
    "sendgrid_key": ("sg.",),
    "mailgun_key": ("key-",),
    "mailchimp_key": ("-us",),
    "twilio_api_key": ("sk",),
    "telegram_bot_token": (":",),
    "discord_bot_token": (".",),
    "square_token": ("sq0",),
    "shopify_token": ("shpat_", "shpss_", "shpca_", "shppa_"),
    "azure_account_key": ("accountkey", "sharedaccesskey"),
    "azure_sas_signature": ("sig=",),
    "npm_token": ("npm_",),
    "pypi_token": ("pypi-",),
    "huggingface_token": ("hf_", "api_org_"),
    "docker_hub_token": ("dckr_pat_",),
    "digitalocean_token": ("_v1_",),
    "databricks_token": ("dapi",),
    "linear_key": ("lin_api_",),
    "postman_key": ("pmak-",),
    "grafana_token": ("glc_", "glsa_"),
    "hashicorp_vault_token": ("hvs.", "hvb."),
    "age_secret_key": ("age-secret-key-1",),
    "notion_token": ("secret_", "ntn_"),
    "jwt": ("eyj",),
}
RULES: tuple[Rule, ...] = with_needs(_RULES, _NEEDS)
