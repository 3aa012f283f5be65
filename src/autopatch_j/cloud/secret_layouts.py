"""Secrets known by their layout, with neither a key word nor a provider prefix before them (C-24).

* **A webhook URL's path after the hook segment** (`…/webhookb2/…`, `…/bot/v2/hook/<token>`,
  `…/api/webhooks/<id>/<token>`): whoever holds the URL can post, so the rest of the path is the
  credential, when one of its segments reads as random (≥ 16 characters with a letter and a digit;
  `/webhooks/github/push-events` stays).
* **A login before a host without a scheme** (`user/password@//host:1521/SVC`,
  `user/password@host:port/service`, an Oracle connect string; `user:password@tcp(host:3306)/db`, a
  Go MySQL DSN; `user/'password'@host:port`, the password quoted for a shell, a host and its port
  or a service's name without a dot after it): the part between the `/` or `:` and the `@` that
  starts the host, when it reads like a password; a part ending in `:` has an empty password field, it names a driver
  (`jdbc:oracle:thin:@//host:1521/SVC`). A logon string (`.logon host.example.org/user,password`): the
  part after the comma that follows a dotted host, `/` and a user, when it reads like a password. A
  package or an action at a version (`actions/setup-node@v4`, `tools/cmd/x@v0.24.0`) names no port,
  so it stays. An e-mail login with its password ending a line when the password reads like one
  (`git@host:org/repo`, a port stay); on a mail relay's `sasl_passwd` line
  (`[smtp.example.org]:587 bot@example.org:<password>`: the relay first, then the login) the
  position alone says it is a password (sixteen lowercase letters, a mail service's app password,
  included).
* **Secrets printed in groups**: a setup key in groups of four base32 characters (`k7qm 2xzp r4tw
  …`, at least six groups, letters beyond the hex digits and digits in two groups or more), and a
  list of at least four codes of two halves (`q7k2m-x9t4z`) whose letters and digits interleave
  (an issue key such as `ABC-1234` does not).
* **Codes listed under a label that names them** (`recovery codes`, `RECOVERY_CODES =`, `backup
  codes:`, 恢复码, 备用码): at least four runs of one length (6–32 characters, most with a digit)
  separated by spaces, commas or line breaks, within 80 characters of the label; names or words
  listed after such a label stay.
* **A password hash in the modular crypt format** (`$2y$10$…` bcrypt as in an `.htpasswd` line,
  `$6$salt$…`, `$argon2id$v=19$…`): it can be cracked offline, so it is kept like the password.
* **A signed token after a short kind** (`sk.` + a base64url JSON payload + a signature; a
  publishable `pk.` one stays) and **a PuTTY key file's private lines** (the base64 lines after
  `Private-Lines: N` up to `Private-MAC:`, whatever prefix each line carries).
* **Tokens whose layout names their issuer**: a Slack incoming webhook's path without its host
  (`T<team>/B<channel>/<24 letters and digits>`), a CAS ticket-granting ticket (`TGT-<n>-<random>`,
  the session a CAS cookie carries) and an Atlassian API token (`ATATT3…`, with the `=` and eight
  hex digits of its checksum).
* **A Windows account's password set on the command line** (`net user <name> <password> [/add]`):
  the argument after the account's name; an option (`/active:yes`), the prompt `*` and a variable
  (`%NEWPASS%`) stay.
* **An account's password given to an admin tool that adds it** (`emqx_ctl users add <name>
  <password>`, `… clientid add <id> <password>`, `rabbitmqctl add_user <name> <password>`,
  `mosquitto_passwd -b <file> <name> <password>`): the argument after the account's name; an
  option, a prompt `*`, a variable (`$PASS`, `%PASS%`) and a placeholder stay.
* **A login pair given after an endpoint's URL** (`mc alias set <alias> http://host:9000 <access key>
  <secret key>`): the second of the two arguments that follow the URL (with no query) and end the
  command, when it
  reads random — letters and digits interleaved, not hex alone (a directory and a commit after a
  clone's URL, a release's name after a download's stay).

Every pattern is bounded per start (possessive runs, lazy runs of at most 128 characters stopping at
a space or a slash), so each rule is linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from autopatch_j.cloud.secret_rules import Rule, with_needs
from autopatch_j.cloud.secret_shapes import passwordish
from autopatch_j.cloud.secret_values import looks_random, placeholder

__all__ = ["LAYOUT_RULES"]

Span = tuple[int, int]

_PATH = "A-Za-z0-9_.@%~=+-"
_HOOK_URL = re.compile(
    rf"(?i)https?://[A-Za-z0-9.-]{{1,253}}+(?::\d{{1,5}}+)?(?:/[{_PATH}]{{0,64}}+){{0,8}}?"
    rf"/(?:[a-z0-9]{{0,16}}hooks?[a-z0-9]{{0,8}}|robot)/(?P<s>[{_PATH}/]{{16,512}}+)"
)
_RANDOM_SEGMENT = re.compile(r"(?=[A-Za-z0-9_-]{0,63}?[0-9])(?=[A-Za-z0-9_-]{0,63}?[A-Za-z])[A-Za-z0-9_-]{16,}")


def _hook_paths(view: str) -> Iterator[Span]:
    for match in _HOOK_URL.finditer(view):
        path = match.group("s")
        if _RANDOM_SEGMENT.search(path) and not placeholder(view, path, match.start("s")):
            yield match.span("s")


_LOGIN_AT_HOST = re.compile(
    r"(?<![\w./@:%$-])[A-Za-z_][\w.$-]{0,63}+[/:](?P<s>[^\s/\"'`]{4,128}?)"
    r"@(?://[A-Za-z0-9]|[A-Za-z0-9][\w.-]{0,253}+:\d{2,5}+/\w|(?:tcp|unix)\()"
)

# the same login with its password quoted for a shell (`./disql SYSDBA/'…'@10.0.0.5:5236`,
# `sqlplus scott/"…"@orcl`): the quotes mark the password; a host and its port follow, or a service's
# name without a dot (a file's name, `'Logo-Dark'@2x.png`, is neither)
_QUOTED_LOGIN_AT_HOST = re.compile(
    r"(?<![\w./@:%$-])[A-Za-z_][\w.$-]{0,63}+/(?P<q>['\"])(?!\[REDACTED\])(?P<s>[^\s'\"]{4,128}+)(?P=q)"
    r"@(?:[A-Za-z0-9][\w.-]{0,253}+:\d{2,5}+|[A-Za-z][\w-]{0,63}+)(?![\w.-])"
)


# a logon string: a host with a dot, `/`, a user, `,` and the password (`.logon tdp.example.org/etl,…`,
# a warehouse client's `host/user,password`); the password ends at a blank, a quote, `;` or `,`
_LOGON_STRING = re.compile(
    r"(?<![\w./@:%$-])[A-Za-z0-9][\w-]{0,62}+(?:\.[A-Za-z0-9][\w-]{0,62}+){1,8}+/[A-Za-z_][\w.$-]{0,63}+"
    r",(?!\[REDACTED\])(?P<s>[^\s\"'`;,]{4,128}+)"
)


# an e-mail address, a colon and a password that ends its line
_MAIL_LOGIN = re.compile(
    r"(?<![\w.+@-])[\w.+-]{1,64}+@[A-Za-z0-9-]{1,63}+(?:\.[A-Za-z0-9-]{1,63}+)++:(?P<s>[^\s/\"'`:]{6,128}+)"
    r"(?=[ \t]*+(?:\r?\n|\Z|[\"'`]))"
)


# a mail relay's `sasl_passwd` line: the relay (`[smtp.example.org]:587`, `smtp.example.org:465`) at
# the line's start, blanks, then an e-mail login whose password ends the line
_RELAY_LOGIN = re.compile(
    r"(?m)^[ \t]*+(?:\[[A-Za-z0-9.-]{1,253}+\]|[A-Za-z0-9.-]{1,253}+)(?::[0-9]{1,5}+)?[ \t]++"
    r"[\w.+-]{1,64}+@[A-Za-z0-9-]{1,63}+(?:\.[A-Za-z0-9-]{1,63}+)++:(?P<s>[^\s/\"'`:]{6,128}+)"
    r"(?=[ \t]*+(?:\r?\n|\Z))"
)


def _logins_at_host(view: str) -> Iterator[Span]:
    for pattern in (_LOGIN_AT_HOST, _QUOTED_LOGIN_AT_HOST, _LOGON_STRING, _MAIL_LOGIN, _RELAY_LOGIN):
        for match in pattern.finditer(view):
            value = match.group("s")
            if value.endswith(":"):
                continue  # `jdbc:oracle:thin:@//…`: the field before `@` is empty, no login
            if (pattern is _RELAY_LOGIN or passwordish(value)) and not placeholder(view, value, match.start("s")):
                yield match.span("s")


_GROUPS_OF_FOUR = re.compile(
    r"(?<![\w-])(?:[a-z2-7]{4}(?: [a-z2-7]{4}){5,15}|[A-Z2-7]{4}(?: [A-Z2-7]{4}){5,15})(?![\w-])"
)
_CODE = r"[a-z0-9]{4,6}-[a-z0-9]{4,6}"
_CODES = re.compile(rf"(?<![\w-])(?i:{_CODE}(?:[ \t\r\n+,;]{{1,3}}+{_CODE}){{3,23}}+)(?![\w-])")
_DIGIT_LETTER = re.compile(r"(?<=[0-9])[a-zA-Z]|(?<=[a-zA-Z])[0-9]")
_CODE_SPLIT = re.compile(r"[ \t\r\n+,;]+")


def _grouped(view: str) -> Iterator[Span]:
    for match in _GROUPS_OF_FOUR.finditer(view):
        groups = match.group().split(" ")
        with_digit = sum(any(c.isdigit() for c in group) for group in groups)
        beyond_hex = any(c.lower() in "ghijklmnopqrstuvwxyz" for c in match.group())
        if with_digit >= 2 and beyond_hex:
            yield match.span()
    for match in _CODES.finditer(view):
        codes = _CODE_SPLIT.split(match.group())
        switches = [len(_DIGIT_LETTER.findall(code)) for code in codes]
        mixed = sum(n >= 1 for n in switches)
        interleaved = sum(n >= 2 for n in switches)
        if mixed * 4 >= len(codes) * 3 and interleaved * 2 >= len(codes) and len(set(codes)) == len(codes):
            yield match.span()


# a list of one-time codes under a label that names them (`recovery codes`, `RECOVERY_CODES`, `backup
# codes`, 恢复码, 备用码): at least four runs of the same length, one code each, separated by spaces,
# commas or line breaks, within 80 characters after the label (its key, a colon, a sentence's end)
_CODES_LABEL = re.compile(r"(?i:(?:recovery|backup|2fa|mfa|two[ -]factor)[ _-]?codes?)|恢复码|备用码|救援码")
_CODE_LIST = re.compile(
    r"[^\n]{0,80}?(?:\n[ \t]*+){0,2}?(?<![A-Za-z0-9-])"
    r"(?P<s>[A-Za-z0-9-]{6,32}+(?:[ \t\r\n,;`|]{1,4}+[A-Za-z0-9-]{6,32}+){3,31}+)"
)
_LIST_SPLIT = re.compile(r"[ \t\r\n,;`|]+")


def _labelled_codes(view: str) -> Iterator[Span]:
    for label in _CODES_LABEL.finditer(view):
        found = _CODE_LIST.match(view, label.end())
        if found is None:
            continue
        codes = _LIST_SPLIT.split(found.group("s"))
        lengths = {len(code) for code in codes}
        with_digit = sum(any(c.isdigit() for c in code) for code in codes)
        if len(lengths) == 1 and with_digit * 4 >= len(codes) * 3 and len(set(codes)) == len(codes):
            yield found.span("s")


# a password hash in the modular crypt format (`$2y$10$…` bcrypt, `$6$salt$…`, `$argon2id$v=19$…`)
_CRYPT_HASH = re.compile(
    r"(?<![\w$])\$(?:2[abxy]|1|5|6|7|y|gy|apr1|argon2id|argon2i|argon2d|scrypt|pbkdf2-sha256|pbkdf2-sha512)"
    r"\$(?:[\w=,.-]{1,64}+\$){0,3}+[./A-Za-z0-9+]{20,256}+"
)


def _crypt_hashes(view: str) -> Iterator[Span]:
    for match in _CRYPT_HASH.finditer(view):
        yield match.span()


# a signed token with a short kind before it: the kind, a base64url JSON payload, its signature
# (`sk.eyJ1Ijoi….<signature>`); a publishable kind (`pk.`) is no secret
_SIGNED_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_.-])[A-Za-z][A-Za-z0-9]{0,7}\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{16,}+(?![A-Za-z0-9_.-])"
)


def _signed_tokens(view: str) -> Iterator[Span]:
    for match in _SIGNED_TOKEN.finditer(view):
        if not placeholder(view, match.group(), match.start()):
            yield match.span()


# a PuTTY key file's private part: the base64 lines after `Private-Lines: N`, up to `Private-MAC:`
_PPK_PRIVATE = re.compile(r"Private-Lines:[ \t]*+[0-9]{1,3}+[ \t]*+\r?\n")
_PPK_END = "Private-MAC:"
_PPK_LINES = 64
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/\[])[A-Za-z0-9+/]{8,}+={0,2}(?![A-Za-z0-9+/=\]])")


def _ppk_private_lines(view: str) -> Iterator[Span]:
    """The base64 runs of the lines after `Private-Lines:` (at most `_PPK_LINES`, each read once per
    header), with whatever quote or log prefix each line carries."""
    for match in _PPK_PRIVATE.finditer(view):
        at = match.end()
        for _ in range(_PPK_LINES):
            end = view.find("\n", at)
            end = len(view) if end == -1 else end
            if _PPK_END in view[at:end]:
                break
            yield from (run.span() for run in _BASE64_RUN.finditer(view, at, end))
            if end >= len(view):
                break
            at = end + 1


# `net user <name> <password>`: the password Windows sets for the account (not an option, not `*`)
_NET_USER = re.compile(
    r"(?i)(?<![\w-])net(?:\.exe)?[ \t]++user[ \t]++(?:\"[^\"\r\n]{1,64}+\"|[^\s/\"*]{1,64}+)[ \t]++"
    r"(?:\"(?P<q>[^\"\r\n]{1,128}+)\"|(?P<s>[^\s/\"*][^\s\"]{0,127}+))"
)

_WINDOWS_VARIABLE = re.compile(r"%[A-Za-z_]\w{0,63}+%")


def _net_user_passwords(view: str) -> Iterator[Span]:
    return _command_passwords(_NET_USER, view)


def _command_passwords(command: re.Pattern[str], view: str) -> Iterator[Span]:
    """The password each match of `command` hands over (its `q`, `sq` — single-quoted, where the
    pattern has it — or `s` group), unless it is shorter than four characters, a Windows variable
    or a placeholder."""
    for match in command.finditer(view):
        group = next(name for name in ("q", "sq", "s") if match.groupdict().get(name) is not None)
        value = match.group(group)
        if len(value) < 4 or _WINDOWS_VARIABLE.fullmatch(value) or placeholder(view, value, match.start(group)):
            continue
        yield match.span(group)


# a broker's or a service's admin tool adding an account with its password on the command line:
# `<x>ctl users add <name> <password>` (also `clientid`, `admins`, `passwd`), `rabbitmqctl add_user
# <name> <password>`, `mosquitto_passwd -b <file> <name> <password>`; the name and the password
# bare, in double quotes or in a shell's single quotes
_ACCOUNT_COMMAND = re.compile(
    r"(?i)(?<![\w-])(?:[\w.-]{0,32}?ctl(?:\.exe)?[ \t]++(?:(?:clientid|clients?|users?|usernames?|accounts?|admins?)"
    r"[ \t]++(?:add|create|passwd|set[-_]password)|add_user|change_password)"
    r"|mosquitto_passwd[ \t]++-b[ \t]++[^\s\"']{1,255}+)"
    r"[ \t]++(?:\"[^\"\r\n]{1,64}+\"|'[^'\r\n]{1,64}+'|[^\s\"'-][^\s\"']{0,63}+)[ \t]++"
    r"(?:\"(?P<q>[^\"\r\n]{1,128}+)\"|'(?P<sq>[^'\r\n]{1,128}+)'|(?P<s>[^\s\"'*$%<-][^\s\"']{0,127}+))"
)


def _account_command_passwords(view: str) -> Iterator[Span]:
    return _command_passwords(_ACCOUNT_COMMAND, view)


# a login pair given as the two arguments after an endpoint's URL (no query: a URL carrying one is a
# link, its words a note), ending the command (`mc alias set <alias> http://host:9000 <access key>
# <secret key>`): the second, when it reads random
_PAIR_AFTER_URL = re.compile(
    r"(?<![\w/])https?://[^\s\"'`?]{1,253}+[ \t]++[A-Za-z0-9_.@-]{3,64}+[ \t]++(?!\[REDACTED\])"
    r"(?P<s>[A-Za-z0-9+/=_-]{16,128}+)(?=[ \t]*+(?:\r?\n|\Z|[\"'`;&|]|--))"
)


_HEX_ONLY = re.compile(r"[0-9a-fA-F]++")


def _pairs_after_url(view: str) -> Iterator[Span]:
    for match in _PAIR_AFTER_URL.finditer(view):
        value = match.group("s")
        if _HEX_ONLY.fullmatch(value) or len(_DIGIT_LETTER.findall(value)) < 4:
            continue  # hex alone is a digest's alphabet (a commit); words and numbers joined (`release-2026-11-30`)
        if looks_random(value) and not placeholder(view, value, match.start("s")):
            yield match.span("s")


_SLACK_HOOK_PATH = re.compile(r"(?<![A-Za-z0-9/])T[A-Z0-9]{8,12}+/B[A-Z0-9]{8,12}+/[A-Za-z0-9]{24}(?![A-Za-z0-9])")
_CAS_TICKET = re.compile(r"(?<![A-Za-z0-9-])TGT-[0-9]{1,12}+-[A-Za-z0-9_-]{20,256}+")
_ATLASSIAN_TOKEN = re.compile(r"(?<![A-Za-z0-9])ATATT3[A-Za-z0-9_-]{60,512}+(?:=[0-9A-Fa-f]{8}(?![A-Za-z0-9]))?")


def _issued_tokens(view: str) -> Iterator[Span]:
    for pattern in (_SLACK_HOOK_PATH, _CAS_TICKET, _ATLASSIAN_TOKEN):
        for match in pattern.finditer(view):
            yield match.span()


_LAYOUT_RULES: tuple[Rule, ...] = (
    Rule("webhook_path", _hook_paths),
    Rule("login_at_host", _logins_at_host),
    Rule("grouped_secret", _grouped),
    Rule("crypt_hash", _crypt_hashes),
    Rule("labelled_codes", _labelled_codes),
    Rule("signed_token", _signed_tokens),
    Rule("ppk_private_lines", _ppk_private_lines),
    Rule("net_user_password", _net_user_passwords),
    Rule("account_command_password", _account_command_passwords),
    Rule("pair_after_url", _pairs_after_url),
    Rule("issued_token", _issued_tokens),
)
# the literal each rule's matches hold, lowercased (see `Rule.needs`)
LAYOUT_RULES: tuple[Rule, ...] = with_needs(
    _LAYOUT_RULES,
    {
        "webhook_path": ("hook", "robot"),
        "login_at_host": ("@", ","),
        "grouped_secret": (" ", "-"),
        "crypt_hash": ("$",),
        "labelled_codes": ("code", "恢复码", "备用码", "救援码"),
        "signed_token": (".eyj",),
        "ppk_private_lines": ("private-lines:",),
        "net_user_password": ("user",),
        "account_command_password": ("ctl", "mosquitto_passwd"),
        "pair_after_url": ("://",),
        "issued_token": ("/b", "tgt-", "atatt3"),
    },
)
