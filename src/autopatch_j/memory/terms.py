"""Retrieval terms (M-62, M-64): normalization, and indexing an item revision's terms.

Metadata terms are the whole normalized title, aliases and keywords; they serve exact, prefix and
substring matches, the latter through `memory_term_grams` (every position's 3-character gram).
Content terms are bounded (≤ 256 per item, ≤ 160 chars), in text order: words of two or more
characters, and for CJK text every suffix of each CJK run cut to 16 characters — so a prefix
lookup over content terms finds a CJK query of up to 16 characters anywhere inside a run, without
a segmentation dictionary (docs/retrieval.md compares this with bigrams).

Word keys (issue 18, `words.py`): besides its whole metadata terms, an item stores the keys of its
title, aliases and keywords as metadata rows marked with a leading `#` (identifiers, words and their
English stems, CJK suffixes, zh/en equivalents) — no normalized query starts with `#`, so the exact,
prefix and substring stages never see them, and they get no grams. Its content rows gain the same
kinds of keys (stems, identifiers, equivalents first), still ≤ 256 in all.

Normalization is shared by terms and queries: NFKC, casefold, whitespace/punctuation folded into
one space, and no space next to a CJK character (so "使用 Python", "使用Python" and "回答，先给"
vs "回答先给" normalize alike).
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from collections.abc import Iterable, Iterator

MAX_TERM_CHARS = 160
MAX_CONTENT_TERMS = 256
MAX_QUERY_CHARS = 256
MAX_META_KEYS = 256
GRAM = 3
CJK_SUFFIX_CHARS = 16
KEY_MARK = "#"  # metadata word keys: never the first character of a normalized query

_SEPARATORS = re.compile(r"[\s\W_]+", re.UNICODE)
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(f"(?P<cjk>[{_CJK}]+)|(?P<word>[^\\W_{_CJK}]+)", re.UNICODE)
# A space next to a CJK character carries no meaning ("使用 Python" = "使用Python", "回答，先给" = "回答先给").
_CJK_SPACE = re.compile(f" (?=[{_CJK}])|(?<=[{_CJK}]) ")

_INSERT_TERM = "INSERT INTO memory_terms (item_id, source, term) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING id"
_INSERT_GRAM = "INSERT INTO memory_term_grams (gram, term_id, item_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
_DROP_TERMS = "DELETE FROM memory_terms WHERE item_id = ?"


def normalize(text: str) -> str:
    """NFKC, casefold, every run of whitespace/punctuation folded into one space, none beside CJK."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _CJK_SPACE.sub("", _SEPARATORS.sub(" ", folded).strip())


def prefix_end(q: str) -> str:
    """The smallest string greater than every string starting with `q` (exclusive upper bound).

    SQLite compares TEXT as UTF-8 bytes, whose order is code point order, so bumping the last
    code point works; surrogates cannot be encoded and are skipped.
    """
    for cut in range(len(q), 0, -1):
        code = ord(q[cut - 1]) + 1
        if 0xD800 <= code <= 0xDFFF:
            code = 0xE000
        if code <= 0x10FFFF:
            return q[: cut - 1] + chr(code)
    return "\U0010ffff" * (len(q) + 1)


def grams(term: str) -> list[str]:
    """The gram starting at every position (shorter at the end), without duplicates."""
    return list(dict.fromkeys(term[i : i + GRAM] for i in range(len(term))))


def metadata_terms(title: str, aliases: Iterable[str], keywords: Iterable[str]) -> list[str]:
    values = (normalize(value)[:MAX_TERM_CHARS].strip() for value in (title, *aliases, *keywords))
    return list(dict.fromkeys(value for value in values if value))


def content_terms(content: str) -> list[str]:
    return list(dict.fromkeys(_content_terms(normalize(content))))[:MAX_CONTENT_TERMS]


def meta_keys(title: str, aliases: Iterable[str], keywords: Iterable[str]) -> list[str]:
    """The word keys of the metadata, marked with `#` (see the module docstring); at most 256."""
    from autopatch_j.memory.words import keys

    found = (key for value in (title, *aliases, *keywords) for key in keys(value))
    marked = dict.fromkeys(KEY_MARK + key[: MAX_TERM_CHARS - 1] for key in found)
    return list(marked)[:MAX_META_KEYS]


def content_rows(content: str) -> list[str]:
    """The content rows of an item: its word keys (words.keys), at most 256."""
    from autopatch_j.memory.words import keys

    return keys(content)[:MAX_CONTENT_TERMS]


def _content_terms(text: str) -> Iterator[str]:
    """Words of two or more characters and the suffixes of CJK runs, in text order."""
    for match in _TOKEN.finditer(text):
        run = match.group("cjk")
        if run is None:
            if len(match.group()) >= 2:
                yield match.group()[:MAX_TERM_CHARS]
            continue
        for start in range(len(run) - 1):
            yield run[start : start + CJK_SUFFIX_CHARS]


def index_item_in_tx(
    conn: sqlite3.Connection,
    *,
    item_id: int,
    title: str,
    aliases: Iterable[str],
    keywords: Iterable[str],
    content: str,
) -> None:
    """Index one active revision: metadata terms with their grams, metadata word keys, content rows."""
    aliases, keywords = list(aliases), list(keywords)
    for term in metadata_terms(title, aliases, keywords):
        row = conn.execute(_INSERT_TERM, (item_id, "meta", term)).fetchone()
        if row is not None:
            conn.executemany(_INSERT_GRAM, ((gram, row[0], item_id) for gram in grams(term)))
    conn.executemany(
        "INSERT INTO memory_terms (item_id, source, term) VALUES (?, 'meta', ?) ON CONFLICT DO NOTHING",
        ((item_id, key) for key in meta_keys(title, aliases, keywords)),
    )
    conn.executemany(
        "INSERT INTO memory_terms (item_id, source, term) VALUES (?, 'content', ?) ON CONFLICT DO NOTHING",
        ((item_id, term) for term in content_rows(content)),
    )


def drop_item_terms_in_tx(conn: sqlite3.Connection, *, item_id: int) -> None:
    """Remove a revision from retrieval (it was revised, superseded or forgotten)."""
    conn.execute(_DROP_TERMS, (item_id,))


_ACTIVE_ITEMS = "SELECT id, title, aliases, keywords, content FROM memory_items WHERE status = 'active' ORDER BY id"


def reindex_in_tx(conn: sqlite3.Connection) -> int:
    """Rebuild every term row from the active revisions (terms are derived data); returns the items indexed.

    Used once by stores whose terms were written before word keys existed (`autopatch-j memory
    reindex`). Only `memory_terms` and its grams change: RAW turns, candidates, items and the schema
    (the exact catalog) stay as they are. The gram counts follow through the schema's triggers.
    """
    conn.execute("DELETE FROM memory_terms")
    rows = conn.execute(_ACTIVE_ITEMS).fetchall()
    for item_id, title, aliases, keywords, content in rows:
        aliases_list, keywords_list = json.loads(aliases), json.loads(keywords)
        index_item_in_tx(
            conn, item_id=item_id, title=title, aliases=aliases_list, keywords=keywords_list, content=content
        )
    return len(rows)
