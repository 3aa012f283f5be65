"""Candidate secret values for the judge (`secret_judge.py`), and how far back each one's context
reaches (C-24).

Candidates (`candidates`) are runs of token characters (6–1,024 long, holding a digit or a capital) in
the decoded view the grammar reads; the context of one reaches back at most `CONTEXT` characters, a run
of blanks counting as one (a table's column gap, the padding a wrapped row carries over its cut: the key
columns away is read, up to `GAP_MAX` blanks more), and never past `[REDACTED]`, a blank line or a
previous candidate other than a key's name (`DB_PASSWORD=`, `SSHPASS=` before a quote, an option before
its argument: `"--vault-unseal-1", "…"`, a one-letter option: `-A <hex>`), so redacting a second time
sees the same context and changes nothing. A compound name called with a literal
(`ConvertTo-SecureString '…'`) is no candidate and keeps the context open.
Three more kinds are no run of token characters: a quoted literal on one line that holds a
character no run holds (`-p 'wq]t(We…'`), and a Markdown table's cell under a column of values
that does (`| z#Cx…tpDx9m |`), each read whole beside its runs, and a code of lowercase
letter groups (`hjwf-tonh-qanh-zehp`, an app password; `gqdgycsu-oyjxdr-cmdlpgn-unmhu`, a generated
passphrase). Linear: each run, literal and group is matched once, by bounded or possessive patterns.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from autopatch_j.cloud.secret_key_words import key_lexicon, key_words_of, values_column
from autopatch_j.cloud.secret_sinks import APP_ID_ARGUMENT
from autopatch_j.cloud.secret_value_shape import SCREAMING

__all__ = ["CONTEXT", "MAX_LENGTH", "MIN_LENGTH", "Candidate", "candidates"]

CONTEXT = 48
GAP_MAX = 96  # the blanks of column gaps a context may reach over beyond `CONTEXT` characters
MIN_LENGTH = 6
MAX_LENGTH = 1024  # a service account token carries a JSON document: 600 characters and more

_TOKEN = "A-Za-z0-9+/_\\-.~!@#$%^*?"
# a run of token characters that starts where no such run goes on (one attempt per run) and holds a
# digit or a capital; its tail is possessive, so each run is read once. `=` ends it as padding only
# where no token character follows — `[REDACTED]` stands for the token characters it replaced, so
# `4U~we=[REDACTED]` reads as `4U~we=1agY…` did (redacting twice changes nothing)
_CANDIDATE = re.compile(
    rf"(?<![{_TOKEN}])[a-z+/_\-.~!@#$%^*?]*+[0-9A-Z][{_TOKEN}]*+(?:={{1,2}}+(?![{_TOKEN}=]|\[REDACTED\]))?"
)
# a short scheme word between a key and its value (`Authorization: Bearer <token>`, `KEY: Scheme1 <token>`):
# the value is read under the key
_SCHEME = re.compile(r"(?<=[=:：\s\"'])[A-Za-z][A-Za-z0-9]{2,9} \Z")
_REDACTED_MARK = "REDACTED"

# a short option glued to its value (`-pS3cret`, `"-uroot"`): the value is judged on its own too
_GLUED_FLAG = re.compile(r"-[A-Za-z](?=[^-])")
_CAPITAL_OR_DIGIT = re.compile(r"[0-9A-Z]")
# a one-letter option (`-A`, `-T`): it names the value after it, as a key does
_SHORT_OPTION = re.compile(r"-[A-Za-z]")
# an XML element's start tag closing after its name, maybe opening a CDATA section (`<robotPwd>`,
# `<robotPwd><![CDATA[`): the name is the key of the element's text
_ELEMENT_TEXT = re.compile(r">(?:<!\[CDATA\[)?")
_CDATA_OPEN = re.compile(r"<!\[CDATA\[")


@dataclass(frozen=True)
class Candidate:
    """A span of the view (`start`, `end`) that may hold a secret, with the view it is read in."""

    start: int
    end: int
    context_start: int


def candidates(view: str) -> Iterator[Candidate]:
    """Every candidate value of `view`, in order (see the module docstring)."""
    floor = 0
    passed = 0  # the end of the last extra candidate: a context after it stops there
    extras = _extra_spans(view)
    waiting = next(extras, None)
    for match in _CANDIDATE.finditer(view):
        start, end = match.span()
        while waiting is not None and waiting[0] <= start:
            yield _extra(view, waiting, max(floor, passed if passed <= waiting[0] else 0))
            passed = max(passed, waiting[1])
            waiting = next(extras, None)
        if start >= passed:
            floor = max(floor, passed)
        value = match.group()
        if _CALLEE.fullmatch(value) and _CALL_OPEN.match(view, end):
            continue  # a command or function called with the literal after it (`ConvertTo-SecureString '…'`)
        if end - start < MIN_LENGTH or end - start > MAX_LENGTH or value == _REDACTED_MARK:
            if value == _REDACTED_MARK or not (
                _SCHEME.match(view, start, end + 1)
                or _names_a_key(view, end, value)
                or _SHORT_OPTION.fullmatch(value)
                or _CDATA_OPEN.fullmatch(view, max(0, start - 3), end + 1)
            ):
                floor = end  # a short key's name (`Pwd=`), a scheme word or an option (`-A`) keeps the context open
            continue
        context_start = _context_start(view, floor, start)
        yield Candidate(start, end, context_start)
        if end - start - 2 >= MIN_LENGTH and _GLUED_FLAG.match(value) and _CAPITAL_OR_DIGIT.search(value, 2):
            yield Candidate(start + 2, end, context_start)
        if not _names_a_key(view, end, value) and not _app_id_before_literal(view, start, end):
            floor = end
    while waiting is not None:
        yield _extra(view, waiting, max(floor, passed if passed <= waiting[0] else 0))
        passed = max(passed, waiting[1])
        waiting = next(extras, None)


def _extra(view: str, span: tuple[int, int], floor: int) -> Candidate:
    return Candidate(span[0], span[1], _context_start(view, floor, span[0]))


def _context_start(view: str, floor: int, start: int) -> int:
    context_start = _reach(view, max(floor, start - CONTEXT - GAP_MAX), start)
    paragraph = view.rfind("\n\n", context_start, start)
    if paragraph != -1:  # a blank line ends the context: a new paragraph's value is no label's
        context_start = paragraph + 2
    return context_start


def _reach(view: str, floor: int, start: int) -> int:
    """Where a context of `CONTEXT` characters before `start` begins when a run of blanks counts as
    one character (a table's column gap, the padding a wrapped row carries over its cut), not
    before `floor`."""
    at, counted = start, 0
    while at > floor and counted < CONTEXT:
        at -= 1
        if view[at] not in " \t" or at + 1 >= start or view[at + 1] not in " \t":
            counted += 1
    return at


# a quoted literal on one line that holds a character no run of token characters holds (`'wq]t(We…'`,
# `',&HEY@Zz…'`): the runs inside it are pieces, the literal is read whole as well. It opens where no
# word, quote or `]` stands before the quote and closes where none (nor `[`) follows — a
# `[REDACTED]` mark stands for token characters, so a second pass reads the quotes as the first
# did; `"false">pk…</string>"` is markup between two attributes, not a literal — and holds no `<`,
# `>` or `=` (a query or an assignment, which the rules read)
_ODD_LITERAL = re.compile(r"(?<![\w\"'`\\\]])([\"'])([^\s\"'`\\<>=]{6,128}+)\1(?![\w\"'`\[])")
_ODD = re.compile(rf"[^{_TOKEN}]")
# a code of lowercase letter groups (`hjwf-tonh-qanh-zehp`, `ldzv obeb dbkf tfvn`: an app password, a
# recovery code; `gqdgycsu-oyjxdr-cmdlpgn-unmhu`: a generated passphrase): lowercase letters only, so
# no run of token characters holds a capital or digit. Groups of four apart by a dash or a space, or
# four to nine letters apart by dashes (prose has spaces between its words, not dashes)
_GROUPED = re.compile(
    r"(?<![A-Za-z0-9_-])(?:[a-z]{4}(?P<sep>[- ])[a-z]{4}(?:(?P=sep)[a-z]{4}){2,4}"
    r"|[a-z]{4,9}+(?:-[a-z]{4,9}+){3,5}+)(?![A-Za-z0-9_-])"
)


# a Markdown table's cell with no blank inside (`| z#Cx…tpDx9m |`): read whole, like an odd quoted
# literal, when it stands in a column of values (`secret_key_words.values_column`)
_ODD_CELL = re.compile(r"(?<=\|[ \t])([^\s|]{6,128}+)(?=[ \t]++\|)")


def _extra_spans(view: str) -> Iterator[tuple[int, int]]:
    """Candidates that are no run of token characters, in order: odd quoted literals and odd cells of
    a table's column of values with a digit or a capital and no `[REDACTED]` mark, and codes of
    four-letter groups."""
    found: list[tuple[int, int]] = []
    if "'" in view or '"' in view:
        for match in _ODD_LITERAL.finditer(view):
            body = match.group(2)
            if _ODD.search(body) and _CAPITAL_OR_DIGIT.search(body) and _REDACTED_MARK not in body:
                found.append(match.span(2))
    if "|" in view:
        for match in _ODD_CELL.finditer(view):
            body = match.group(1)
            if (
                _ODD.search(body)
                and _CAPITAL_OR_DIGIT.search(body)
                and _REDACTED_MARK not in body
                and values_column(view, match.start(1)) is not None
            ):
                found.append(match.span(1))
    if "-" in view or " " in view:
        found += [match.span() for match in _GROUPED.finditer(view)]
    return iter(sorted(found))


# a name of a command or function, compound (`ConvertTo-SecureString`, `base64.b64decode`,
# `New-Object`, `TLSSigAPIv2` with its version's digits), and the literal or argument list it is
# called with: a call, not a value
_CALLEE = re.compile(r"[A-Za-z][a-z]*+(?:[A-Z]|[-._][A-Za-z])[A-Za-z_.-]*+[0-9]{0,2}+")
_CALL_OPEN = re.compile(r"\(|[ \t]{1,2}[\"']")


_FLAG = re.compile(r"--?[A-Za-z][\w-]{1,40}")
_FLAG_VALUE = re.compile(r"[\"']?(?:[ \t]{1,2}|[ \t]?,[ \t]?)[\"']?(?![-\s])")


_KEY_END = re.compile(r"[\"']?[ \t]{0,2}(?:[=:：＝]|是|为|->|=>)")


# a name glued to `=` before an opening quote (`SSHPASS='…'`, `WIFI_PSK="…"`): the `=` assigns, it
# is no base64 padding (a padded value is closed by its quote, not opened by one)
_ASSIGNING_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}=")
_OPENING = frozenset("\"'`")


def _app_id_before_literal(view: str, start: int, end: int) -> bool:
    """A candidate that is a call's first argument of digits with a quoted literal after it
    (`APP_ID_ARGUMENT`): the context of the literal reaches back over it to the call's name, as over
    a key's name."""
    paren = view.rfind("(", max(0, start - 4), start)
    found = APP_ID_ARGUMENT.match(view, paren) if paren >= 0 else None
    return found is not None and found.span("digits") == (start, end)


# a name of letters whose last word names a secret, before a quote after a space (Gradle's
# `storePassword "…"`), before an opening bracket (`Master Secret「…」`, `SK（…）`) or before a
# short Chinese predicate that ends at the value (`SK改成了 …`, `SecretKey已重置，当前为…`: Chinese
# characters and a clause's comma only, then at most a blank)
_LABEL_NAME = re.compile(r"[A-Za-z][A-Za-z_-]{0,40}")
_LABEL_OPEN = re.compile(
    r"[ \t]{1,2}[\"'`]|[ \t]{0,2}[「『（【“]|[\u3400-\u9fff][\u3400-\u9fff，]{0,11}+[ \t]?(?=[0-9A-Za-z])"
)


def _names_a_key(view: str, end: int, value: str) -> bool:
    """A candidate that names what follows (`DB_PASSWORD=`, `"DD_API_KEY":`, an environment
    variable's name, `SSHPASS=` before a quoted value, `storePassword "…"`, `Secret「…」`, `SK改成了 …`,
    an XML element's name in its start tag): the context of the next candidate reaches back over it."""
    if SCREAMING.fullmatch(value) is not None or _KEY_END.match(view, end) is not None:
        return True
    if view[end - len(value) - 1 : end - len(value)] == "<" and _ELEMENT_TEXT.match(view, end) is not None:
        return True  # `<robotPwd><![CDATA[…`: an element's name names its text
    if _FLAG.fullmatch(value) is not None and _FLAG_VALUE.match(view, end) is not None:
        return True  # `--vault-unseal-1 …`, `"--api-key", "…"`: an option names the argument after it
    if _LABEL_NAME.fullmatch(value) is not None and _LABEL_OPEN.match(view, end) is not None:
        words = key_words_of(value)
        return bool(words) and words[-1] in key_lexicon().secret_en
    start = end - len(value)
    return (
        _ASSIGNING_NAME.fullmatch(value) is not None
        and view[end : end + 1] in _OPENING
        and (start == 0 or view[start - 1] not in _OPENING)
    )
