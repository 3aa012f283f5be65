"""How a secret's value reads, shared by the rule tables (`secret_rules`, `secret_shapes`): whether
a value is a placeholder rather than a literal (a setting, a reference, a path, a stand-in, a masked
or withheld value, a credential its vendor publishes in its docs), whether it looks random or like
a password, the quoted-or-bare value grammar after a label, and the key run before a position.

Every pattern here runs in linear time: quantifiers are bounded or possessive.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache
from importlib import resources

REDACTED = "[REDACTED]"


Span = tuple[int, int]


_RUN_TAIL = re.compile(r"[\w.-]*+\Z")


def key_before(view: str, pos: int) -> str:
    """The last ≤ 64 chars of the `[\\w.-]` run that ends at `pos` (enough to name a key)."""
    window = view[max(0, pos - 64) : pos]
    match = _RUN_TAIL.search(window)
    return match.group() if match else ""


# a flag, a number, a version, or a calendar date (`2025/1/7`, `2025-01-07`: when a password was last set);
# a version's tail holds no run of 24 hex digits (`24.<32 hex>.2592000.…`: a token numbered like one)
SETTING = re.compile(
    r"(?i)(?:true|false|null|none|nil|yes|no|on|off|required|optional|~|\d{1,5}|\*+"
    r"|[\^~<>=]{0,2}v?\d+(?:\.\d+)+(?![\w.+-]*?[0-9a-f]{24})[\w.+-]*"
    r"|[12][0-9]{3}(?:/[01]?[0-9]/[0-3]?[0-9]|-[01]?[0-9]-[0-3]?[0-9]))"
)


# a variable's name is at most 64 characters: a longer `$…` run is a value that starts with `$`
ENV_REF = re.compile(
    r"\$\{?[A-Za-z_][A-Za-z0-9_]{0,63}\}?|%\(?\w+\)?s?|\{\{[^}]*\}\}|<[^>]*>"
    # an environment variable read in code (`process.env.DB_PASSWORD`, `import.meta.env.VITE_KEY`)
    r"|(?:process\.env|import\.meta\.env|ENV|env)\.[A-Za-z_][A-Za-z0-9_]{0,63}"
    # a constant of a generated settings class (`BuildConfig.MAPS_KEY`, `AppSecrets.UPLOAD_TOKEN`)
    r"|[A-Z][a-z]{1,20}(?:[A-Z][a-z]{1,20}){1,4}\.[A-Z][A-Z0-9]{0,30}(?:_[A-Z0-9]{1,30}){1,6}"
)


# where a value is a reference rather than a literal: `${VAR}`, `${{ secrets.X }}`, `{{ x }}`, `<your token>`
_REF_START = re.compile(r"\$\{|\$\(|\{\{|%\(|<[A-Za-z_ ]")


# a documentation example key (AWS's published examples end in EXAMPLE / EXAMPLEKEY)
_DOCS_EXAMPLE = re.compile(r"EXAMPLE(?:KEY)?\Z")


# the claims of a specification's or a tutorial's example token (jwt.io's): a placeholder person
_EXAMPLE_CLAIMS = re.compile(r'"name"[ \t]*+:[ \t]*+"(?:John|Jane) Doe"')


def example_token(value: str) -> bool:
    """A JSON Web Token whose payload names a placeholder person (`"name": "John Doe"`): a
    documentation example, not a credential."""
    parts = value.split(".") if value.startswith("eyJ") else ()
    if len(parts) != 3 or not parts[1].startswith("eyJ"):
        return False
    try:
        payload = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)).decode("utf-8", "replace")
    except (ValueError, binascii.Error):
        return False
    return _EXAMPLE_CLAIMS.search(payload) is not None


# the arguments of a call, as code writes them: `os.getenv("X")`, `get_token()`, `environ["X"]`
CALL_ARGS = re.compile(r"[(\[](?:[\w\s.,\"':/-]|\[REDACTED\]){0,80}+[)\]]")


# a value written in place of a secret: `YOUR_API_KEY`, `your-token-here`, `REPLACE_ME`, `xxxx`, a
# masked value (`sk-…****3xQa`, `••••`, `abc...xyz`)
_STAND_IN = re.compile(r"(?i)your[_-][\w-]*+|x{3,}+(?:[-_.: ]x{3,}+){0,16}+")


_STAND_IN_WORD = re.compile(r"(?i)replace[_-]?me|placeholder")


# a word written in place of a value, without a digit: `changeme`, `CHANGE_ME`, `dummy`, `example`
_STAND_IN_PLAIN = re.compile(
    r"(?i)(?:[a-z]{1,12}[_-])?(?:change[_-]?(?:me|it)|dummy|example|sample|todo|tbd|fixme)(?:[_-][a-z]{1,12})?"
)


_WORDY = re.compile(r"[\w-]*+")


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")


_MASKED = re.compile(r"\*{3}|•{2}|\.{3}|…|x{6}|X{6}")
# one character eight times or more (`FFFFFFFFFFFF`, `0000000000000000`): a fill or a factory default
_ONE_CHARACTER = re.compile(r"(.)\1{7,}+")


# a value already withheld by someone else: `REDACTED`, `***FILTERED***`, `<hidden>`, `(masked)`
_WITHHELD = re.compile(r"(?i)[\[(<*]{0,3}(?:redacted|filtered|hidden|masked|removed|omitted)[\])>*]{0,3}")


# a file name (`rust-toolchain.toml`, `service-account.json`) and a template part in a value
_FILE_NAME = re.compile(
    r"[\w.-]{1,64}+\.(?:toml|json|ya?ml|env|ini|cfg|conf|txt|pem|key|crt|cer|p12|pfx|jks|py|js|ts|sh|lock|xml)"
)


_TEMPLATE_PART = re.compile(r"<[A-Za-z_][\w -]{0,30}+>|\{\{|\$\{")


# a path to a file (`/etc/gcp/service-account.json`, `~/.aws/credentials.ini`, an object's key
# `movies/FoilHole_0412_Data.tiff`), under a home directory (`~/.ssh/id_ed25519`) or of lowercase
# segments (`/home/ci/.ssh/id_ed25519`; base64 mixes cases): names a secret
_FILE_PATH = re.compile(
    r"(?:(?:~|\.{1,2})?/(?:[\w.-]{1,64}+/){1,16}+|[\w-]{1,64}+/(?:[\w.-]{1,64}+/){0,16}+)[\w-]{1,64}+\.[A-Za-z]{2,5}"
    r"|~/(?:[\w.-]{1,64}+/){0,16}+[\w.-]{1,64}+|/(?:[a-z0-9_.-]{1,64}+/){2,16}+[a-z0-9_.-]{1,64}+"
)
# a W3C trace context (`traceparent`: version, trace id, parent id, flags): identifies a request
_TRACE_CONTEXT = re.compile(r"[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")
# a template's slot right before a value that joins it (`<password>@db01.internal`, `<host>:5432`):
# the value is the template's rest (an element's text, `<password>@Xe4…</password>`, is none)
_SLOT_BEFORE = re.compile(r"<[^<>\s]{1,30}+>\Z")
_SLOT_JOINS = frozenset("@:/.")


#: Names and references that hold no secret whatever key they follow: an environment variable's or a
#: constant's name in quotes (`"ANTHROPIC_API_KEY"`), a secret store's reference (`vault:kv/data/prod#db_pass`,
#: `arn:aws:secretsmanager:…`, or any store's after the `ref+` mark: `ref+vault://kv/app#/key`, read
#: with the `+` a form's blank leaves before it), the digest a webhook signs a public payload with
#: (`sha256=…`) or that names a stored object (`sha256:…` of an image, an LFS object), and a
#: subresource integrity digest (`sha512-<base64>`: a lockfile's or a script tag's hash of a
#: published file, or its first line when wrapped).
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*+(?:_[A-Z0-9]++)++")
_STORE_REF = re.compile(r"(?i)(?:vault|ssm|secretsmanager|sm|gcpsm|azkv|keyvault|sops|doppler|infisical):[\w/.#:@-]++")
_MARKED_REF = re.compile(r"\+?ref\+[a-z][a-z0-9]{1,23}+://[\w/.#:@+-]++")
# the digest's base64 after its algorithm: 32, 48 or 64 bytes (at most 43, 64 or 86 characters and padding)
_INTEGRITY = re.compile(r"sha(?:256-[A-Za-z0-9+/]{8,43}+=?|384-[A-Za-z0-9+/]{8,64}+|512-[A-Za-z0-9+/]{8,86}+(?:==)?)")
_ARN = re.compile(r"arn:aws[\w-]*+:[\w-]++:[\w-]*+:\d*+:[\w/.:+=@-]++")
_ARN_HEAD = re.compile(r"arn:aws[\w-]*+:[\w-]++:\Z")  # the rest of an ARN read as a value
_PAYLOAD_DIGEST = re.compile(r"(?i)sha(?:1|256|384|512)[=:][0-9a-f]{40,128}")
#: An IAM action after its service (`secretsmanager:GetSecretValue`, `kms:Decrypt`).
_IAM_ACTION = re.compile(r"[A-Z][a-z]++(?:[A-Z][a-z]*+)*+\*?")
_IAM_SERVICE = re.compile(r"(?<![\w-])[a-z][a-z0-9-]{1,30}+:\Z")
_IAM_AFTER = frozenset(" \t\r\n\"',]")


def placeholder(view: str, value: str, start: int) -> bool:
    """A value that is no literal secret: a setting, a reference or the name inside one, a path, a
    docs example key or token, a stand-in, a masked value or a publishable key, one character
    repeated (a fill, a factory default), an environment variable's name, a secret store's
    reference, a value encrypted in place (`ENC[…]`), a public payload's digest or an IAM action."""
    if not value or SETTING.fullmatch(value) or ENV_REF.fullmatch(value) or value.startswith(REDACTED):
        return True
    if _STORE_REF.fullmatch(value) or _MARKED_REF.fullmatch(value) or _INTEGRITY.fullmatch(value):
        return True
    if _ARN.fullmatch(value) or _ARN_HEAD.search(view, max(0, start - 64), start):
        return True
    if _ENV_NAME.fullmatch(value) and view[start - 1 : start] in ("'", '"'):  # `key_env = "OPENAI_API_KEY"`
        return True
    end = start + len(value)
    if _PAYLOAD_DIGEST.fullmatch(value) or ssh_public_blob(view[start : end + 40]) or _TRACE_CONTEXT.fullmatch(value):
        return True  # a payload's digest; an OpenSSH public key, or its type before one; a trace context
    if (
        len(value) >= 6
        and _IAM_ACTION.fullmatch(value)
        and _IAM_SERVICE.search(view, max(0, start - 32), start)
        and (end >= len(view) or view[end] in _IAM_AFTER)
    ):
        return True
    if _WITHHELD.fullmatch(value) or view.startswith("ENC[", start):  # SOPS keeps values as `ENC[AES256_GCM,…]`
        return True
    if _STAND_IN.fullmatch(value) or (_WORDY.fullmatch(value) and _STAND_IN_WORD.search(value)):
        return True
    if _STAND_IN_PLAIN.fullmatch(value) or _FILE_PATH.fullmatch(value) or _FILE_NAME.fullmatch(value):
        return True
    if _TEMPLATE_PART.search(value):  # `services/<service>/<purpose>`, `db-{{ env }}`
        return True
    if value[0] in _SLOT_JOINS and _SLOT_BEFORE.search(view, max(0, start - 32), start) and view[end : end + 2] != "</":
        return True  # `<口令>@db01.internal`
    if _NON_ASCII.search(value) and not _ASCII_ALNUM.search(value):  # `token：见下文` is prose
        return True
    if len(value) <= 3 and not _ASCII_ALNUM.search(value):  # `')` left of an unclosed quote
        return True
    if _MASKED.search(value) or _PUBLISHED.match(value) or _ONE_CHARACTER.fullmatch(value):
        return True
    if view[max(0, start - 4) : start].rstrip(" ")[-2:] in _REF_OPENERS:  # the name inside `${…}`, `{{ … }}`
        return True
    if _ENV_LOOKUP.search(view, max(0, start - 24), start):  # the name in `os.environ["…"]`, `.get("…")`
        return True
    if _DOCS_EXAMPLE.search(value) is not None or example_token(value):
        return True
    return _REF_START.match(view, start) is not None


# an OpenSSH public key: the key's type (or nothing) and a blank, then base64 of the wire format,
# whose first field is the type again as a length-prefixed string (RFC 4253, `\0\0\0\x0bssh-ed25519`)
_SSH_BLOB = re.compile(r"(?:[\w.@-]{3,40}(?: |\+|%20|%2520))?(AAAA[A-Za-z0-9+/]{20})")
_WIRE_NAME = re.compile(rb"[a-z0-9][a-z0-9.@-]{2,39}")


@cache
def _published() -> dict[int, frozenset[str]]:
    """The SHA-256 digests of `secret_published.json`'s values, by length; a file with another
    shape is an error."""
    raw = resources.files("autopatch_j.cloud").joinpath("secret_published.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    if set(data) != {"published"}:
        raise ValueError("secret_published.json: expected exactly 'published'")
    out: dict[int, set[str]] = {}
    for entry in data["published"]:
        if set(entry) != {"sha256", "length", "what"} or len(entry["sha256"]) != 64:
            raise ValueError(f"secret_published.json: bad entry {entry!r}")
        out.setdefault(int(entry["length"]), set()).add(entry["sha256"])
    return {length: frozenset(digests) for length, digests in out.items()}


_ASCII_RUN = re.compile(r"[!-~]++")


def published(value: str) -> bool:
    """`value` is a credential its vendor prints in public documentation for everyone to copy (Stripe's
    test keys of its API reference, the Azure Storage emulator's account key), alone or before a
    remark that a blank or a character outside ASCII sets apart (`…==（Azurite 的开发密钥）`): no one's
    secret. The table (`secret_published.json`) holds their SHA-256 digests, not the values."""
    run = _ASCII_RUN.match(value)
    if run is None:
        return False
    digests = _published().get(run.end())
    return digests is not None and hashlib.sha256(run.group().encode()).hexdigest() in digests


def ssh_public_blob(value: str) -> bool:
    """`value` is an OpenSSH public key (`ssh-ed25519 AAAAC3Nza…`, or the base64 alone): its
    base64 opens with a length-prefixed name of a key type, as the wire format does — a public
    key's structure, which random key bytes have by chance almost never."""
    found = _SSH_BLOB.match(value)
    if found is None:
        return False
    head = binascii.a2b_base64(found.group(1))
    size = head[3]
    return 3 <= size <= 40 and len(head) >= 4 + min(size, 14) and _WIRE_NAME.fullmatch(head[4 : 4 + size]) is not None


_REF_OPENERS = frozenset({"${", "$(", "{{"})
# a key whose prefix marks it publishable, for a browser or an app (`pk_live_…`, `pk_test_…`, `pk.…`)
_PUBLISHED = re.compile(r"pk(?:_live|_test)?[_.][A-Za-z0-9]")
# the name a lookup reads (`os.environ["…"]`, `getenv("…")`, `request.headers.get('X-Hub-Signature-256')`,
# `getHeader("…")`, `params.get("…")`): a key, not its value
_ENV_LOOKUP = re.compile(
    r"(?:(?:environ|getenv|Getenv|env|ENV)(?:\.get)?|\.get|[gG]et_?[hH]eader|headers)[ \t]*+[\[(][ \t]*+[\"']\Z"
)


def shannon_bits(value: str) -> float:
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_DIGEST = re.compile(
    r"[0-9a-fA-F]{32}|[0-9a-fA-F]{40}|[0-9a-fA-F]{64}|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"
)


def looks_random(value: str) -> bool:
    """High-entropy: ≥ 16 chars, letters and digits, ≥ 3 bits/char, and not a digest or UUID."""
    if len(value) < 16 or _DIGEST.fullmatch(value):
        return False
    if not (re.search(r"[A-Za-z]", value) and re.search(r"[0-9]", value)):
        return False
    return shannon_bits(value) >= 3.0


QUOTED_OR_BARE = (
    r"(?:\"(?P<dq>[^\"\r\n]++)\"|'(?P<sq>[^'\r\n]++)'|「(?P<cq>[^「」\r\n]++)」|“(?P<zq>[^“”\r\n]++)”"
    r"|【(?P<lq>[^【】\r\n]++)】|『(?P<jq>[^『』\r\n]++)』|(?P<v>[!-~]++))"
)
# (a bracketed value never holds its own opening bracket: each scan stops at the next one, so a run
# of unclosed brackets is read in linear time)
# the opening quote of a quoted value: after a label it needs no other connector (`口令「…」`)
OPENING_QUOTE = r"(?=[\"'「“【『])"


def quoted_or_bare(match: re.Match[str]) -> tuple[str, Span, bool] | None:
    """The value of a `QUOTED_OR_BARE` match, its span and whether it was quoted."""
    for group in ("dq", "sq", "cq", "zq", "lq", "jq", "v"):
        if match.group(group) is not None:
            return match.group(group), match.span(group), group != "v"
    return None


def secretish(value: str) -> bool:
    """A bare value that reads like a password rather than a word: ≥ 4 characters with a digit, a
    symbol or a capital inside, or ≥ 12 characters; never a setting or a reference."""
    if len(value) < 4 or SETTING.fullmatch(value) or ENV_REF.fullmatch(value) or value.startswith(REDACTED):
        return False
    return len(value) >= 12 or re.search(r"[0-9]|[^A-Za-z0-9]|[a-z][A-Z]", value) is not None


# every Chinese label and connector is in this block: text without one needs no Chinese rule
CJK = re.compile(r"[\u4e00-\u9fff]")


HEX_KEY = re.compile(r"[0-9a-fA-F]{32,128}")


_CRYPTO_KEY = re.compile(r"(?i)encrypt|crypt|cipher|aes|hmac|signing|master|private|secret|jwt")


_ID_KEY = re.compile(r"(?:[_.-][iI][dD]|[a-z]Id|^id)\Z")


_DIGEST_NAME = re.compile(r"(?i)sha|hash|digest|checksum|md5|etag|commit|fingerprint|cache|(?<![a-z])id(?![a-z])")


def context_secret(key: str, value: str) -> bool:
    """High-entropy values under a key-ish name; hex values under a name of a cryptographic key or of
    a `…key…` that names no digest (a `CACHE_KEY_SHA256` digest stays)."""
    if _ID_KEY.search(key):  # `session_id`, `sessionId`: an identifier, not a credential
        return False
    if looks_random(value):
        return True
    if not HEX_KEY.fullmatch(value):
        return False
    return bool(_CRYPTO_KEY.search(key)) or ("key" in key.lower() and not _DIGEST_NAME.search(key))


# Chinese labels of a secret: a head noun of its own (密码, 口令, 令牌 …), or an authentication word
# before a head (鉴权串, 认证码, 签名密钥, 接入token)
ZH_SECRET_HEADS = ("密码", "口令", "密钥", "秘钥", "私钥", "授权码", "令牌", "凭据", "凭证", "校验码")
ZH_AUTH_WORDS = ("鉴权", "认证", "授权", "签名", "访问", "接入", "登录", "登陆")
ZH_AUTH_HEADS = ("码", "串", "字符串", "(?i:token|key)")
ZH_LABEL = (
    "(?:" + "|".join(ZH_SECRET_HEADS) + "|(?:" + "|".join(ZH_AUTH_WORDS) + ")(?:" + "|".join(ZH_AUTH_HEADS) + "))"
)


def located(pattern: re.Pattern[str], locator: str) -> Callable[[str], Iterator[re.Match[str]]]:
    """`pattern.finditer`, tried only where `locator` — a lowercase expression that matches wherever
    `pattern` can start — matches in the lowercased text. Same matches, found faster: a search
    without IGNORECASE lets the engine skip ahead to the locator's first characters."""
    where = re.compile(locator)

    def finditer(view: str) -> Iterator[re.Match[str]]:
        folded = view.lower()
        if len(folded) != len(view):  # a character whose lowercase is longer: positions differ
            yield from pattern.finditer(view)
            return
        pos = 0
        while (hit := where.search(folded, pos)) is not None:
            match = pattern.match(view, hit.start())
            if match is None:
                pos = hit.start() + 1
                continue
            yield match
            pos = max(match.end(), hit.start() + 1)

    return finditer
