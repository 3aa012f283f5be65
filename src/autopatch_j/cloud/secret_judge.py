"""A learned judge of candidate secret values, beside the rule grammar (C-24).

The grammar (`secret_rules`, `secret_shapes`) finds structured secrets well — PEM blocks, URLs with
a password, tokens with a provider prefix — but a secret without a fixed prefix is told from a
look-alike only by how it reads and what stands before it. `SecretJudge` scores such spans with a
logistic model over two groups of features (`features`):

* **shape** (`secret_value_shape`): length, the mix of digits, upper and lower case and symbols,
  character entropy, known token prefixes, and whether it reads as a hex digest, a UUID, a version,
  a date, a measure (a count with its unit, an amount: `14d`, `1,200.00`), a path, a reference's
  path of named segments (`named_path`), a file name, a dotted name, an e-mail address, a colour, a
  placeholder or an identifier of words;
* **context** (`secret_label_context`): the separator right before it (`=`, `:`, a quote with its string prefix — `r#"`,
  `b'` —, a space, `是`, a table cell's `|`, an XML element's start tag — `<robotPwd>`, CDATA or not, a
  property list's value read under its `<key>` —), the words of the key or label before it (English words
  split from `snake_case`/`camelCase`, a fused word split before a secret's word — `requirepass` is
  `require` `pass` —, a quoted key's words, a typed constant's name before its type — `API_KEY: &str
  = …` —, Chinese labels; a short scheme word such as `Bearer` between key and value is skipped;
  inside a JSON member's string that carries a whole text, the text's own label and not the
  member's key — `envelope_floor`),
  whether those words name a secret, a key's id (`private_key_id`) or something that is no secret
  (`secret_judge_words.json`; `object_key`, `PublicKey`: a benign word before `key`), whether the
  key ends in a vendor's own noun for a credential (`key_noun`: `depot_ticket`, `APP_CERT`,
  `PUSH_MASTER`, `-serial`; the word alone decides nothing, the value's shape is weighed beside it), and whether
  the next field after it is assigned to a secret's key (`username="…" password=…`: a key id
  paired with its secret) or the value is written into a file named for a secret
  (`echo '…' > ~/.vault_pass`), and whether it is a quoted literal among the arguments of an open
  call (`Client("…", "…")`: the words of the calls' names, `secret_sinks.callees`).

Also where the value stands (`secret_places`): the argument after an option in an argv list
(`"--vault-unseal-1", "…"`: the option is its key), the value after a command's one-letter option
(`short_flag`, a level of its own in the shape crossings — `nuget push -k …`, `-A <hex>` — and
`short_flag:<letter>`: what the letter means is the tool's, so the shape decides), the default of an
environment lookup or a CSV column or a Markdown table's column under its header
(`secret_key_words.named_key`), a cell under a table's column of values with no column naming each
value (`table_value`, read under the header: `secret_key_words.values_column`), a value alone on its
line after a line that announces it
(`announced`; `announced_secret` when that line names a secret: `Password for the elastic user (…):`
/ `  <value>`, `用的 API Secret就是` / `> <value>`), and a URL query's value (`url_query`;
`url_path_secret` when the URL's path names a secret: `/auth/magic?uid=…&t=<value>`; `query_random`,
a context signal of its own, when the field's whole value is one random token whatever its name:
`?lz_at=<value>`), and a whole string literal assigned to a name in code or defined as a constant
(`code_literal`: `RELAY_CS ?= "…"`, `my $x = q{…}`), whose shape the judge weighs like a call's
literal and a request header's (`header_value`: `curl -H 'X-Svc: …'`), a literal passed right after
a call's first argument of digits (`after_app_id`: an SDK's secret beside its app's number,
`TLSSig(1400573459, '<hex>')`, read even as hex), a value stated in prose after
an English copula (`stated`: `… was <value>`), the last field of a file named for a secret a command
printed (`printed`, read as `announced_secret`), a here-string given to a command whose line names a
secret (`stdin_secret`: `sign.sh --passphrase-stdin <<< '…'`), a DES key's hex beside its check
value or its form under a master key (`check_value`: `secret_check_values`), hex or padded base64
of exactly the key a cipher named beside it takes (`cipher_key`: `<64 hex>` beside `AES-256-GCM`,
`secret_arguments`), a value under a label on the line after an account's (`after_account`:
`login : admin@site` over `initial : <value>`), and a member of a JSON
Web Key (`jwk_member`): a private one (`"d"`, `"k"`: `jwk_private`) is judged as a secret's value, a public
one (`"n"`, `"x"`) is not judged; nor is a value whose label names a digest before a bracketed aside
(`digest_before_aside`: `口令哈希（sha256，不是口令本身）：…`), nor a value followed by an aside denying
it is a secret (`secret_label_context.denied_after`: `sign=…（签名结果，不是密钥）`), nor a command's
positional argument after an option carrying its own value (`secret_arguments.after_option_value`:
`-field=db_password <path>`, the option's value names a field), nor a value shown
under a label — on the line after it or after its colon — that names an identifier or ends in an aside saying what the
value is (`public_label`: `存储账户（资源 ID）：` / `<resource id>`). The documented public part of a
credential pair (`secret_public_parts`: a key id, a publishable key, a client id, a signature of a
body, a PSSH box) is a shape feature (`public_part`) and lets the judge overrule a key-word rule's
span; with no secret half beside it (`secret_public_parts.alone`) it scores 0 from any source. A
candidate or a key-word rule's span that is a part of a URL holding no credential scores 0
(`secret_value_shape.in_url_without_login`: a login without a password, or with a placeholder or a
mask in its password slot — `postgresql://report@db:5432/app`, `mysql://app:${DB_PASS}@db:3306/app`
—, no token in its path and no query field holding one, or a DSN holding only its public key:
`https://<32 hex>@host/<project number>`), and so does an image's bytes after a data URI's head
(`secret_value_shape.in_image_data_uri`: `data:image/png;base64,…`).

Candidates (`secret_candidates.candidates`) are runs of token characters, odd quoted literals and
codes of letter groups in the decoded view the grammar reads; the context of one never reaches past
`[REDACTED]`, a blank line or a previous candidate other than a key's name, so redacting a second
time sees the same context and changes nothing. `score` reads at most `READ_BEHIND` characters
before a span and `READ_AHEAD` after it, so `accepts` with a `ScoreMemo` scores a repeated reading
once. The weights (`secret_judge_weights.json`) are trained by `scripts/train_secret_judge.py`; this
module only reads them. Work per candidate is bounded, so judging is linear in the length of the text.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Protocol

from autopatch_j.cloud.secret_arguments import after_account, after_option_value, cipher_key
from autopatch_j.cloud.secret_candidates import CONTEXT, Candidate, candidates
from autopatch_j.cloud.secret_check_values import beside_check_value
from autopatch_j.cloud.secret_key_words import (
    FIX_PASSWORD_KEY,
    PAIR_REACH,
    ends_in_abbreviated_key,
    key_lexicon,
    named_key,
    values_column,
)
from autopatch_j.cloud.secret_label_context import denied_after, envelope_floor, label_context
from autopatch_j.cloud.secret_places import (
    AHEAD,
    IDENTIFIER,
    QUERY_KEY,
    announced,
    call_argument,
    code_literal,
    digest_before_aside,
    fed_on_stdin,
    header_value,
    jwk_member,
    names_a_secret,
    next_key_secret,
    presented,
    printed,
    public_label,
    query_random,
    quoted_literal,
    signed_request,
    stated,
)
from autopatch_j.cloud.secret_public_parts import alone, public_part
from autopatch_j.cloud.secret_sinks import CALL_REACH
from autopatch_j.cloud.secret_value_shape import (
    NO_KEY_BYTES,
    PUBLIC_BYTES,
    in_image_data_uri,
    in_url_without_login,
    value_shape,
    value_signal,
)
from autopatch_j.cloud.secret_values import placeholder

__all__ = [
    "CONTEXT",
    "Candidate",
    "Judged",
    "ScoreMemo",
    "SecretJudge",
    "candidates",
    "features",
    "judged",
    "shipped_judge",
]


class Judged(Protocol):
    """What the judge reads of a finding (`redaction.Finding`): its kind (`rule`, `keyword` or
    `token`), the view it was found in, its span there and where its context starts."""

    @property
    def kind(self) -> str: ...

    @property
    def view(self) -> str: ...

    @property
    def at(self) -> tuple[int, int]: ...

    @property
    def context_start(self) -> int | None: ...


def features(
    view: str, start: int, end: int, context_start: int | None = None, context: dict[str, float] | None = None
) -> dict[str, float]:
    """The judge's features of `view[start:end]` (its shape and the `CONTEXT` characters before it,
    from `context_start` on when given); `context`: that span's `context_features`, when read already."""
    out = _context_of(view, start, context_start, end) if context is None else dict(context)
    if "url_query" in out and query_random(view, start, end):
        out["query_random"] = 1.0
    value_shape(view[start:end], out, key_lexicon().prefixes)
    _combine(out)
    return out


def context_features(view: str, start: int, end: int, context_start: int | None = None) -> dict[str, float]:
    """The features of the context of `view[start:end]` alone, what `features` and `reading` start from."""
    return _context_of(view, start, context_start, end)


def _context_of(view: str, start: int, context_start: int | None, end: int | None = None) -> dict[str, float]:
    floor = envelope_floor(view, max(0, start - CONTEXT) if context_start is None else context_start, start)
    out: dict[str, float] = {"bias": 1.0}
    named = named_key(view, start)
    if named is None and (named := values_column(view, start)) is not None:
        out["table_value"] = 1.0  # `| 系统 | 负责人 | 值 |` over `| 门户 | li | <value> |`: read under `值`
    value = view[start:end] if end is not None else None
    label_context(view[floor:start], view[max(0, start - CONTEXT) : start], out, named, value)
    if end is not None and next_key_secret(view, end):
        out["next_key_secret"] = 1.0
    if end is not None and signed_request(view, start, end):
        out["key_ends_benign"] = 1.0  # `…&sign=<hex>&signType=MD5`: the signature of a request, not a key
    if end is not None and (member := jwk_member(view, start, end, key_lexicon())) is not None:
        # `{"kty":"RSA",…,"n":"<modulus>"}`: a public key's member; `"d":"…"`: a private key's
        out["key_ends_benign" if member == "public" else "jwk_private"] = 1.0
    if digest_before_aside(view, start, key_lexicon()):
        out["key_ends_benign"] = 1.0  # `口令哈希（sha256，不是口令本身）：<hex>`: the label names a digest
    if end is not None and beside_check_value(view, start, end):
        out["check_value"] = 1.0  # `MAK_CLEAR=<32 hex>` / `MAK_KCV=7C1E0A`: a key beside its check value
    if end is not None and denied_after(view, start, end, key_lexicon()):
        out["key_ends_benign"] = 1.0  # `sign=<hex>（签名结果，不是密钥）`: an aside after it says it is no secret
    if after_option_value(view, start):
        out["key_ends_benign"] = 1.0  # `-field=db_password <path>`: the option's value is no key of this argument
    if end is not None and cipher_key(view, start, end):
        out["cipher_key"] = 1.0  # `<64 hex>` beside `alg = AES-256-GCM`: the key the named cipher takes
    if view[start - 1 : start] in (" ", "\t", ":", "：") and after_account(view, start):
        out["after_account"] = 1.0  # `login : admin@site` over `initial : <value>`: the account's password
    if end is not None:
        call_argument(view, start, end, out)
        if code_literal(view, start, end):
            out["code_literal"] = 1.0
        shown_by: str | None = None  # the label of a value presented after a colon or announced above it
        if not IDENTIFIER.fullmatch(view, start, end):  # a digest or a UUID stated in prose names a thing
            if stated(view, start):
                out["stated"] = 1.0
            elif presented(view, start, end):
                out["presented"] = 1.0
                shown_by = view[view.rfind("\n", 0, start) + 1 : start]
        previous = announced(view, start, end) if view[start - 1 : start] in (" ", "\t", "\n") else None
        if previous is None:
            previous = printed(view, start, end)  # the last field a command naming a secret printed
        if header_value(view, start):
            out["header_value"] = 1.0
        if fed_on_stdin(view, start):
            out["stdin_secret"] = 1.0
        if previous is not None:
            out["announced"] = 1.0
            if names_a_secret(previous):
                out["announced_secret"] = 1.0
            shown_by = previous
        if shown_by is not None and public_label(shown_by, key_lexicon()):
            out["key_ends_benign"] = 1.0  # `存储账户（资源 ID）：` / `<value>`: the label names an identifier
    return out


# a value's shape means something else after a secret's key than elsewhere (a 32-hex value is a
# digest after `sha256=`, an API key after `DD_API_KEY=`): shape features crossed with the strength
# of the context
_STRONG = (
    "assigned_to_secret",
    "zh_labelled_value",
    "short_flag:p",
    "colon_fields",
    "key_id",
    "announced_secret",
    "key_noun",
    "stdin_secret",
    "jwk_private",
)
_WEAK = (
    "key_secret",
    "near_secret",
    "zh_secret",
    "url_path_secret",
    "announced",
    "query_random",
    "check_value",
    "after_app_id",
    "cipher_key",
    "after_account",
)
_FLAG = ("short_flag",)
_CALL = ("call_arg", "code_literal", "header_value", "table_value")
_PROSE = ("stated", "presented")
_CROSSED = ("classes_1", "classes_2", "classes_3", "classes_4", "hex", "all_lower", "all_upper", "named_pair")


def _combine(out: dict[str, float]) -> None:
    level = (
        "strong"
        if any(n in out for n in _STRONG)
        else "weak"
        if any(n in out for n in _WEAK)
        else "flag"
        if any(n in out for n in _FLAG)
        else "call"
        if any(n in out for n in _CALL)
        else "prose"
        if any(n in out for n in _PROSE)
        else None
    )
    if level is None:
        return
    for name in _CROSSED:
        if name in out:
            out[f"{level}&{name}"] = 1.0
    size = next((name for name in out if name.startswith("len_") and name != "len_log"), None)
    if size is not None:
        out[f"{level}&{size}"] = 1.0


# a candidate is judged only with one of these before it (a secret's key word or label, a key ending
# in a vendor's noun for a credential, the fields of a `.pgpass` line) or a value that says so
# itself (a private key's DER, a credential's shape: `value_signal`), and when it is no placeholder
# (`secret_values.placeholder`); elsewhere a random-looking run (a digest, a certificate line) is no
# secret
CONTEXT_SIGNALS = frozenset(
    {"key_secret", "near_secret", "zh_secret", "colon_fields", "short_flag:p", "next_key_secret", "call_arg", "stated"}
    | {"announced", "url_path_secret", "der_private", "credential_shape", "code_literal", "presented", "header_value"}
    | {"query_random", "key_noun", "stdin_secret", "jwk_private", "short_flag", "table_value", "check_value"}
    | {"after_app_id", "cipher_key", "after_account"}
)


# context signals that say where a value stands, not what it is
_PLACES = frozenset({"code_literal", "stated", "presented", "header_value", "table_value"})


def judged(found: dict[str, float]) -> bool:
    """Whether a candidate with these features is judged at all: a context signal is before it, the
    key it is assigned to does not end in a word that names something else (`session_id`,
    `token_type`, `api_key_url`: an identifier, a kind, an address), a key's id is no UUID and the
    value is no base64 of prose or JSON, hex of words, certificate, public key, signature,
    fingerprint, `0x` number or vehicle identification number, nor hex or padded base64 under `md5`
    — nor, by its place alone (`_PLACES`), base64 of text but a login."""
    if "key_id" in found and "uuid" in found:
        return False  # a key's id written as a UUID (`keyId: <uuid>`) identifies, like any UUID
    if found.keys() & NO_KEY_BYTES or ("k:md5" in found and found.keys() & {"hex", "padding"}):
        return False  # base64 of prose or JSON, hex of words, a certificate's DER, a fingerprint, a number, a digest
    signals = found.keys() & CONTEXT_SIGNALS
    if signals and signals <= _PLACES and "b64_text" in found and not found.keys() & {"b64_login", "b64_keyed"}:
        return False  # a place alone makes no secret of base64 of text (`preview = 'QUJD…'`)
    return bool(signals) and "key_ends_benign" not in found


# a one-letter option right before a value, its quote or blanks between, or `=` (`-k=…`:
# `label_context` reads it)
_FLAG_BEFORE = re.compile(r"(?:^|(?<=[\s\"'\[,]))-[A-Za-z](?:=[\"']?|[\"' \t]*+)\Z")


def _may_have_signal(view: str, start: int, context_start: int | None, end: int) -> bool:
    """A cheap superset of `CONTEXT_SIGNALS`: a secret word or label anywhere in the context or in
    the `AHEAD` characters after the value, a private key's DER as the value, three colons in the
    line before, or a quoted literal with a `(` in the `CALL_REACH` characters before it (most
    candidates of ordinary text have none of these)."""
    floor = max(0, start - CONTEXT) if context_start is None else context_start
    before = view[floor:start].lower()
    if _secret_word_pattern().search(before) or _secret_word_pattern().search(view[end : end + AHEAD].lower()):
        return True
    if ends_in_abbreviated_key(before):
        return True
    if value_signal(view[start:end]) is not None:
        return True
    if view.count(":", max(0, start - CONTEXT), start) >= 3 or "-p" in before:
        return True
    if _FLAG_BEFORE.search(view, max(0, start - 8), start) is not None:
        return True  # a command's one-letter option (`-k …`, `-k=…`): `short_flag`
    if view[start - 1 : start] in (" ", "\t", "\n") and announced(view, start, end) is not None:
        return True
    if printed(view, start, end) is not None or header_value(view, start) or fed_on_stdin(view, start):
        return True
    if view[start - 1 : start] in ('"', "'") and jwk_member(view, start, end, key_lexicon()) == "private":
        return True
    if view[start - 1 : start] == "=" and QUERY_KEY.search(view, max(0, start - 34), start) is not None:
        return True  # a URL query's value: its path may name a secret (`url_path_secret`)
    if named_key(view, start) is not None or code_literal(view, start, end) or stated(view, start):
        return True
    if values_column(view, start) is not None or beside_check_value(view, start, end):
        return True
    if presented(view, start, end) or cipher_key(view, start, end) or after_account(view, start):
        return True
    return quoted_literal(view, start, end) and "(" in view[max(0, start - CALL_REACH) : start]


@cache
def _secret_word_pattern() -> re.Pattern[str]:
    """Any English or Chinese secret word or credential noun of the lexicon, or a FIX credential tag's
    key, as one search."""
    lexicon = key_lexicon()
    words = sorted(
        lexicon.secret_en | lexicon.credential_nouns | set(lexicon.secret_zh), key=lambda word: (-len(word), word)
    )
    return re.compile("|".join(map(re.escape, words)) + "|" + FIX_PASSWORD_KEY)


# a key-word rule's span is overruled only with one of these: a word before it naming no secret (`object_key`,
# `idempotency_key`, `--secret-banner-bg`), or a value that reads as a path, a reference's path of named segments, a
# file, a name, an identifier, a version, a date, a digest, a fingerprint, a number, a measure (`14d`,
# `1,200.00`: a count with its unit, an amount), lowercase words (`capacity`,
# `stripe-live-key`: weighed by the judge) or the documented public part of a pair (a key id, a signature of a body)
VETO_SIGNALS = frozenset(
    {"key_benign", "near_benign", "zh_benign", "path", "named_path", "file_ext", "dotted", "attribute", "uuid"}
    | {"version", "date"}
    | {"hex_digest", "email", "flag", "all_digits", "plain_words", "hex_text", "fingerprint", "hex_number"}
    | {"measure"}
    | {"public_part"}
)


def _vetoable(found: dict[str, float]) -> bool:
    """Whether the judge may overrule a key-word rule's span with these features: one of
    `VETO_SIGNALS`, except digits assigned straight to a secret's key (`PIN=4821`, `apikey: 0000…`:
    a numeric secret; a measure is named by its key — `token_budget`, `…_ITERATIONS` — and never
    judged)."""
    signals = found.keys() & VETO_SIGNALS
    if signals == {"all_digits"} and "assigned_to_secret" in found:
        return False
    return bool(signals)


# `score` reads the view only within `READ_BEHIND` characters before a span (its context, a
# `name`/`value` pair before it) and `READ_AHEAD` after it (the key of the next field), so the score
# of a span is a function of that window, of the span's and its context's place in it and of the
# finding's kind: the key of a `ScoreMemo`
READ_BEHIND = max(CONTEXT, PAIR_REACH)
READ_AHEAD = AHEAD
MEMO_LIMIT = 4096
ScoreMemo = dict[tuple[str, int, int, int | None, str], float]


def reading(
    view: str,
    start: int,
    end: int,
    context_start: int | None = None,
    *,
    source: str,
    context: dict[str, float] | None = None,
) -> float | dict[str, float]:
    """What `SecretJudge.score` reads of `view[start:end]` whatever its weights: the score itself
    when the span is decided without them (0.0 or 1.0), else the features the weights are summed
    over; `context`: the span's `context_features`, when read already. The documented public part
    of a pair with no secret half beside it (`secret_public_parts.alone`) scores 0 from any source."""
    if source == "token" and (
        not _may_have_signal(view, start, context_start, end) or placeholder(view, view[start:end], start)
    ):
        return 0.0
    if source != "rule" and in_url_without_login(view, start, end, names_a_secret):
        return 0.0  # a part of a URL that holds no credential (`mysql://app:${DB_PASS}@db:3306/app`)
    if source != "rule" and in_image_data_uri(view, start, end):
        return 0.0  # an image's bytes after its data URI's head (`data:image/png;base64,…`)
    found = _context_of(view, start, context_start, end) if context is None else dict(context)
    if (signal := value_signal(view[start:end])) is not None:
        found[signal] = 1.0
    if "url_query" in found and query_random(view, start, end):
        found["query_random"] = 1.0  # a query's or a form's field holding one random token
    if source == "token" and not judged(found):
        return 0.0  # decided by the context alone: no shape features needed
    value_shape(view[start:end], found, key_lexicon().prefixes)
    _combine(found)
    if source == "token" and not judged(found):
        return 0.0
    if "public_part" in found and alone(view, start, end, public_part(view[start:end]) or ""):
        return 0.0  # the public half of a pair with no secret half beside it (a key id, a body's signature)
    if source == "keyword" and ("key_ends_benign" in found or found.keys() & PUBLIC_BYTES):
        return 0.0  # overruled whatever the veto: a benign key, or a value anyone may read (a signature)
    if source == "keyword" and not _vetoable(found):
        return 1.0
    found[f"src:{source}"] = 1.0
    return found


@dataclass(frozen=True)
class SecretJudge:
    """Logistic weights over `features`. `threshold`: the score from which a candidate is a secret;
    `veto`: the score below which a span a key-word rule found is no secret after all (only with one
    of `VETO_SIGNALS`)."""

    weights: dict[str, float]
    threshold: float
    veto: float

    def score(self, view: str, start: int, end: int, context_start: int | None = None, *, source: str) -> float:
        """The probability that `view[start:end]` is a secret; `source` is `token` for a candidate,
        `keyword` for a span a key-word rule found."""
        read = reading(view, start, end, context_start, source=source)
        return read if isinstance(read, float) else self.weighed(read)

    def weighed(self, found: dict[str, float]) -> float:
        """The probability the features of a `reading` give under these weights."""
        weights = self.weights
        total = sum(weights.get(name, 0.0) * value for name, value in found.items())
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, total))))

    def accepts(self, found: Judged, memo: ScoreMemo | None = None) -> bool:
        """Whether a finding of `redaction.findings` is a secret: a rule's always, a key-word rule's
        unless it scores below `veto` (0 when its key names something else or the value is public
        whatever names it: `PUBLIC_BYTES`), a candidate's when it scores at least `threshold`. `memo`
        (one per text) keeps the scores of the spans already read, by what `score` reads of them
        (`ScoreMemo`): the same answer, without scoring a repeated line again."""
        if found.kind == "rule":
            return True
        score = self._score_of(found, memo)
        if found.kind == "keyword":
            return score >= self.veto and score > 0.0  # 0.0: ruled out by its key (see `score`)
        return score >= self.threshold

    def _score_of(self, found: Judged, memo: ScoreMemo | None) -> float:
        view = found.view
        start, end = found.at
        low, high = max(0, start - READ_BEHIND), min(len(view), end + READ_AHEAD)
        context = found.context_start
        if memo is None or (context is not None and context < low):
            return self.score(view, start, end, context, source=found.kind)
        key = (view[low:high], start - low, end - low, None if context is None else context - low, found.kind)
        score = memo.get(key)
        if score is None:
            if len(memo) >= MEMO_LIMIT:
                memo.clear()  # bounded memory; a text that repeats itself fills it again at once
            score = memo[key] = self.score(view, start, end, context, source=found.kind)
        return score

    def secrets(self, view: str) -> Iterator[tuple[int, int]]:
        """The candidates of `view` that score at least `threshold`."""
        for found in candidates(view):
            if self.score(view, found.start, found.end, found.context_start, source="token") >= self.threshold:
                yield found.start, found.end

    @classmethod
    def from_json(cls, text: str) -> SecretJudge:
        data = json.loads(text)
        if set(data) != {"threshold", "veto", "weights"}:
            raise ValueError("secret judge weights: expected exactly threshold, veto and weights")
        return cls(
            {str(k): float(v) for k, v in data["weights"].items()}, float(data["threshold"]), float(data["veto"])
        )

    def to_json(self) -> str:
        data = {
            "threshold": round(self.threshold, 4),
            "veto": round(self.veto, 4),
            "weights": {k: round(v, 4) for k, v in sorted(self.weights.items())},
        }
        return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


@cache
def shipped_judge() -> SecretJudge:
    """The judge whose weights ship in the package (`secret_judge_weights.json`)."""
    text = resources.files("autopatch_j.cloud").joinpath("secret_judge_weights.json").read_text(encoding="utf-8")
    return SecretJudge.from_json(text)
