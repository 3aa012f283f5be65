"""The shape of a candidate secret value, as features of the secret judge (`secret_judge.features`).
Length, the mix of digits, upper and lower case and symbols, character entropy and how often digits
and letters alternate, the share of pronounceable word segments, and whether the value reads as a
hex digest, hex of words, a key's fingerprint, a `0x` number, a vehicle identification number, a
UUID, a version, a date, a file name, a dotted name, an e-mail address, a placeholder, an identifier
of words, an age recipient, four-letter groups, a certificate or public key in base64 DER or base64
of its PEM text (whole or cut), a DSA or ECDSA signature in base64 DER, a private key or a key store
in base64 DER, an object id, a reference number (`DBZG-2024-6230`), a `SCREAMING_SNAKE` name, an
attribute, a path, a reference's path of named segments, a flag, base64 padding, a known token
prefix, the documented public part of a credential pair (`secret_public_parts`: a key id, a
publishable key, a client id, a signature of a body, a PSSH box), lowercase words, or base64 of
printable text in any script or of a file (of a document — prose, a message of `|` fields, a file's
bytes —, of a JSON document with a key's field, or of `user:password`). Pure functions of the
value; the context is the judge's.
"""

from __future__ import annotations

import base64
import binascii
import math
import operator
import re
from collections import Counter
from collections.abc import Callable

from autopatch_j.cloud.secret_public_parts import public_part

SCREAMING = re.compile(r"[A-Z][A-Z0-9]*+(?:_[A-Z0-9]++)+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_VERSION = re.compile(r"v?\d{1,4}(?:\.\d{1,6}){1,4}(?:[-+][\w.]{0,20})?")
_DATE = re.compile(r"(?:19|20)\d\d[-/.]?[01]\d[-/.]?[0-3]\d")
_FILE_EXT = re.compile(r"\.[a-z][a-z0-9]{0,4}\Z")
_DOTTED = re.compile(r"[a-z][a-z0-9_-]*+(?:\.[a-z][a-z0-9_-]*+){1,8}")
_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+")
_PLACEHOLDER = re.compile(r"(?i)x{3,}|\*{3,}|your[_-]|example|replace|changeme|placeholder|redacted|dummy|sample")
_HEX = re.compile(r"[0-9a-fA-F]+")
# OpenSSH's fingerprints (`SHA256:` + 43 base64 characters, `MD5:` + 16 colon-hex bytes) and a
# certificate's colon-hex digest of 16 to 64 bytes
_FINGERPRINT = re.compile(
    r"SHA256:[A-Za-z0-9+/]{43}|(?:MD5:)?[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){15}|[0-9A-F]{2}(?::[0-9A-F]{2}){19,63}"
)
_HEX_NUMBER = re.compile(r"0[xX][0-9a-fA-F]{1,16}")
# a measure: a count with its unit (`14d`, `900s`, `2.5GB`, `80%`) or an amount with its separators
# or currency (`1,200.00`, `¥980`, `19.90`): what a limit, a window or a price is set to
_MEASURE = re.compile(
    r"[0-9]{1,7}(?:\.[0-9]{1,2})?(?:[KMGT]i?B|[kmgt]b|ms|us|ns|secs?|mins?|hrs?|days?|wk|mo|yr|[smhdwyKMGT%x])"
    r"|[-+]?[$¥€£]?(?:[0-9]{1,3}(?:,[0-9]{3})++(?:\.[0-9]{2})?|[0-9]{1,7}\.[0-9]{2})"
    r"|[-+]?[$¥€£][0-9]{1,7}(?:\.[0-9]{1,2})?"
)
MEASURE_LONGEST = 12
# shapes of values that hold no key's bytes: a document or text in base64 or hex, a certificate, a
# fingerprint, a number, an age recipient (a public key)
NO_KEY_BYTES = frozenset(
    {"b64_document", "hex_text", "der_public", "der_signature", "pem_public", "fingerprint", "hex_number", "vin"}
    | {"age_recipient"}
)
# shapes that say the value is public whatever key names it: a DSA or ECDSA signature, base64 of a
# PEM certificate or public key, a vehicle identification number, an age recipient
PUBLIC_BYTES = frozenset({"der_signature", "pem_public", "vin", "age_recipient"})
# an age recipient: the public key `age -r` encrypts to, Bech32 with the human-readable part `age`
# (its secret half is written `AGE-SECRET-KEY-1…`, a rule's)
_AGE_RECIPIENT = re.compile(r"(?<![A-Za-z0-9])age1[02-9ac-hj-np-z]{58}\Z")
# a vehicle identification number (ISO 3779): 17 letters and digits without I, O and Q, a check
# digit (or X) ninth and a serial number of five digits last; written on the car, an identifier
_VIN = re.compile(r"[A-HJ-NPR-Z0-9]{8}[0-9X][A-HJ-NPR-Z0-9]{3}[0-9]{5}")
_OBJECT_ID = re.compile(r"[a-z]{2,8}_(?:[0-9A-HJKMNP-TV-Z]{20,32}|[0-9]{6,})")
_ID_WORDS = re.compile(r"(?:[a-z]{2,}[-_.]|[A-Z][a-z]+){2,}")
_SEGMENT = re.compile(r"[A-Z]?[a-z]{2,}|[A-Z]{2,}(?![a-z])")
_VOWELS = frozenset("aeiouyAEIOUY")
_VOWEL_CHARS = frozenset("aeiouAEIOU")
# a reference's path (`ground/ndc/duffel-TMogQR-22`, `https://kv-ops.vault.azure.net/secrets/adyen-api/<version>`,
# `/subscriptions/<uuid>/resourceGroups/…`): after a scheme, segments of which at least two, and at least half,
# start with a word (lowercase, capitalised or camelCase letters before the first `-`, `_` or `.`), no login,
# query or blank in it (the credential of a URL sits there) and no segment holding a random run of mixed case and
# digits (a webhook's or a token's body)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,15}://")
_NOT_A_PATH = re.compile(r"[@?=&:\s]")
_NAMED_SEGMENT = re.compile(r"(?:[a-z]{2,}|[A-Z][a-z]+|[A-Z]{2,})(?:[A-Z][a-z]+)*(?:[-_.]|\Z)")
_RANDOM_RUN = re.compile(
    r"(?=[A-Za-z0-9]{0,63}?[0-9])(?=[A-Za-z0-9]{0,63}?[A-Z])(?=[A-Za-z0-9]{0,63}?[a-z])[A-Za-z0-9]{12,}"
)
# a URL's parts (RFC 3986): its authority (a login before the last `@`, then the host and port) up to
# the path, then the path, query and fragment; a template's or a variable's slot (`{{ .Values.db.password }}`,
# `${DB_PASS}`) is one part of it, a template's blanks included
_SLOT = r"\{\{[^{}\n]{1,64}+\}\}|\$\{[^{}\s]{1,64}+\}"
_URL = re.compile(
    rf"[A-Za-z][A-Za-z0-9+.-]{{1,15}}://(?P<authority>(?:{_SLOT}|[^/?#\s{{}}])*+)(?P<rest>(?:{_SLOT}|[^\s{{}}])*+)"
)
_URL_SPAN = re.compile(rf"[A-Za-z][A-Za-z0-9+.-]{{1,15}}://(?:{_SLOT}|[^\s\"'`<>{{}}])*+")
# a password slot that holds no value: a placeholder (`${DB_PASS}`, `$DB_PASS`, `{{ .Values.pw }}`,
# `<password>`, `%(pw)s`) or a mask (`****`, `xxxx`, bullets)
_EMPTY_SLOT = re.compile(
    r"\$\{[^{}]{1,64}+\}|\$[A-Za-z_][A-Za-z0-9_]{0,63}+|\{\{[^{}]{1,64}+\}\}|<[^<>]{1,64}+>|%\([^()]{1,64}+\)s"
    r"|[*•●·]{3,}+|[xX]{3,}+"
)
# a query field's value that names or counts rather than holds bytes: words joined by `-`, `_` or
# `.` (`verify-full`, `MONGODB-AWS`), a number, a path, or a placeholder
_PLAIN_FIELD = re.compile(r"\$?[A-Za-z]{1,32}+(?:[-_.][A-Za-z]{1,32}+){0,6}+|[0-9]{1,12}+|/[\w./-]{0,128}+")
_FIELD = re.compile(r"(?P<key>[^&=#]*+)=(?P<value>[^&#]*+)")
_URL_RUN = re.compile(r"[A-Za-z0-9_-]{16,}+")


def _keyish(run: str) -> bool:
    """A run of 16 or more letters, digits, `_` and `-` with at least four digits and four letters
    (a hex key, a UUID, a token): no host's or path's word."""
    return sum(c.isdigit() for c in run) >= 4 and sum(c.isalpha() for c in run) >= 4


# an error-reporting DSN that holds only its public key: `http(s)://`, 32 hex digits as the user with no
# password, a host, and a path ending in the project's number — the key a browser or an app ships to
# every client (its secret half, when there is one, is the password after a `:`)
_PUBLIC_KEY_DSN = re.compile(
    r"https?://[0-9a-f]{32}@[a-z0-9-]++(?:\.[a-z0-9-]++)*+(?::[0-9]{2,5})?(?:/[a-z][a-z0-9-]*+)*/[0-9]{1,12}/?"
)


def url_without_login(value: str, secret_key: Callable[[str], bool] | None = None) -> bool:
    """Whether `value` is a URL that holds no credential by its shape (`postgresql://report@db:5432/app`,
    `mongodb+srv://cluster0.example.net/app?authSource=admin`, `mysql://app:${DB_PASS}@db/app`): its
    login, when it has one, is a user name without a password part, or with a password slot that
    holds a placeholder or a mask (`_EMPTY_SLOT`), and the user name is no long run of letters and
    digits (a key written as the user: `https://<token>@git…`); no part of it holds a random run of
    mixed case and digits; and each query field's value names or counts (`_PLAIN_FIELD`). A DSN
    holding only its public key (`_PUBLIC_KEY_DSN`: `https://<32 hex>@<host>/<project number>`)
    holds no credential either."""
    if _PUBLIC_KEY_DSN.fullmatch(value) is not None:
        return True
    url = _URL.fullmatch(value)
    if url is None:
        return False
    authority, rest = url.group("authority"), url.group("rest")
    login, at, _host = authority.rpartition("@")
    if at:
        user, colon, password = login.partition(":")
        if colon and not _EMPTY_SLOT.fullmatch(password):
            return False
        if not user or (len(user) >= 16 and any(c.isdigit() for c in user) and any(c.isalpha() for c in user)):
            return False  # a key written as the user (a DSN's 32 hex), not a user's name
    if _RANDOM_RUN.search(value) is not None or any(map(_keyish, _URL_RUN.findall(value))):
        return False  # a token in the path (a webhook's hex or UUID key, a bot's token)
    return _plain_query(rest.partition("?")[2].partition("#")[0], secret_key)


def _plain_query(query: str, secret_key: Callable[[str], bool] | None, depth: int = 0) -> bool:
    """Each field of `query` holds nothing, a placeholder, a file's path or a value that names or
    counts under a key naming no secret; a path that carries a query of its own (a redirect's
    `next=/ops/debug?cfg=DB_PASSWORD=…`) is read the same way, two levels deep at most."""
    for field in filter(None, query.split("&")):
        found = _FIELD.fullmatch(field)
        if found is None:
            return False
        key, held = found.group("key"), found.group("value")
        if held.startswith("/") and "?" in held and depth < 2:
            if not _plain_query(held.partition("?")[2], secret_key, depth + 1):
                return False  # a path's own query holding a credential
            continue
        if not held or held.startswith("/") or _EMPTY_SLOT.fullmatch(held):
            continue  # nothing, a file's path (`passfile=/run/pgpass`), a placeholder
        if (secret_key is not None and secret_key(key)) or _PLAIN_FIELD.fullmatch(held) is None:
            return False
    return True


URL_REACH = 256


def in_url_without_login(view: str, start: int, end: int, secret_key: Callable[[str], bool]) -> bool:
    """Whether `view[start:end]` is a part of the innermost URL around it (`_URL_SPAN`, its scheme
    the last one at most `URL_REACH` characters before the span's end: one URL read per span) that
    holds no credential (`url_without_login`, with `secret_key`): the port and database of
    `mysql://app:${DB_PASS}@db:3306/app` is no password, whatever the placeholder is named."""
    floor = max(0, start - URL_REACH)
    scheme = view.rfind("://", floor, end)
    if scheme <= floor:
        return False
    url = _URL_SPAN.match(view, _scheme_start(view, scheme, floor), min(len(view), end + URL_REACH))
    return url is not None and url.start() <= start and end <= url.end() and url_without_login(url.group(), secret_key)


# the head of a data URI holding an image (`data:image/png;base64,`, RFC 2397): what follows is the
# image's bytes in base64
_IMAGE_DATA_URI = re.compile(r"data:image/[a-z0-9.+-]{1,32}+(?:;[a-z0-9.-]{1,32}+=[a-z0-9.-]{1,32}+)*+;base64,")
_BASE64_BODY = re.compile(r"[A-Za-z0-9+/]*+=*+")
IMAGE_URI_REACH = 96


def in_image_data_uri(view: str, start: int, end: int) -> bool:
    """Whether `view[start:end]` is an image's bytes in a data URI: the span starts within the
    URI's head (`_IMAGE_DATA_URI`, at most `IMAGE_URI_REACH` characters before it) or right after
    it, and holds base64 from the head on."""
    floor = max(0, start - IMAGE_URI_REACH)
    head = view.rfind("data:image/", floor, start + len("data:image/"))
    if head < 0:
        return False
    found = _IMAGE_DATA_URI.match(view, head)
    return (
        found is not None
        and start <= found.end()
        and end > found.end()
        and _BASE64_BODY.fullmatch(view, found.end(), end) is not None
    )


_SCHEME_TAIL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,15}+\Z")


def _scheme_start(view: str, colon: int, floor: int) -> int:
    """Where the scheme before `://` at `colon` starts (the innermost URL: a link pasted into
    another one's query starts after its `=`)."""
    tail = _SCHEME_TAIL.search(view, max(floor, colon - 16), colon)
    return tail.start() if tail else colon


# `self.token`, `cfg.API_KEY`, and a member of a class of two or more capitalised words (`BuildConfig.MAPS_KEY`)
_ATTRIBUTE = re.compile(r"(?:[a-z_]\w*+|[A-Z][a-z]++(?:[A-Z][a-z]++)++)\.[A-Za-z_]\w*+")


# lowercase words (`capacity`, `stripe-live-key`): each part of three letters or more holds a vowel,
# a quarter of the letters are vowels and at most one pair of letters is one words seldom hold
# (`lafozfqarqknddgd`, `ntdn-yjdc`, `bbiijkxewhkyekqd` read as random letters)
_LETTER_GROUPS = re.compile(r"[a-z]{4}(?P<sep>[- ])[a-z]{4}(?:(?P=sep)[a-z]{4}){2,4}")
_LOWER_WORDS = re.compile(r"[a-z]{2,}+(?:[-_][a-z]{2,}+)*+")
_PART = re.compile(r"[a-z]+")
# the letter pairs that fewer than five of the 20,000 most frequent English words hold
# (`memory/text/frequencies.txt`): sixteen random letters hold two or more of them 19 times in 20,
# a word or a name (`nginx`, `localhost`, `webhook`) at most one
_RARE_PAIR_LIST = (
    "bf bg bh bk bp bq bv bw bx bz cf cj cm cn cp cv cw cx cz dk dq dx dz fb fd fg fh fj fk fm fn "
    "fp fq fv fw fx fz gc gd gf gj gk gp gq gv gw gx gz hf hg hj hk hp hq hv hx hz iw iy jb jc jd "
    "jf jg jh jj jk jl jm jn jp jq jr js jt jv jw jx jy jz kc kg kj kk km kq kv kx kz lh lj lq lx "
    "lz md mg mh mj mk mq mv mw mx mz nx oq pf pj pk pn pq pv pw px pz qa qb qc qd qe qf qg qh qi "
    "qj qk ql qm qn qo qp qq qr qs qt qv qw qx qy qz rj rq rx rz sj sv sx sz tj tk tq tx uj uq uu "
    "uw vb vc vd vf vg vh vj vk vl vm vn vp vq vr vs vt vu vv vw vx vz wg wj wp wq wu wv wx wz xb "
    "xd xf xg xj xk xl xm xn xq xr xs xv xw xx xy xz yf yg yh yj yk yq yv yx yy zb zc zd zf zg zh "
    "zj zk zl zm zn zp zq zr zs zt zv zw zx"
)
_RARE_PAIRS = frozenset(_RARE_PAIR_LIST.split())


def _plain_words(value: str) -> bool:
    if not _LOWER_WORDS.fullmatch(value):
        return False
    parts = _PART.findall(value)
    if any(len(part) >= 3 and not _VOWEL_CHARS.intersection(part) for part in parts):
        return False
    letters = sum(map(len, parts))
    if sum(part[i : i + 2] in _RARE_PAIRS for part in parts for i in range(len(part) - 1)) >= 2:
        return False
    return sum(c in _VOWEL_CHARS for c in value) >= letters / 4


_BASE64 = re.compile(r"(?=.{16})(?:[A-Za-z0-9+/]++={0,2}|[A-Za-z0-9_-]++)", re.DOTALL)
_READABLE = re.compile(r"[\x20-\x7e\t\r\n]++")
_PRINTABLE = re.compile(r"[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]++")
# the first bytes of a file format (PDF, PNG, GIF, JPEG, ZIP, gzip): base64 of a file, not of a key
_FILE_MAGIC = (b"%PDF-", b"\x89PNG\r\n", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"\x1f\x8b\x08")
# a JSON field that names key material (`"key":`, `"secretKey":`, `"private_key":`, `"token":`) or
# seals the document (`"mac":`, `"signature":` of an encrypted cookie's envelope)
_KEYED_FIELD = re.compile(
    r"(?i)\"(?:[a-z_]{0,24}(?:key|secret|token|password|passwd)[a-z_]{0,8}|h?mac|sig|signature)\"[ \t]*+:"
)


def _decoded_text(value: str) -> str | None:
    """What a base64 value (≥ 16 characters, in either alphabet, its padding read as it should be: a
    JWT's segment is base64url without padding) decodes to when that is printable ASCII."""
    core = value.rstrip("=")
    if len(core) % 4 == 1 or not _BASE64.fullmatch(value):
        return None
    padded = core + "=" * (-len(core) % 4)
    try:
        raw = base64.b64decode(padded, altchars=b"-_" if "-" in value or "_" in value else None, validate=True)
    except (binascii.Error, ValueError):
        return None
    if raw.startswith(_FILE_MAGIC):
        return "<file>"  # a document's or an image's own bytes (a PDF, a PNG, a ZIP …): a document
    try:
        text = raw.decode("utf-8")
    except ValueError:
        return None
    if text.isascii():
        return text if _READABLE.fullmatch(text) else None
    # text in any script: every character printable or a line break, some of them letters
    return text if _PRINTABLE.fullmatch(text) and any(c.isalpha() and not c.isascii() for c in text) else None


_WORD_TEXT = re.compile(r"[A-Za-z][A-Za-z .,'_-]*+")


def _hex_text(value: str) -> bool:
    """Hex of words (`4a656665` is `Jefe`, a test vector's key): whole bytes, at least four, that
    decode to letters, spaces and light punctuation — key bytes do so by chance once in a thousand
    for four bytes, and ever less often for more."""
    if len(value) < 8 or len(value) % 2:
        return False
    return _WORD_TEXT.fullmatch(bytes.fromhex(value).decode("latin-1")) is not None


_DER_HEADS = ("MII", "MIG", "MHc", "MC4", "MF")


def _der_inner(value: str) -> bytes:
    """The first bytes inside the outer SEQUENCE of base64 DER (empty when `value` is none)."""
    try:
        head = base64.b64decode(value[: min(64, len(value) // 4 * 4)])
    except (binascii.Error, ValueError):
        return b""
    if len(head) < 6 or head[0] != 0x30:
        return b""
    return head[2 if head[1] < 0x80 else 2 + (head[1] & 0x7F) :]


def _der_public(value: str) -> bool:
    """Base64 of DER whose outer SEQUENCE starts with another SEQUENCE: a certificate, a public key
    (SubjectPublicKeyInfo) or a signing request; a private key starts with its version instead."""
    return _der_inner(value)[:1] == b"\x30"


# the length of the first INTEGER of a DSA or ECDSA signature's SEQUENCE (`r`, 28 to 66 bytes, a
# leading zero byte included); a private key's first INTEGER is its one-byte version
_SIGNATURE_R = range(0x1C, 0x43)


def _der_signature(value: str) -> bool:
    """Base64 of DER whose outer SEQUENCE starts with an INTEGER of a signature's size: a DSA or
    ECDSA signature (`r`, `s`), which anyone may verify and no one can sign with."""
    inner = _der_inner(value)
    return len(inner) >= 2 and inner[0] == 0x02 and inner[1] in _SIGNATURE_R


# base64 of `-----BEGIN` and the heads of PEM blocks that hold public material
_PEM_BEGIN = "LS0tLS1CRUdJTi"
_PUBLIC_PEM = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*(?:CERTIFICATE|PUBLIC KEY|CERTIFICATE REQUEST|X509 CRL)-----")
_PUBLIC_HEADS = ("-----BEGIN CERTIFICATE-----", "-----BEGIN PUBLIC KEY-----", "-----BEGIN X509 CRL-----")


def _public_pem_head(value: str) -> bool:
    """The first characters of base64 `value` decode to the head of a PEM certificate, public key,
    signing request or CRL (`-----BEGIN CERTIFICATE-----`), whatever follows them, or to the start
    of such a head when the value is cut before its end (`-----BEGIN CERTIFIC`)."""
    try:
        head = base64.b64decode(value[: min(64, len(value) // 4 * 4)], validate=True).decode("latin-1")
    except (binascii.Error, ValueError):
        return False
    return _PUBLIC_PEM.match(head) is not None or (len(head) >= 16 and any(h.startswith(head) for h in _PUBLIC_HEADS))


# the version a private key's or a key store's outer SEQUENCE starts with: 0 (PKCS#1, PKCS#8), 1
# (SEC1 EC) or 3 (PKCS#12)
_PRIVATE_VERSIONS = (b"\x02\x01\x00", b"\x02\x01\x01", b"\x02\x01\x03")
DER_PRIVATE_MIN = 96


def der_private(value: str) -> bool:
    """Base64 of DER (at least `DER_PRIVATE_MIN` characters) whose outer SEQUENCE starts with a
    private key's or a key store's version: the key bytes themselves, whatever names them."""
    return len(value) >= DER_PRIVATE_MIN and value.startswith(_DER_HEADS) and _der_inner(value)[:3] in _PRIVATE_VERSIONS


# a credential's own shape, whatever names it: a short kind before a separator and a random body
# of 26 or more letters and digits (`xy_`, `ABCD-`, `ab_cd_` + body; an object's id — `ch_`, `req_`
# + 24 — is shorter), not hex (a digest is no credential by its shape)
_KIND_AND_BODY = re.compile(r"[A-Za-z][A-Za-z0-9]{0,5}+(?:[_-][a-z]{2,4}+)?[_-](?P<body>[A-Za-z0-9]{26,}+)")
# an opaque token a server issues: a short lowercase kind, a dot and a base64url body of 40 or more
# characters (`rt.` + body, a refresh token); the body is read without its `-` and `_`
_KIND_DOT_BODY = re.compile(r"[a-z]{1,4}+\.(?P<body>[A-Za-z0-9_-]{40,}+)")
_BASE64URL_MARKS = str.maketrans("", "", "-_")
_CASE_SWITCH = re.compile(r"[a-z][A-Z]|[A-Z][a-z]")
_WORD_SEGMENT = re.compile(r"[A-Z]?[a-z]{2,}")


# a reference number: groups of capitals and groups of digits only, one of them digits
# (`DBZG-2024-6230`, `CVE-2024-3094`, `CP-SZ-9185`); a random group (`J5M9`) makes none
_REFERENCE = re.compile(r"[A-Z]{1,10}+(?:-(?:[A-Z]{1,10}+|[0-9]{1,12}+)){1,5}+")


# a code issued in groups (an enrollment, activation or licence code): maybe a short kind of
# capitals, then three to six groups of one length, 4 to 6 capitals and digits, 15 characters or
# more in all, every group but one mixing letters and digits (`EN-MG85D-4TCVE-46U93`; a part
# number `A100-SXM4-80GB` is shorter, a scheme `AWS4-HMAC-SHA256` has groups of words)
_GROUPED_CODE = re.compile(r"(?:[A-Z]{1,4}+-)?(?P<groups>[A-Z0-9]{4,6}+(?:-[A-Z0-9]{4,6}+){2,5}+)")
_MIXED_GROUP = re.compile(r"(?=[^-]*[0-9])(?=[^-]*[A-Z])[A-Z0-9]++")


def _grouped_code(value: str) -> bool:
    found = _GROUPED_CODE.fullmatch(value)
    if found is None:
        return False
    groups = found.group("groups").split("-")
    if len({len(group) for group in groups}) != 1 or sum(map(len, groups)) < 15:
        return False
    return sum(_MIXED_GROUP.fullmatch(group) is None for group in groups) <= 1


def credential_shaped(value: str) -> bool:
    """Whether `value` reads as a credential by its shape alone: a code issued in groups
    (`_GROUPED_CODE`), or a kind and a body (`_KIND_AND_BODY`, `_KIND_DOT_BODY`) whose random
    part holds a digit and letters, switches case often or mixes letters and digits throughout, and
    is not mostly pronounceable words (`SettingsManagerV2Helper` is a name)."""
    if "-" in value and _grouped_code(value):
        return True
    kind = _KIND_AND_BODY.fullmatch(value) or _KIND_DOT_BODY.fullmatch(value)
    if kind is None:
        return False
    run: str = kind.group("body").translate(_BASE64URL_MARKS)
    if _HEX.fullmatch(run) or not any(c.isdigit() for c in run):
        return False
    wordy = sum(len(m) for m in _WORD_SEGMENT.findall(run) if len(m) >= 3 and _VOWELS.intersection(m))
    if wordy * 3 >= len(run) * 2:
        return False
    digits = sum(c.isdigit() for c in run)
    upper, lower = any(c.isupper() for c in run), any(c.islower() for c in run)
    if upper and lower:
        return len(_CASE_SWITCH.findall(run)) * 6 >= len(run)
    return digits * 6 >= len(run)


def value_signal(value: str) -> str | None:
    """What the value alone says, as a judge's signal: `der_private` (a private key's DER) or
    `credential_shape` (`credential_shaped`); None when it says nothing."""
    if der_private(value):
        return "der_private"
    return "credential_shape" if credential_shaped(value) else None


def _named_path(value: str) -> bool:
    """Whether `value` reads as a reference's path (see `_NAMED_SEGMENT`)."""
    scheme = _SCHEME.match(value)
    body = value[scheme.end() :] if scheme else value
    if _NOT_A_PATH.search(body):
        return False
    segments = [segment for segment in body.split("/") if segment]
    named = sum(_NAMED_SEGMENT.match(segment) is not None for segment in segments)
    if named < 2 or named * 2 < len(segments):
        return False
    return not any(_RANDOM_RUN.search(segment) for segment in segments)


def entropy(value: str) -> float:
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in Counter(value).values())


def value_shape(value: str, out: dict[str, float], prefixes: tuple[str, ...]) -> None:
    """Add the shape features of `value` (non-empty) to `out`; `prefixes` are the known token prefixes."""
    size = len(value)
    is_digit = list(map(str.isdigit, value))
    digits = sum(is_digit)
    upper = sum(map(str.isupper, value))
    lower = sum(map(str.islower, value))
    symbols = size - digits - upper - lower
    out["len_log"] = math.log2(size) / 8
    out[f"len_{min(size // 8, 8)}"] = 1.0
    out["digit_ratio"] = digits / size
    out["upper_ratio"] = upper / size
    out["lower_ratio"] = lower / size
    out["symbol_ratio"] = symbols / size
    bits = entropy(value)
    out["entropy"] = bits / 6
    out["entropy_per_len"] = bits / math.log2(size + 1)
    classes = (digits > 0) + (upper > 0) + (lower > 0) + (symbols > 0)
    out[f"classes_{classes}"] = 1.0
    changes = sum(map(operator.ne, is_digit, is_digit[1:]))
    out["digit_switches"] = changes / size
    vowels = sum(map(_VOWEL_CHARS.__contains__, value))
    letters = upper + lower
    out["vowel_ratio"] = vowels / letters if letters else 0.0
    if size == 17 and upper >= 3 and _VIN.fullmatch(value):
        out["vin"] = 1.0  # a vehicle identification number: an identifier
    if _FINGERPRINT.fullmatch(value):
        out["fingerprint"] = 1.0  # a key's or certificate's fingerprint (`SHA256:…`, colon hex): public
    if size >= 62 and _AGE_RECIPIENT.search(value, size - 62):
        out["age_recipient"] = 1.0  # an age recipient, or a run a line's join ended with one: a public key
    if _HEX_NUMBER.fullmatch(value):
        out["hex_number"] = 1.0  # `0x64F285C2`: a number (an SPI, a flag word), not key bytes
    if _HEX.fullmatch(value):
        out["hex"] = 1.0
        if size in (32, 40, 64, 128):
            out["hex_digest"] = 1.0
        if _hex_text(value):
            out["hex_text"] = 1.0
    if digits == size:
        out["all_digits"] = 1.0
    elif size <= MEASURE_LONGEST and digits and _MEASURE.fullmatch(value):
        out["measure"] = 1.0  # `14d`, `2.5GB`, `1,200.00`: a count, a size or an amount, not key bytes
    if upper == letters and letters:
        out["all_upper"] = 1.0
    if lower == letters and letters:
        out["all_lower"] = 1.0
    checks = (
        ("uuid", _UUID.search(value)),
        ("version", _VERSION.fullmatch(value)),
        ("date", _DATE.search(value)),
        ("file_ext", _FILE_EXT.search(value)),
        ("dotted", _DOTTED.fullmatch(value)),
        ("email", _EMAIL.fullmatch(value)),
        ("placeholder", _PLACEHOLDER.search(value)),
        ("id_words", _ID_WORDS.search(value)),
        ("object_id", _OBJECT_ID.fullmatch(value)),
        ("reference", _REFERENCE.fullmatch(value) and any(part.isdigit() for part in value.split("-"))),
    )
    for name, found in checks:
        if found:
            out[name] = 1.0
    wordy = sum(len(m) for m in _SEGMENT.findall(value) if _VOWELS.intersection(m) and len(m) >= 3)
    out["wordy_ratio"] = wordy / size
    if SCREAMING.fullmatch(value):
        out["screaming_snake"] = 1.0
    if _ATTRIBUTE.match(value) and digits <= 1:
        out["attribute"] = 1.0
    if value.count("/") >= 2 or value.startswith(("/", "./", "~/", "../")):
        out["path"] = 1.0
    if "/" in value and _named_path(value):
        out["named_path"] = 1.0  # a reference names the secret, it does not hold it
    if value.startswith(("-", "--")):
        out["flag"] = 1.0
    if value.endswith("="):
        out["padding"] = 1.0
    if _plain_words(value):
        out["plain_words"] = 1.0
    if public_part(value) is not None:
        out["public_part"] = 1.0  # the documented public part of a pair (a key id, a signature): `secret_public_parts`
    if _LETTER_GROUPS.fullmatch(value):
        out["letter_groups"] = 1.0  # `hjwf-tonh-qanh-zehp`: an app password, a recovery code
    if value.startswith(_DER_HEADS) and _der_public(value):
        out["der_public"] = 1.0  # a certificate, a public key or a signing request in bare base64
    if der_private(value):
        out["der_private"] = 1.0  # a private key or a key store (PKCS#12) in bare base64
    elif value[:1] == "M" and _der_signature(value):
        out["der_signature"] = 1.0  # a DSA or ECDSA signature in bare base64
    text = _decoded_text(value)
    if value.startswith(_PEM_BEGIN) and _public_pem_head(value):
        out["pem_public"] = 1.0  # base64 of a PEM certificate or public key, whole or cut
    if value.startswith(prefixes) and (text is None or text[:1] != "{"):
        out["prefix"] = 1.0  # `eyJ…` of one JSON document with no dots is no JWT
    if text is not None:
        # base64 of prose or a document (a fixture, a JSON header) reads unlike base64 of key
        # bytes; of `user:password` it is a Basic credential
        out["b64_text"] = 1.0
        if text[:1] in "{[" and _KEYED_FIELD.search(text):
            out["b64_keyed"] = 1.0  # a JSON document that carries a key (an enrollment token, a service account)
        elif " " in text or text[:1] in "{[<" or not text.isascii() or text.count("|") >= 3:
            out["b64_document"] = 1.0
        elif ":" in text:
            out["b64_login"] = 1.0
