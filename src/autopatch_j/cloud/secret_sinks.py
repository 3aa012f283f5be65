"""Secrets found by where they go (C-24): key material handed to a keyed primitive, base64 that
decodes to a login, a key id beside its secret on a command line, a value written into a secret's
file.

* `keyed_argument`: a string literal (quoted, with a string prefix — `b'…'` — or inside a byte
  conversion — `[]byte("…")`, `Buffer.from('…')`) among the arguments of a call whose name holds a
  word of `KEYED_CALL_WORDS` (`hmac.New`, `createHmac`, `generateSignature`, `BceCredentials`), or
  joined with `+` into the input of a call naming a digest (`sha256(body + '…')`, a salt). The
  literal must read as key material (`_key_material`); the call is looked for at most
  `CALL_REACH` characters back on the literal's line, so the work per literal is bounded.
  A literal that looks random is also a secret as the first argument of a setter or builder
  whose name ends in a secret's word (`.apiV3Key("…")`, `SECRET_LAST_WORDS`).
* `encoded_login`: base64 of `user:password` (or of `key:` or `:key`, a Basic header's input with
  an empty password or an empty user, as for a personal access token) wherever it stands, without
  the `Basic` word before it; base64 of a JSON document with a key's field holding a random value
  (an Elasticsearch enrollment token); a literal `key:` or `user:password` handed to a base64
  encoder on its line (`Buffer.from('…:').toString('base64')`). Base64 of a FIX message is read
  by its fields (`secret_protocols.fix_credentials`): a secret when it carries a password field,
  never a login (a heartbeat's `52=…-01:32:59` is no `user:password`).
* `argv_key_pair`: on a command line, a key id (16–32 capitals and digits) followed — after blanks
  or a short flag (`-k=`) — by a random-looking secret of 30–128 characters of both cases
  (`mc alias set NAME URL <id> <secret>`, `tool -i=<id> -k=<secret>`).
* `written_to_secret_file`: a value `echo`ed or `printf`ed into a file whose name ends in a secret's
  word (`echo '…' > ~/.vault_pass`, `>> db.password`).
* `key_store_password`: the string literal an argument list hands right after the name of a key
  store file (`.pfx`, `.p12`, `.jks`, `.keystore`, `.bks`): the password that opens it
  (`new X509Certificate2(@"…\\sign.pfx", "…")`, `load(new FileInputStream("app.jks"), "…".toCharArray())`);
  another file's name there stays.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from autopatch_j.cloud.secret_protocols import fix_credentials, fix_message
from autopatch_j.cloud.secret_rules import Rule
from autopatch_j.cloud.secret_values import REDACTED, looks_random, placeholder, secretish

__all__ = [
    "CALL_REACH",
    "DIGEST_CALL_WORDS",
    "KEYED_CALL_WORDS",
    "SECRET_LAST_WORDS",
    "SINK_RULES",
    "callees",
]

Span = tuple[int, int]

CALL_REACH = 160
#: A call's first argument of digits and the quote opening the literal after it
#: (`TLSSig(1400573459, '…')`, `Client(20261104, "…")`): an app's number passed before its secret.
APP_ID_ARGUMENT = re.compile(r"\([ \t]*+(?P<digits>[0-9]{6,20}+)[ \t]*+,[ \t]*+[\"']")
# words of a call's name that make its literal arguments key material
KEYED_CALL_WORDS = frozenset(
    {"hmac", "sign", "signature", "signer", "checksum", "credential", "credentials", "cipher", "encrypt", "decrypt"}
)
# the last word of a setter's or builder's name that names a secret (`.apiV3Key("…")`); its literal
# argument is a secret when it looks random (`.cacheKey("user:42")` is no key)
SECRET_LAST_WORDS = frozenset({"key", "secret", "token", "password", "passphrase", "passwd"})
_PUBLIC_WORDS = frozenset({"public", "pub", "publishable"})
# words of a call's name that make a literal joined into its input a salt or a key
DIGEST_CALL_WORDS = frozenset({"md5", "sha1", "sha256", "sha512", "sha", "hash", "digest", "hashlib"})
# words of a call's name, or of the text after a literal, that encode base64
_ENCODER_WORDS = frozenset({"btoa", "b64encode", "base64", "encodetostring"})

# a quoted literal of token characters (no blank: a message or a sentence is no key)
_LITERAL = re.compile(r"(?P<q>[\"'])(?P<s>[^\s\"'\\]{12,256}+)(?P=q)")
_NAME_WORD = re.compile(r"[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*(?![a-z])|[0-9]+")
_CALLEE_BEFORE = re.compile(r"[A-Za-z_][\w.:$]{0,80}\Z")
_JOINED = re.compile(r"[ \t]*+\+[ \t]*+\Z")
_JOINED_AFTER = re.compile(r"[ \t]*+\+")
_HEX = re.compile(r"[0-9a-fA-F]{16,128}")
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_LETTER = re.compile(r"[A-Za-z]")
_DIGIT = re.compile(r"[0-9]")
_SYMBOL = re.compile(r"[^A-Za-z0-9]")
_NOT_KEY = re.compile(r"(?i)://|^[./~]|\.(?:pem|key|json|ya?ml|txt|crt|p12|jks)\Z|^[a-z]+(?:[-_.][a-z0-9]+)*\Z")


def _words(name: str) -> set[str]:
    return {w.lower() for w in _NAME_WORD.findall(name)}


def _key_material(value: str, *, hex_or_uuid: bool) -> bool:
    """A literal that reads as a key: random-looking, or letters with digits and symbols (a merchant
    key such as `k#7Tq&2mZ9p!Lx4W`), or (`hex_or_uuid`) a hex run or a UUID; never a path, a URL,
    a file name or a lowercase dotted or dashed name."""
    if _NOT_KEY.search(value) or value.startswith(REDACTED):
        return False
    if looks_random(value):
        return True
    if hex_or_uuid and (_HEX.fullmatch(value) or _UUID.fullmatch(value)):
        return True
    return bool(_LETTER.search(value) and _DIGIT.search(value) and _SYMBOL.search(value))


def callees(view: str, at: int) -> list[str]:
    """The names of the calls still open at `at`, innermost first, read back at most `CALL_REACH`
    characters and never past the start of the line or a `[REDACTED]` mark."""
    floor = max(view.rfind("\n", 0, at) + 1, at - CALL_REACH)
    mark = view.rfind(REDACTED, floor, at)
    if mark != -1:  # a call is never read across a redacted value: the second pass reads as the first
        floor = mark + len(REDACTED)
    names: list[str] = []
    depth = 0
    for i in range(at - 1, floor - 1, -1):
        char = view[i]
        if char == ")":
            depth += 1
        elif char == "(":
            if depth:
                depth -= 1
                continue
            name = _CALLEE_BEFORE.search(view, max(floor, i - 80), i)
            if name is not None:
                names.append(name.group())
            if len(names) == 3:
                break
    return names


def _keyed_arguments(view: str) -> Iterator[Span]:
    for match in _LITERAL.finditer(view):
        value = match.group("s")
        names = callees(view, match.start())
        if names and _keyed(view, match, names) and not placeholder(view, value, match.start("s")):
            yield match.span("s")


def _keyed(view: str, match: re.Match[str], names: list[str]) -> bool:
    """Whether the literal of `match`, inside the calls `names` (innermost first), is key material."""
    value = match.group("s")
    words = set().union(*(_words(name) for name in names))
    if words & KEYED_CALL_WORDS:
        return _key_material(value, hex_or_uuid=True)
    if _named_setter(names[0], view, match.start()):
        return looks_random(value) and _key_material(value, hex_or_uuid=False)
    if words & DIGEST_CALL_WORDS and _joined(view, match):
        return _key_material(value, hex_or_uuid=True)
    return False


def _named_setter(name: str, view: str, at: int) -> bool:
    """A call whose name is two words or more, ends in a secret's word and names no public key (a
    bare `key(…)` builds a lookup key), with the literal as its first argument (`.apiV3Key("…")`, `withSecret('…')`)."""
    found = _NAME_WORD.findall(name.rsplit(".", 1)[-1])
    if len(found) < 2 or found[-1].lower() not in SECRET_LAST_WORDS:
        return False
    if any(word.lower() in _PUBLIC_WORDS for word in found):
        return False
    return view[view.rfind("(", 0, at) + 1 : at].strip() == ""


def _joined(view: str, match: re.Match[str]) -> bool:
    """Whether the literal is joined to another operand with `+` (`path + '…'`, `'…' + body`)."""
    before = view[max(0, match.start() - 4) : match.start()]
    return _JOINED.search(before) is not None or _JOINED_AFTER.match(view, match.end()) is not None


# a base64 run of its own, 16 to 512 characters with its padding; it may follow a name's `=`
# (`AZDO_BASIC=…`), not padding (`==`) or a bare `=`
_BASE64 = re.compile(
    r"(?<![A-Za-z0-9+/_\-.])(?<!==)(?<![^A-Za-z0-9_]=)[A-Za-z0-9+/]{16,512}+={0,2}(?![A-Za-z0-9+/=_\-.])"
)
# what a login decodes to: a user (or key) of printable characters, `:`, a password
_LOGIN = re.compile(r"(?P<u>[\x21-\x39\x3b-\x7e]{0,128}):(?P<p>[\x21-\x7e]{0,256})")
# a quoted `key:` or `user:password` literal (no quote inside)
_LOGIN_LITERAL = re.compile(
    r"(?P<q>[\"'])(?P<s>[\x21-\x26\x28-\x39\x3b-\x7e]{6,128}:[\x21-\x26\x28-\x7e]{0,128})(?P=q)"
)
_ENCODER_AHEAD = 48


def _decoded_login(text: str) -> bool:
    """Whether `text` is a login: `user:password` with a password that is no URL's path or a port,
    or `key:` after a random-looking key, or `:key` before one (a token with an empty user: a
    personal access token's Basic header); never JSON or markup."""
    found = _LOGIN.fullmatch(text)
    if found is None or any(c in text for c in "{}<>\"'"):
        return False
    user, password = found.group("u"), found.group("p")
    if not user:
        return looks_random(password)
    if not password:
        return looks_random(user)
    if password.startswith("//") or password.isdigit():
        return False
    return len(password) >= 6 and bool(_LETTER.search(user))


# a JSON field that names key material and holds a random-looking string (`"key": "olGu…:zGod…"`)
_KEYED_FIELD = re.compile(
    r"(?i)\"[a-z_]{0,24}(?:key|secret|token|password|passwd)[a-z_]{0,8}\"[ \t]*+:[ \t]*+\"(?P<v>[^\"\\]{16,512}+)\""
)


def _keyed_document(text: str) -> bool:
    """Whether `text` (decoded base64) is a JSON document carrying a key: an enrollment token, a
    service account's key file, a token whose payload holds its secret."""
    if text[:1] != "{":
        return False
    return any(looks_random(found.group("v")) for found in _KEYED_FIELD.finditer(text))


def _encoded_logins(view: str) -> Iterator[Span]:
    for match in _BASE64.finditer(view):
        run = match.group()
        if len(run) % 4:
            continue
        try:
            text = base64.b64decode(run, validate=True).decode("ascii")
        except (binascii.Error, ValueError):
            continue
        if fix_message(text):
            if any(fix_credentials(text)):
                yield match.span()  # a FIX message is read by its fields: a logon's password
            continue
        if _decoded_login(text) or _keyed_document(text):
            yield match.span()
    if "(" not in view:
        return
    for match in _LOGIN_LITERAL.finditer(view):
        value = match.group("s")
        names = callees(view, match.start())
        words = set().union(*(_words(name) for name in names)) if names else set()
        line_end = view.find("\n", match.end())
        ahead = view[match.end() : min(match.end() + _ENCODER_AHEAD, len(view) if line_end == -1 else line_end)]
        if (words & _ENCODER_WORDS or "base64" in ahead.lower()) and _decoded_login(value):
            user, _, password = value.partition(":")
            if password and not placeholder(view, password, match.start("s") + len(user) + 1):
                yield match.start("s") + len(user) + 1, match.end("s")
            elif not password and not placeholder(view, user, match.start("s")):
                yield match.start("s"), match.start("s") + len(user)


# a key id, then blanks or a short flag, then its secret: both whole runs of their own
_ARGV_PAIR = re.compile(
    r"(?<![\w+/=.-])(?P<id>[A-Z0-9]{16,32}+)[ \t]++(?:-[A-Za-z]{1,2}[ \t=][ \t]*+)?"
    r"(?P<s>[A-Za-z0-9+/_-]{30,128}+={0,2})(?![\w+/=.-])"
)
_ARGV_PAIR_FLAGGED = re.compile(
    r"(?<![\w-])-[A-Za-z]{1,2}[ \t=][ \t]*+(?P<id>[A-Z0-9]{16,32}+)[ \t]++-[A-Za-z]{1,2}[ \t=][ \t]*+"
    r"(?P<s>[A-Za-z0-9+/_-]{30,128}+={0,2})(?![\w+/=.-])"
)
_LOWER = re.compile(r"[a-z]")
_UPPER = re.compile(r"[A-Z]")


def _key_id(value: str) -> bool:
    """Capitals and digits, both, and not all hex (a digest in capitals)."""
    return bool(_DIGIT.search(value) and _UPPER.search(value)) and _HEX.fullmatch(value) is None


def _argv_pairs(view: str) -> Iterator[Span]:
    seen: set[int] = set()
    for pattern in (_ARGV_PAIR_FLAGGED, _ARGV_PAIR):
        for match in pattern.finditer(view):
            key_id, secret = match.group("id"), match.group("s")
            if match.start("s") in seen or not _key_id(key_id):
                continue
            if looks_random(secret) and _LOWER.search(secret) and _UPPER.search(secret):
                seen.add(match.start("s"))
                yield match.span("id")
                yield match.span("s")


# `echo '…' > ~/.vault_pass`: a value written into a file
_WRITTEN = re.compile(
    r"(?<![\w-])(?:echo|printf)[ \t]++(?:-[neE]{1,2}[ \t]++)?(?P<q>[\"']?)(?P<s>[^\s\"'|<>;&]{4,256}+)(?P=q)"
    r"[ \t]*+>>?[ \t]*+(?P<f>[^\s;&|<>\"']{1,128}+)"
)
# the last word of a file's name that names a secret (`.vault_pass`, `db.password`, `~/.pgpass`)
_SECRET_FILE = re.compile(r"(?i)(?:pass|passwd|password|secret|token|key|credentials?|pwd)(?:\.txt)?\Z")


def _written_to_secret_files(view: str) -> Iterator[Span]:
    for match in _WRITTEN.finditer(view):
        value, name = match.group("s"), match.group("f").rsplit("/", 1)[-1]
        if _SECRET_FILE.search(name) is None or name.endswith((".pub", ".pem.pub")):
            continue
        if secretish(value) and not placeholder(view, value, match.start("s")):
            yield match.span("s")


# `new X509Certificate2(@"D:\certs\sign.pfx", "…")`, `load(new FileInputStream("app.jks"), "…".toCharArray())`:
# the string literal an argument list hands right after a key store file's name opens that store
_KEY_STORE_FILE = ("pfx", "p12", "jks", "keystore", "bks")
_KEY_STORE_PASSWORD = re.compile(
    r"(?i:\.(?:" + "|".join(_KEY_STORE_FILE) + r"))[\"'][ \t]*+\)?[ \t]*+,[ \t]*+[@$]?(?P<q>[\"'])"
    r"(?!\[REDACTED\])(?P<s>[^\"'\r\n]{4,128}+)(?P=q)"
)


def _key_store_passwords(view: str) -> Iterator[Span]:
    for match in _KEY_STORE_PASSWORD.finditer(view):
        value = match.group("s")
        if not _KEY_STORE_FILE_NAME.search(value) and not placeholder(view, value, match.start("s")):
            yield match.span("s")


# a second file's name is no password (`("server.p12", "trust.jks")`)
_KEY_STORE_FILE_NAME = re.compile(r"(?i)\.(?:" + "|".join(_KEY_STORE_FILE) + r"|pem|crt|cer|key)\Z")


SINK_RULES: tuple[Rule, ...] = (
    Rule("keyed_argument", _keyed_arguments, ("(",)),
    Rule("encoded_login", _encoded_logins),
    Rule("argv_key_pair", _argv_pairs),
    Rule("written_to_secret_file", _written_to_secret_files, (">",)),
    Rule("key_store_password", _key_store_passwords, _KEY_STORE_FILE),
)
