"""Secrets in wire protocols and session languages (C-24), found by the field or position the
protocol gives them rather than by a credential word before them.

- **A FIX message** (`8=FIX.4.4<sep>9=…<sep>35=A<sep>…`): fields are `tag=value` separated by one
  separator the whole message uses — SOH, its printed forms `^A`, `<SOH>`, `[SOH]`, or `|`, `;`, a
  blank — from the BeginString to the CheckSum (`10=…`). The values of the tags that carry a
  credential (`secret_key_words.FIX_CREDENTIAL_TAGS`: 554 Password, 925 NewPassword, 1402
  EncryptedPassword, 1404 EncryptedNewPassword) are secrets (`fix_credential`); every other field (a
  CompID, a sequence number, a timestamp) stays. `fix_credentials` reads a message the same way for the base64 check
  of `secret_sinks` (base64 of a FIX heartbeat is a message, not a login).
- **An HL7 v2 message header** (`MSH|^~\\&|<sending app>|<facility>|<receiving app>|<facility>|<time>|
  <security>|<message type>|…`): the eighth field, MSH-8 Security, carries the credential a sending
  system presents (`hl7_security`); the applications, facilities, the time and the type stay, and an
  empty MSH-8 has nothing to take.
- **A kdb+ connection handle** (`` `:host:port:user:password ``, the argument of `hopen`): the
  fourth field after the backquote-colon is the password (`kdb_handle`); a handle with no password
  (`` `:host:5010 ``, `` `:host:5010:user ``) has none to take.
- **A kdb+ password check** (`.z.pw:{[u;p] … p~"…"}`): the literal the password argument is matched
  against inside the handler's body (`kdb_password_check`).

A reference, a template slot or any other `placeholder` is never taken. Every scan is bounded: a FIX
message is read to its CheckSum, its line's end, the next message's BeginString or `FIX_REACH`
characters, whichever comes first, so each character is read once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from autopatch_j.cloud.secret_key_words import FIX_CREDENTIAL_TAGS
from autopatch_j.cloud.secret_rules import Rule
from autopatch_j.cloud.secret_values import Span, placeholder

__all__ = ["FIX_REACH", "PROTOCOL_RULES", "fix_credentials", "fix_message"]

FIX_REACH = 4096
# the BeginString (FIX.4.0 … FIX.5.0SP2, FIXT.1.1) and the separator before BodyLength (`9=`)
_FIX_HEAD = re.compile(r"(?<![\w=])8=FIXT?\.[0-9]\.[0-9](?:SP[0-9])?(?P<sep>\x01|\^A|<SOH>|\[SOH\]|[|; \t])9=[0-9]")
_TAG = re.compile(r"[0-9]{1,5}")
# a masked or elided value (`****`, `...`)
_MASKED = re.compile(r"\*{3}|\.\.\.|•{2}")


def fix_message(text: str) -> bool:
    """Whether `text` opens with a FIX message's BeginString and BodyLength."""
    return _FIX_HEAD.match(text) is not None


def fix_credentials(text: str) -> Iterator[Span]:
    """The spans of the credential fields' values (`FIX_CREDENTIAL_TAGS`) of every FIX message in `text`."""
    heads = list(_FIX_HEAD.finditer(text))
    for number, head in enumerate(heads):
        sep = head.group("sep")
        line_end = text.find("\n", head.end(), head.start() + FIX_REACH)
        # a message ends at its line's end, at the next message's BeginString or after FIX_REACH
        limit = min(
            head.start() + FIX_REACH,
            len(text) if line_end == -1 else line_end,
            heads[number + 1].start() if number + 1 < len(heads) else len(text),
        )
        pos = head.start("sep") + len(sep)
        while pos < limit:
            end = text.find(sep, pos, limit)
            end = limit if end == -1 else end
            tag, equals, _value = text[pos:end].partition("=")
            if equals and _TAG.fullmatch(tag):
                if tag in FIX_CREDENTIAL_TAGS and end > pos + len(tag) + 1:
                    yield pos + len(tag) + 1, end
                if tag == "10":
                    break  # CheckSum: the message ends here
            pos = end + len(sep)


def _fix_fields(view: str) -> Iterator[Span]:
    for start, end in fix_credentials(view):
        value = view[start:end].strip("\"'")
        if len(value) < 4 or _MASKED.search(value) or placeholder(view, value, start):
            continue
        yield start, end


# `:host:port:user:password` after a backquote (a kdb+ file or network handle symbol)
_KDB_HANDLE = re.compile(
    r"`:(?:tcps?://|unix://)?[A-Za-z0-9.-]{0,253}+:[0-9]{1,5}+:[A-Za-z0-9_.@-]{1,64}+:(?P<s>[!-~]{4,128}?)"
    r"(?=[`\"'\s;)\]}]|\Z)"
)
# `.z.pw:{[u;p] … p~"…"}`: the password argument matched against a literal in the handler's body
_KDB_CHECK = re.compile(
    r"\.z\.pw[ \t]*+:[ \t]*+\{[ \t]*+\[[ \t]*+(?P<u>[A-Za-z]\w{0,31}+)[ \t]*+;[ \t]*+(?P<p>[A-Za-z]\w{0,31}+)[ \t]*+\]"
    r"[^}\n]{0,240}?(?<![\w.])(?P=p)[ \t]*+~[ \t]*+\"(?P<s>[^\"\n]{4,128}+)\""
)


def _kdb(view: str) -> Iterator[Span]:
    for pattern in (_KDB_HANDLE, _KDB_CHECK):
        for match in pattern.finditer(view):
            value = match.group("s")
            if _MASKED.search(value) or placeholder(view, value, match.start("s")):
                continue
            yield match.span("s")


# MSH, the field separator, the encoding characters (`^~\&`, printed escaped as `^~\\&`), MSH-3 to
# MSH-7 and then MSH-8 (Security), up to the separator before MSH-9
_HL7_MSH = re.compile(r"(?<![A-Za-z0-9])MSH\|[\^~\\&#]{4,8}+\|(?:[^|\r\n]{0,200}+\|){5}(?P<s>[^|\r\n]{4,200}+)\|")


def _hl7_security(view: str) -> Iterator[Span]:
    for match in _HL7_MSH.finditer(view):
        value = match.group("s")
        if _MASKED.search(value) or placeholder(view, value, match.start("s")):
            continue
        yield match.span("s")


PROTOCOL_RULES: tuple[Rule, ...] = (
    Rule("fix_credential", _fix_fields, ("8=fix",)),
    Rule("hl7_security", _hl7_security, ("msh|",)),
    Rule("kdb_credential", _kdb, ("`:", ".z.pw")),
)
