"""The shape of one line: whether it looks like pasted material on its own, and which material.

`line_shape(text)` reads one line outside a fence and names its shape — `indented`, `diff`, `frame`,
`shell`, `table`, `output` (a metrics sample among them), `quote`, `log`, `location`, `data`, `code`
— with whether the shape is strong enough to stand alone ("" when the line reads as prose). A weak
shape counts as material only next to other material; `structure.parse` decides that, and the
blocks of lines no single line gives away are `blocks.py`'s. Shapes only — never a list of messages.
"""

from __future__ import annotations

import re
import unicodedata

from autopatch_j.memory.blocks import LIST_ITEM

FENCE = re.compile(r"^ {0,3}(```|~~~)")
_INDENTED = re.compile(r"^(?: {4,}|\t)\S")
_DIFF = re.compile(
    r"^(?:@@ .* @@|diff --git |index [0-9a-f]{6,}\.\.[0-9a-f]{6,}|--- (?:a/|/dev/null)|\+\+\+ (?:b/|/dev/null))"
)
DIFF_BODY = re.compile(r"^[+-](?![+-]{2})\S?")
_FRAME = re.compile(
    r"^\s*(?:File \".+\", line \d+|at [\w$.<>/\\:@ -]+\(.*\)|at [\w$./\\<>-]+:\d+|#\d+ \S|\d+: 0x[0-9a-f]+"
    r"|goroutine \d+ \[|\.\.\. \d+ more|Caused by: |Traceback \(|\^+\s*$|~*\^~*\s*$)"
)
_LOCATION = re.compile(r"(?:^|\s|\()[\w./\\@~-]+\.[A-Za-z]{1,8}:\d+(?::\d+)?\)?")
_EXCEPTION = re.compile(
    r"^\s*(?:[\w$]+\.)+[\w$]+(?::|$)|^\s*[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+(?:\[\w+\])?:\s|^\s*(?:[A-Z]\w* )?[A-Z]\w*:\s"
)
_DOTTED_EXCEPTION = re.compile(r"^\s*(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*:\s")
_BRACKET_TAG = re.compile(r"^\s*\[[\w .:/@-]{2,40}\]\s*\S")
_PATH_START = re.compile(r"^\s*(?:\.{0,2}/)?[\w@.-]+(?:/[\w@.-]+)+\S*(?:\s|$)")
COLON_END = re.compile(r"[:：]\s*$")
_NUMBERED_OUTPUT = re.compile(r"^\s*\d+(?:[.:]\d+)?\s{2,}\S")
_TIMESTAMP = re.compile(
    r"^\s*\[?(?:\d{4}[-/]\d{2}[-/]\d{2}[T ]?\d{0,2}:?\d{0,2}|(?:\d{2}[-/]\d{2} )?\d{2}:\d{2}:\d{2}|\d{1,2}/\w{3}/\d{4}"
    r"|\w{3} \w{3} +\d+ \d{2}:\d{2}|\w{3} \d{1,2} \d{2}:\d{2}:\d{2})"
)
_LEVEL = re.compile(
    r"(?:^|[\s\[(|])(?:DEBUG|INFO|NOTICE|WARN(?:ING)?|ERROR|ERR|FATAL|CRITICAL|TRACE|PANIC)(?:[\s\]):|]|$)"
)
# Process and thread ids, then a one-letter level (Android logcat's `threadtime` lines).
_PID_LEVEL = re.compile(r"\s\d+\s+\d+\s+[VDIWEFA]\s")
_LEVEL_LOWER = re.compile(r"\[(?:debug|info|notice|warn|warning|error|crit|alert|emerg)\]")
_OUTPUT_TAG = re.compile(
    r"^\s*(?:(?:error|warning|note|help)(?:\[[\w-]+\])?:|E\s{2,}|FAIL(?:ED)?\b|PASS(?:ED)?\b|ok\s+[\w./-]+\s+(?:\d+\.\d+s|\(cached\))|"
    r"[✓✔✗✘✖×⚠●▶►]\s|-->\s|\|\s*\^|\d+\s*\|\s|npm (?:ERR!|WARN)|make(?:\[\d+\])?: \*\*\*|={3,}|-{3,}|\*{3,}|#{2,}\s*\[)"
)
# A banner: capitals between two runs of one symbol (`** ARCHIVE FAILED **`, `== LINT ABORTED ==`).
_BANNER = re.compile(r"^\s*([*=#~+-])\1+\s+[A-Z][A-Z0-9 _/().:-]*[A-Z0-9)]\s+\1\1+\s*$")
# A progress counter opening a line (`[ 64%] Generating …`, `[37/212] Compiling …`).
_PROGRESS = re.compile(r"^\s*\[\s*(?:\d{1,3}%|\d+/\d+)\]\s")
# A shell or REPL prompt before its command: `$ `, `>>> `, `user@host:~$ `, a debugger's `J-Link>regs`.
_SHELL = re.compile(
    r"^\s*(?:(?:\$|%|>>>|PS [A-Z]:\\[^>]*>|[\w.-]+@[\w.-]+:[^$#]*[$#]|\(\w[\w-]*\)\s*\$|➜ )\s"
    r"|[A-Za-z][\w-]{1,15}>(?=[a-z]))"
)
_QUOTE = re.compile(r"^\s*>(?:\s|$)")
# A metrics exposition sample: a metric name, its labels in braces, a value (`up{job="api"} 1`).
_METRIC_SAMPLE = re.compile(
    r"^\s*[A-Za-z_:][\w:]*\{\w+=\"[^\"]*\"(?:,\s*\w+=\"[^\"]*\")*,?\}\s+[-+]?[\d.]+(?:[eE][-+]?\d+)?(?:\s+\d+)?\s*$"
)
#: Quotation marks, each opener with its closer.
QUOTATION_MARKS = {'"': '"', "“": "”", "「": "」", "『": "』", "«": "»"}
_DATA_OPEN = re.compile(r"^\s*(?:[\[{]\s*$|[\[{]\s*[\"'\w]|[}\]],?\s*$|<\??[\w:-]+[\s>/])")
_KEY_VALUE = re.compile(r"""^\s*(?:-\s+)?["']?[\w.-]+["']?\s*(?::\s*(?:\S.*)?|=\s*\S.*)$""")
_TOML_TABLE = re.compile(r"^\s*\[\[?[\w.\"-]+\]\]?\s*$")
_CODE_END = re.compile(r"(?:[;{}(\[]|\)\s*\{?|=>|->|:=)\s*$")
_CODE_START = re.compile(r"^\s*(?:[@#]\w+|//|/\*|\*/|<!--|--\s|[\w.]+\(.*\)\s*;?\s*$)")
_CONSTRAINT = re.compile(r"[\w.-]+(?:[<>]=?|[=!~]=)\d|(?:^|\s)[<>]=?\d[\w.]*,")
_COLUMN_GAP = re.compile(r"\S\s{2,}(?=\S)")
# A Markdown table's row: cells between pipes, the line opening and closing with one (`| a | b |`).
_PIPE_ROW = re.compile(r"^\s*\|(?:[^|\n]*\|){2,}\s*$")
# A `key=value` field of a logfmt line or a record dump (`order=88 amount=100.10 refunded=[…]`).
_FIELD = re.compile(r"(?:^|\s)[A-Za-z_][\w.-]*=(?!=)\S")
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN_WORD = re.compile(r"[A-Za-z]+")
CJK_CHARS_PER_WORD = 1.5  # Chinese characters to one Latin word, when weighing which script a text is in
_WORD = re.compile(r"[A-Za-z]{2,}")
# A word as prose writes it: letters, lowercase after the first, trailing punctuation allowed.
_PLAIN_WORD = re.compile(r"^\(?[A-Za-z][a-z]*[,.;:!?)]*$")
#: Prose words a value or list item needs, at least this many and this share of its tokens, to read as words.
PROSE_WORDS = 4
PROSE_SHARE = 0.6

#: The share of symbols that makes a Latin line under strong material part of it, however many words it has.
DENSE_SHARE = 0.1
#: A prose line of at most this many words right before a paste only introduces or reports it.
REPORT_UNITS = 8


def symbol_share(s: str) -> float:
    body = s.strip()
    if not body:
        return 0.0
    symbols = sum(1 for ch in body if not ch.isalnum() and not ch.isspace() and not CJK.match(ch))
    return symbols / len(body)


def line_shape(text: str) -> tuple[str, bool]:
    """The shape of one line outside a fence and whether it is strong on its own ("" when prose)."""
    if not text.strip():
        return "", False
    if _INDENTED.match(text) and not re.match(r"^\s*(?:[-*•]|\d+[.)])\s", text):
        return "indented", True
    if _DIFF.match(text):
        return "diff", True
    if _FRAME.match(text):
        return "frame", True
    if _SHELL.match(text):
        return "shell", True
    if _PIPE_ROW.match(text):
        return "table", True  # a Markdown table's row, in any script
    if _BANNER.match(text) or _PROGRESS.match(text) or _METRIC_SAMPLE.match(text):
        return "output", True
    if _QUOTE.match(text):
        return "quote", False  # "> the proposal — yes, that one" is an assent; only next to material is it pasted
    cjk = bool(CJK.search(text))
    if _TIMESTAMP.match(text) and (
        _LEVEL.search(text) or _LEVEL_LOWER.search(text) or _PID_LEVEL.search(text) or symbol_share(text) > 0.08
    ):
        return "log", True
    if (_LEVEL.search(text[:40]) or _LEVEL_LOWER.search(text)) and not cjk and symbol_share(text) > 0.05:
        return "log", False
    if _OUTPUT_TAG.match(text) or _OUTPUT_TAG.match(_after_mark(text)):
        return "output", not cjk
    fields = len(_FIELD.findall(text)) if not cjk else 0
    if fields >= 2:  # logfmt or a record's fields: three or more stand alone
        return "log", fields >= 3
    if _LOCATION.search(text) and (symbol_share(text) > 0.1 or text.lstrip().startswith(("/", "./", "src", "at "))):
        return "location", not cjk
    if _DOTTED_EXCEPTION.match(text):
        return "frame", True
    if (_BRACKET_TAG.match(text) or _PATH_START.match(text)) and not cjk:
        return "log", False
    if _EXCEPTION.match(text) and not cjk:
        return "frame", False
    if _NUMBERED_OUTPUT.match(text) and not cjk:
        return "output", False
    if not cjk and (_table_row(text) or _CONSTRAINT.search(text)):
        return "output", False  # columns of a command's table; version constraints of a resolver's output
    if _TOML_TABLE.match(text) or _DATA_OPEN.match(text):
        return "data", False
    if _KEY_VALUE.match(text) and not cjk and _config_key(text):
        return "data", False
    if (
        not cjk
        and (_CODE_END.search(text) or _CODE_START.match(text))
        and symbol_share(text) > 0.08
        and not (LIST_ITEM.match(text) and reads_as_words(text[item_marker(text) :]))
    ):
        return "code", False
    if not cjk and len(text.strip()) >= 12 and symbol_share(text) > 0.3:
        return "code", False
    return "", False


def _after_mark(text: str) -> str:
    """The rest of a line opening with a pictograph or another symbol and a space (`❌  error: …`),
    "" for any other line: a status mark of a tool's output when an output tag follows it."""
    body = text.lstrip()
    mark = 0
    while mark < len(body) and unicodedata.category(body[mark]) in ("So", "Sk", "Mn", "Cf"):
        mark += 1
    return body[mark:].lstrip() if mark and body[mark : mark + 1].isspace() else ""


def _table_row(line: str) -> bool:
    """A row of columns (`kubectl get`, `docker ps`): at least three cells set apart by runs of two or
    more spaces, every cell but the last at most three words."""
    if len(_COLUMN_GAP.findall(line.strip())) < 2:
        return False
    cells = re.split(r"\s{2,}", line.strip())
    return all(len(cell.split()) <= 3 for cell in cells[:-1])


def _config_key(line: str) -> bool:
    """`key: value` / `key = value` the way configs write it: a lowercase or quoted key, or a value
    that is one token ("- Cause: stale cache" is a bullet of prose, "image: postgres:15" is YAML)."""
    key, _, value = line.strip().removeprefix("- ").partition("=" if "=" in line.split(":")[0] else ":")
    key, value = key.strip(), value.strip()
    if not key or " " in key or reads_as_words(value):
        return False
    return key[0] in "\"'" or key[0].islower() or not value or " " not in value


def reads_as_words(text: str) -> bool:
    """Most of `text`'s tokens are words as prose writes them, and at least `PROSE_WORDS` of them."""
    tokens = text.split()
    plain = sum(1 for token in tokens if _PLAIN_WORD.match(token))
    return plain >= PROSE_WORDS and plain >= PROSE_SHARE * len(tokens)


def units(line: str) -> float:
    """The length of a line in words: Latin words and numbers, and two CJK characters per word."""
    return len(re.findall(r"[A-Za-z0-9]+", line)) + len(CJK.findall(line)) / 2


def pastable(line: str) -> bool:
    return not CJK.search(line) and len(_WORD.findall(line)) <= 12 and symbol_share(line) > 0.02


def dense(line: str) -> bool:
    """A Latin line as dense with symbols as a path or a tool's message (`| install: cannot stat '/…'`)."""
    return not CJK.search(line) and symbol_share(line) > DENSE_SHARE


def item_marker(text: str) -> int:
    """The length of the list marker opening `text` ("- ", "2. ", "（3）"), 0 without one."""
    match = LIST_ITEM.match(text)
    return match.end() if match else 0
