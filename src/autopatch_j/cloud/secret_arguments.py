"""Where a value stands among a command's arguments or a configuration's lines, read for the secret
judge (`secret_judge`) without a key's word:

* `after_option_value`: the value is a positional argument after an option that carries its own
  value (`vault kv get -field=db_password secret/ledger/prod`): the option's value names a field,
  it is no key of the argument after it, which names where a secret lives.
* `cipher_key`: the value's bytes, as hex or padded base64, are exactly the key a cipher named beside
  it takes (`key = <64 hex>` a line above or below `alg = AES-256-GCM`): a field-encryption key in
  a configuration, whatever its key is called.
* `after_account`: the value ends a `label : value` line right under a line of the same block whose
  value is an account (`login   : admin@site-02` over `initial : <value>`, an installer's output):
  the account's password, whatever its label says.
"""

from __future__ import annotations

import re

# an option with its own value (`-field=db_password`, `--mount=kv`), then blanks, right before a value
_OPTION_WITH_VALUE = re.compile(r"(?:^|(?<=[\s\"'\[,]))--?[A-Za-z][\w-]{0,30}+=[^\s=\"',]{1,64}+[ \t]++\Z")
OPTION_REACH = 100

# a block cipher's name with its key's bits and a mode (`AES-256-GCM`, `aes_128_cbc`, `SM4-128-CTR`)
_CIPHER = re.compile(
    r"(?i)(?<![a-z0-9])[a-z][a-z0-9]{1,9}+[-_ ]?(?P<bits>128|192|256)[-_/ ]?"
    r"(?:gcm|cbc|ctr|ccm|ecb|ofb|cfb|siv|xts|ocb)(?![a-z])"
)
CIPHER_REACH = 160
_HEX = re.compile(r"[0-9A-Fa-f]++")
_BASE64 = re.compile(r"[A-Za-z0-9+/]++={0,2}")
# a key's length in characters for its bits: as hex, and as padded base64
_HEX_LENGTHS = {bits // 4: bits for bits in (128, 192, 256)}
_BASE64_LENGTHS = {4 * -(-(bits // 8) // 3): bits for bits in (128, 192, 256)}


def after_option_value(view: str, start: int) -> bool:
    """`view[start:]` is a positional argument after an option that carries its own value and a
    blank (`-field=db_password <value>`): the option's value is no key of it. Reads at most
    `OPTION_REACH` characters back."""
    if view[start - 1 : start] not in (" ", "\t"):
        return False
    return _OPTION_WITH_VALUE.search(view, max(0, start - OPTION_REACH), start) is not None


def _bits(value: str) -> int | None:
    """The bits of the key `value` would be: as hex, or as base64 with its padding."""
    if _HEX.fullmatch(value) is not None:
        return _HEX_LENGTHS.get(len(value))
    if value.endswith("=") and _BASE64.fullmatch(value) is not None:
        return _BASE64_LENGTHS.get(len(value))
    return None


def cipher_key(view: str, start: int, end: int) -> bool:
    """`view[start:end]` is hex or padded base64 of exactly the key a cipher named within
    `CIPHER_REACH` characters before or after it takes (`AES-256-GCM` beside 64 hex digits or 44
    base64 characters)."""
    bits = _bits(view[start:end])
    if bits is None:
        return False
    for found in _CIPHER.finditer(view, max(0, start - CIPHER_REACH), min(len(view), end + CIPHER_REACH)):
        if int(found.group("bits")) == bits:
            return True
    return False


# a line of a block: its indent, a label of words, blanks, a colon, blanks (`    initial : `)
_LABEL_LINE = re.compile(r"(?P<indent>[ \t]*+)[A-Za-z][\w .-]{0,30}+[ \t]*+[:：][ \t]*+")
# … whose value is an account, a name at a host (`    login   : admin@site-02`)
_ACCOUNT_LINE = re.compile(
    r"(?P<indent>[ \t]*+)[A-Za-z][\w .-]{0,30}+[ \t]*+[:：][ \t]*+[\w.+-]{1,64}+@[\w.-]{1,128}+[ \t]*+"
)
ACCOUNT_REACH = 200


def after_account(view: str, start: int) -> bool:
    """The value at `start` follows a label and its colon at the start of its line, and the line
    before, as indented, holds a label and an account (`name@host`) only. Reads at most
    `ACCOUNT_REACH` characters of each line."""
    line_start = view.rfind("\n", max(0, start - ACCOUNT_REACH), start) + 1
    if line_start == 0:
        return False
    label = _LABEL_LINE.fullmatch(view, line_start, start)
    if label is None:
        return False
    previous_start = view.rfind("\n", max(0, line_start - 1 - ACCOUNT_REACH), line_start - 1) + 1
    account = _ACCOUNT_LINE.fullmatch(view, previous_start, line_start - 1)
    return account is not None and account.group("indent") == label.group("indent")
