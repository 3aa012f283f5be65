"""Redaction cases kept as data, one file per family of placements (`data/redaction_<name>.json`,
each with `secrets` — a text, its secret `pieces` and a public part that `survives` — and
`lookalikes` that must come back unchanged):

- `slots`: a value where a credential sits whatever its prefix — after a camelCase key and a space
  (`storePassword "…"`), an English label before a corner bracket (`Secret「…」`), a long generated
  key starting with `$`, the value after a flag naming a secret, a private key as bare base64 DER, an
  auth pair's password; certificates, public keys, names and references beside them stay.
- `sinks`: key material where it goes — literals handed to HMAC or digests, base64 logins, key ids
  before their secrets, values echoed into secret files.
- `tool_output`: what a coding agent's tools print back — timestamped log lines, a URL-encoded diff,
  a CSV export, an argv list, a value on the line after its announcement, an environment lookup's
  default, base64 of a token or of a JSON document carrying a key, a sign-in link's token, a key
  behind a hanging indent, letter-group app passwords; documentation keys, templates, checksums,
  public keys, commit ids and public app ids from the same outputs stay.
- `placements`: a value placed where a credential goes in an ops config, a table or a command with
  no trigger word — a key named by an abbreviation of a secret's words (`cs`, `KS`, `appsec`,
  `bindpw`), a login with an empty password, a signed token, a key file printed under a root prompt,
  a password option after a user option, SQL `IDENTIFIED BY`, a literal piped into a login, a sealed
  cookie, a mail relay line's app password, random lowercase letters after `授权码是：`, the
  password `net user` sets; public keys, template slots, paths, labels said to be absent, cache
  keys, placeholders, lowercase words after a label and `net user` options placed the same way stay.
- `credential_shapes`: a value whose own form says it is a credential where its key names nothing
  known — a short kind before a long random body, a labelled recovery phrase of word-list words, a
  private key under a key ending in `PK` — and values cut across lines under a relaying tool's tag
  (`[runner-2] `, `remote: `, `... `); object ids, tagged log lines and prose after the
  same labels stay.
- `device_configs`: a network device's configuration — the value after a protocol's key id and
  hash (`message-digest-key 7 md5 …`, `authentication-key 1 md5 …`), after `key-string`, a
  TACACS+/RADIUS server's `key`, a BGP neighbour's `password 7 …`, an SNMP community, SNMPv3
  `auth`/`priv` passwords, Huawei VRP cipher text, a protocol's `md5` key or a `type7` password in
  a variable, a gateway's `shared` secret, an eSIM activation code's matching id; key ids, template
  slots, `SHA256:` and colon-hex fingerprints, hex numbers, a placeholder person's token and
  checksums stay.
- `protocols`: a trading system's protocols — a FIX message's password fields (554, 925, 1402)
  whatever separator it is printed with, base64 of a FIX logon, a value under a key that names a
  FIX credential tag by its number (`fix_554`), a kdb+ handle's password and the literal a `.z.pw`
  handler matches; a FIX heartbeat and its base64, a logon's user name, masked fields, keys naming
  other FIX tags, handles without a password and a handler that looks the password up stay.
- `handover`: an ops handover — a value under a Markdown table's column header naming a secret
  (also when the row is cut inside the cell), tokens known by their layout (an Atlassian API token,
  a Slack webhook's path without its host, a CAS ticket-granting ticket), C# verbatim and Lua
  long-bracket strings, `tk` for token, a name fusing a short prefix with `password`, `gsql -W`, a
  switch's `super password … simple`, `user / password` after a label; empty settings, variable
  names a pipeline binds, a placeholder before a shell prompt, a parameter naming a key's file, a
  request's signature beside its sign type, a registration code, a serial number, masked tables,
  slash pairs of words and a PKCE challenge stay.
- `fleet`: a connected fleet's operations — a key named by its abbreviation (`ltk`, a digital
  key's long-term key) after a log line's timestamp and in JSON, a password given to a broker's
  admin tool that adds an account (`emqx_ctl clientid add`, `rabbitmqctl add_user`,
  `mosquitto_passwd -b`); a job's hex id after a timestamp, DSA/ECDSA signatures in base64 DER and
  admin commands with a variable or a placeholder for the password stay.
- `ward`: a hospital's integration and operations texts — a value named by a `name` field before
  its `value` field in a form body, the password handed beside a key store's file (`.pfx`, `.jks`),
  an SNMPv3 user's passphrases given to a Net-SNMP tool (`-A`, `-X`), an HL7 v2 header's security
  field (MSH-8); a benign setting in the same form body, a placeholder, a second file's name, an
  empty MSH-8, an SNMPv2c walk and the date a password was last set stay.
- `storefront`: a cross-border shop's operations texts — the password an installer prints when it
  generates one (`A temporary password is generated for root@localhost: …`, `The generated
  password for the elastic built-in superuser is : …`), an account and its password after a
  Chinese role label (`管理员 admin / …`), a random value in a URL query's or a form body's field
  whatever its name (`&wa_at=…`); a vendor's published documentation keys (Stripe's test keys, the
  storage emulator's account key), a marketplace request's `sign` beside its `timestamp`, a request
  id and a digest in a query, a key after a label whose bracketed aside says it is public
  (`clientKey（前端公开）：…`) and an age recipient (a public key) after a joined line stay.
- `live_ops`: a live-ops studio's build and operations texts — a credential named by its vendor's
  own noun rather than a secret's word (a version-control `ticket`, an app `cert`, a push service's
  `MASTER`, a session `ticket` in a log line), an admin password a command prints inside a JSON
  tool result; a number before a YAML line in JSON, a file name before its digest in a URL-encoded
  note and identifiers after a Chinese label and a copula (`commit为：`, `事件 ID是：`,
  `退款单号是：`) stay.
- `grid_ops`: a grid operator's operations texts — a generated passphrase of lowercase letter groups
  after a Chinese label and given to a signing script as a here-string (`--passphrase-stdin <<<
  '…'`), a JSON Web Key's private member (`"d"`); a key set's public members (an RSA modulus, an EC
  point with its `"kty"` after it), a connection string whose password is marked already and a
  password's digest whose label names a hash before a bracketed aside stay.
- `meter_ops`: a metering team's operations texts — a value after a command's one-letter option
  (`pkgctl publish … -k …`, `meterctl read … -A <hex>`, other options before it) and a value on the
  line after a quoted reply's line that ends in a Chinese copula and names a secret (`用的 Webhook
  Secret就是` / `> …`); a reference number in an aside after a sentence holding an authentication
  word (`（工单 XJGD-2025-3381）`) and command lines whose one-letter options take a key file, ports,
  a volume, an image, a namespace, a branch, a count and a directory stay.
- `campus_refs`: a research-computing team's texts — an Oracle thin-driver login's password, a
  secret key holding slashes; a thin-driver URL with no login (`jdbc:oracle:thin:@//…`) before a
  required-variable placeholder and references that name a secret by its path (a store's path
  after `--secret-id`, a key vault's secret URI, a cloud resource id) stay.
- `public_halves`: a video platform's payment, cloud and webhook texts — a cloud secret key after
  its key id, a payment key secret beside its key id; the documented public half of a pair alone (an
  access key id in a key listing and in a config array, a checkout's key id, a webhook delivery's
  body signature, a payment webhook's signature header, a DRM initialisation box after a Chinese
  label, an OAuth client id) stays.
- `ledger_labels`: values shown under a label, after its colon or on the next line — a secret whose
  label's bracketed aside names a secret or negates the id (`(API token, not its id)`, `（不是应用
  ID）`); ids whose label's aside names an identifier (`（资源 ID）`, `(object ID)`, `(app id)`) stay.
- `ledger_counts`: limits and windows beside secret words — digits assigned to a password and a
  token beside its window are redacted; a count with its unit, a size or an amount under a key that
  names a token or a secret (`token_refresh_window=45m`, `secret_ttl=72h`, `"$35.50"`) stays.
- `ledger_json`: tool results printed as JSON over several lines — a secret a command echoes, alone
  on the last line of a JSON string whose closing quote stands before a line break and the closing
  bracket; a commit id and a version printed in the same place stay.
- `course_links`: a tutoring studio's connection settings and ops tables — a password in a
  connection URL's login, a random value in a query of a URL with no login, values cut inside a
  boxed table row and continued under a hanging indent (`│   `); a URL whose login is a user name
  only (a password file beside it), a URL with no login and plain query fields after a form's `&`,
  a placeholder or a template in the password slot (a comment naming the placeholder on the next
  line) and a DSN holding only its public key as the URL's user stay.
- `tool_envelopes`: tool results written as JSON objects whose member's string carries a whole text
  (`"log"`, `"output"`, a nested result's `"text"`) — a value under its own label inside the
  string is judged by that label, not by the member's key; a member whose own key names a secret
  is judged by it; run ids inside strings whose envelope names a token audit or a password
  rotation stay.
- `rotation_tables`: Markdown tables whose column of values (`value`, `值`) holds a credential in a
  row that names only its service, whole or cut inside its cell (under a mail quote, after a fold
  mark, under an indent); versions, batch ids, a serial, a UUID, a port and a time zone in the same
  column stay.
- `install_banners`: install logs as docker compose prints them (`<service>  | ` before each
  record) — a generated password alone on its record after a record announcing it, an empty record
  between or none; a build id and a version announced the same way stay.
- `dairy_ops`: a secret given to a one-letter option with `=` (`-k=…`), in an XML element's CDATA
  section, in a query nested in a redirect's path (encoded twice), under an HMAC key named by its
  digest (`hmac-sha256-key`), as a keyed header inside a request call's object, on a labelled line
  after a sentence naming a reset password, quoted for a shell in a login before a host
  (`USER/'…'@host:port`); a path, a note, plain fields, a file's digest, a request id, a date and
  a file's name after a quoted path (`icons/'Logo'@2x.png`) stay.
- `ferry_ops`: a password in a logon string after its host and user (`host/user,password`), a login
  given to `-u` as `user,password`, an opaque refresh token after its field name (a short kind, a
  dot, a base64url body), a DES key's hex beside its check value or its form under a master key; a
  JDBC URL given to `-u`, users listed after `-u`, a logon string without its password, a release's
  kind and hex body, a build id beside a colour and a signature printed with an aside saying it is
  no key stay.
- `courier_ops`: the secret after the colon of a legacy error-reporting DSN and a token written as
  the user of a git remote's URL; an error-reporting DSN holding only its public key (`https://<32
  hex>@host/<project number>`) in a call, an environment line and an escaped JSON string, and an
  image's bytes after a `data:image/…;base64,` URI stay.
- `vault_ops`: a key's clear component or a clear PIN key in capitals beside a check value of 8 or
  10 hex digits, a random literal under a key naming an address (`ledgerUri = @"…"`); a lowercase
  digest beside a commit's short hash, an address and a file's name under keys naming a place stay.
- `clinic_refs`: a JSON Web Key's private member printed as a Python dict (single quotes); its
  public members printed that way, subresource integrity digests (`sha512-…`) whose key and value a
  wrap cut, and secret-store references after the `ref+` mark in a URL-encoded form stay; a secret
  after its English key and a short Chinese predicate (`AppSecret已重置，当前为…`, `SK改成了 …`) goes,
  a commit's hash after the same predicate stays; padded base64 as a query field's whole value goes,
  a path and unpadded base64 of JSON as query values stay.
- `water_ops`: hex or padded base64 of exactly the key a cipher named beside it takes
  (`row_dek = <64 hex>` over `cipher = AES-256-GCM`) goes, whatever its key is called; a command's
  positional argument after an option carrying its own value (`vault kv get -field=rtu_secret
  kv/…`, also URL-encoded), a nonce of another size beside the cipher and a file's digest beside no
  cipher stay.

Every secret is also redacted inside a cloud task's JSON tool result, ASCII-escaped or not."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.cloud.redaction import redact

FILES = (
    "slots",
    "sinks",
    "tool_output",
    "placements",
    "credential_shapes",
    "device_configs",
    "protocols",
    "handover",
    "fleet",
    "ward",
    "storefront",
    "live_ops",
    "grid_ops",
    "meter_ops",
    "ramp_ops",
    "campus_refs",
    "public_halves",
    "ledger_labels",
    "ledger_counts",
    "ledger_json",
    "course_links",
    "tool_envelopes",
    "rotation_tables",
    "install_banners",
    "dairy_ops",
    "ferry_ops",
    "courier_ops",
    "vault_ops",
    "clinic_refs",
    "water_ops",
)


def _cases(kind: str) -> list[Any]:
    out = []
    for name in FILES:
        data = json.loads((Path(__file__).parent / "data" / f"redaction_{name}.json").read_text(encoding="utf-8"))
        out.extend(pytest.param(case, id=f"{name}: {case['name']}") for case in data[kind])
    return out


@pytest.mark.parametrize("case", _cases("secrets"))
def test_a_secret_is_redacted_and_its_public_part_stays(case: dict[str, Any]) -> None:
    out = redact(case["text"])
    assert [piece for piece in case["pieces"] if piece in out] == []
    assert case["survives"] in out
    assert redact(out) == out


@pytest.mark.parametrize("ascii_only", [True, False], ids=["ascii-escaped", "utf-8"])
@pytest.mark.parametrize("case", _cases("secrets"))
def test_a_secret_is_redacted_inside_a_json_tool_result(case: dict[str, Any], ascii_only: bool) -> None:
    out = redact(json.dumps({"type": "tool_result", "content": case["text"]}, ensure_ascii=ascii_only))
    assert [piece for piece in case["pieces"] if json.dumps(piece, ensure_ascii=ascii_only)[1:-1] in out] == []


@pytest.mark.parametrize("case", _cases("lookalikes"))
def test_a_look_alike_comes_back_unchanged(case: dict[str, Any]) -> None:
    assert redact(case["text"]) == case["text"]


def test_the_judge_s_trainer_checks_every_case_file() -> None:
    """`scripts/train_secret_judge.py` picks its threshold and veto only among those under which
    these case files pass (`CASE_FILES`): a case file added here is one it must read too."""
    script = Path(__file__).parents[2] / "scripts" / "train_secret_judge.py"
    tree = ast.parse(script.read_text(encoding="utf-8"))
    listed = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "CASE_FILES" for t in node.targets)
    )
    assert listed == FILES
