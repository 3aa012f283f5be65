"""Secrets in a network device's configuration (C-24), found by the position the configuration
language gives them rather than by a credential word before them.

A router's or switch's configuration (Cisco IOS/NX-OS style, Huawei VRP) writes a credential as a
space-separated argument after a fixed sequence of keywords, often with a key id, a hash name or a
one-digit encryption type between (`0` clear text, `7` reversible, `6` AES):

- a routing or time protocol's key: `message-digest-key <id> md5 <value>`, `authentication-key <id>
  md5 <value>`, `key-string [<type>] <value>` (a key chain, an HSRP group), `authentication-mode
  md5 [<id>] cipher <value>`;
- a AAA server's shared key: the `key [<type>] <value>` of a `tacacs`/`radius` server line (`…
  host <address> … key 0 "<value>"`), an IKE pre-shared `isakmp key <value>`;
- a BGP neighbour's `password [<type>] <value>`;
- SNMP: `snmp-server community <value>`, an SNMPv3 user's `auth <hash> <value>` and `priv <cipher>
  [<bits>] <value>`, VRP's `community read|write cipher <value>`;
- a VRP password after `cipher`, `irreversible-cipher` or `simple`, a Comware switch's password
  for a privilege level (`super password [role <role>] [level <n>] simple <value>`).

The position is the signal (`device_key`, a structural rule the judge does not overrule: the words
before such a value — `md5`, `sha`, `aes 128` — name its algorithm, not what it is); a reference or
a template slot (`$OSPF_KEY`, `{{ community }}`, `<key>`) or any other `placeholder` is never taken.
Huawei VRP's cipher text is self-delimited (`%^%#…%^%#`, `%@%@…%@%@`, `%$%$…%$%$`, `@%@%…@%@%`) and
is a secret wherever it stands (`vrp_cipher_text`). An eSIM activation code (GSMA SGP.22:
`LPA:1$<SM-DP+ address>$<matching id>`) holds its secret in the matching id
(`esim_activation_code`); the address stays.

Every pattern is linear: quantifiers are possessive or bounded by a small constant.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from autopatch_j.cloud.secret_rules import Rule
from autopatch_j.cloud.secret_values import Span, placeholder

# the value: a quoted string or a run of printable characters (a device argument holds no space)
_VALUE = r"(?:\"(?P<dq>[^\"\r\n]{4,128}+)\"|(?P<v>[!-~]{4,128}+))"
_TYPE = r"(?:[0-9][ \t]++)?"
_ID = r"[0-9]{1,10}+[ \t]++"
_HASH = r"(?:md5|sha[0-9-]{0,4}+|hmac-[a-z0-9-]{1,16}+|cleartext|simple)[ \t]++"
_DEVICE_KEY = re.compile(
    r"(?i)(?<![\w-])(?:"
    rf"(?:message-digest-key|authentication-key)[ \t]++{_ID}{_HASH}{_TYPE}"
    rf"|key-string[ \t]++{_TYPE}"
    rf"|authentication-mode[ \t]++{_HASH}(?:{_ID})?(?:cipher|plain)[ \t]++"
    # a AAA server's line: its other arguments (an address, ports, a timeout) before `key`
    rf"|(?:tacacs|radius)(?:-server|[ \t]++server)?+(?:[ \t]++(?!key\b)[\w.:/-]{{1,40}}+){{0,8}}"
    rf"[ \t]++key[ \t]++{_TYPE}"
    rf"|isakmp[ \t]++key[ \t]++{_TYPE}"
    rf"|neighbor[ \t]++[\w.:-]{{1,64}}+[ \t]++password[ \t]++{_TYPE}"
    r"|snmp-server[ \t]++community[ \t]++"
    r"|snmp-server[ \t]++user[ \t]++[!-~]{1,64}+[ \t]++[!-~]{1,64}+[ \t]++v3[ \t]++(?:encrypted[ \t]++)?"
    r"(?:auth[ \t]++(?:md5|sha[0-9-]{0,4}+)[ \t]++(?P<auth>[!-~]{4,128}+)[ \t]++)?"
    r"(?:priv[ \t]++(?:3des|des|aes)(?:[ \t]++(?:128|192|256))?[ \t]++|auth[ \t]++(?:md5|sha[0-9-]{0,4}+)[ \t]++)"
    # a switch's password for a privilege level (`super password role level-15 simple …`)
    r"|super[ \t]++password(?:[ \t]++(?:role|level)[ \t]++[\w-]{1,32}+){0,2}+[ \t]++"
    r"(?:irreversible-cipher|cipher|simple)[ \t]++"
    r"|(?:password|community(?:[ \t]++(?:read|write))?|pre-shared-key)[ \t]++"
    r"(?:irreversible-cipher|cipher|simple)[ \t]++"
    rf"){_VALUE}"
)
# a value that stands for another: a variable, a template slot (`%(name)s`, never VRP's `%^%#…` cipher
# text), a masked or elided value
_SLOT = re.compile(r"[$<{]|%[({]|\*{3}|\.\.\.")


def _device_keys(view: str) -> Iterator[Span]:
    for match in _DEVICE_KEY.finditer(view):
        for group in ("auth", "dq", "v"):
            if match.group(group) is None:
                continue
            value, span = match.group(group), match.span(group)
            if group == "v" and value[-1] in ".,;":
                value, span = value[:-1], (span[0], span[1] - 1)
            if _SLOT.match(value) or placeholder(view, value, span[0]):
                continue
            yield span


# Huawei VRP cipher text: a body of printable characters between two equal four-character marks
_CIPHER_TEXT = re.compile(r"(?P<m>%\^%#|%@%@|%\$%\$|@%@%)[!-~]{16,240}?(?P=m)")


def _cipher_texts(view: str) -> Iterator[Span]:
    for match in _CIPHER_TEXT.finditer(view):
        yield match.span()


# GSMA SGP.22 activation code: `LPA:1$<SM-DP+ address>$<matching id>` (an optional `$<OID>` after)
_ACTIVATION_CODE = re.compile(r"(?i)(?<![\w])LPA:1\$[A-Za-z0-9.-]{1,253}+\$(?P<s>[A-Za-z0-9-]{4,64}+)")


def _activation_codes(view: str) -> Iterator[Span]:
    for match in _ACTIVATION_CODE.finditer(view):
        yield match.span("s")


DEVICE_RULES: tuple[Rule, ...] = (
    Rule("device_key", _device_keys, ("key", "password", "community", "cipher", "simple", "user")),
    Rule("vrp_cipher_text", _cipher_texts, ("%^%#", "%@%@", "%$%$", "@%@%")),
    Rule("esim_activation_code", _activation_codes, ("lpa:1$",)),
)
