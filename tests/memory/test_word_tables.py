"""The packaged word tables read by bisection (memory/text/sorted_table.py): each file is in key order,
and every lookup answers what parsing the whole file answers, for each key and for keys next to them."""

from __future__ import annotations

import pytest

from autopatch_j.memory.text import bilingual, frequencies
from autopatch_j.memory.text.sorted_table import SortedTable, sorted_table_error

TABLES = {
    "bilingual.txt (Chinese words)": bilingual.sections()[0],
    "bilingual.txt (@stems)": bilingual.sections()[1],
    "families.txt": bilingual.FAMILIES,
    "frequencies.txt": frequencies.TABLE,
}


@pytest.mark.parametrize("name", TABLES)
def test_a_table_read_by_bisection_is_in_key_order(name: str) -> None:
    assert sorted_table_error(TABLES[name]) is None


def test_the_bilingual_sections_split_the_file_at_its_first_stem_line() -> None:
    words, stems = bilingual.sections()
    assert all(not key.startswith("@") for key, _ in words.items())
    assert all(key.startswith("@") for key, _ in stems.items())
    whole = SortedTable("autopatch_j.memory.text", "bilingual.txt")
    assert len(list(whole.items())) == len(list(words.items())) + len(list(stems.items())) == 79_585


def _parsed(name: str) -> dict[str, str]:
    """The file parsed whole: key → the text after its first tab (`#` lines left out)."""
    from importlib import resources

    text = resources.files("autopatch_j.memory.text").joinpath(name).read_text(encoding="utf-8")
    return {key: value for key, _, value in (line.partition("\t") for line in text.splitlines()) if key[:1] != "#"}


def _neighbours(keys: list[str]) -> set[str]:
    """Keys that are not in the table but sort next to its keys (and a few that never can be)."""
    near = {key[:-1] for key in keys} | {key + "\x00" for key in keys[::7]} | {key + "z" for key in keys[::5]}
    return near | {"", "#", "@", "\t", "a\tb", "\n", "\udcff", "\uffff", "~", "龘龘龘龘"}


@pytest.mark.parametrize("name", ["bilingual.txt", "families.txt", "frequencies.txt"])
def test_every_lookup_answers_what_the_whole_file_answers(name: str) -> None:
    table = _parsed(name)
    keys = sorted(table)
    if name == "bilingual.txt":
        words = {key: value for key, value in table.items() if not key.startswith("@")}
        stems = {key[1:]: value for key, value in table.items() if key.startswith("@")}
        for key in [*keys, *_neighbours(keys)]:
            assert bilingual.english_of(key) == (tuple(words[key].split(" ")) if key in words else ()), key
            assert bilingual.chinese_of(key) == (tuple(stems[key].split(" ")) if key in stems else ()), key
    elif name == "families.txt":
        for key in [*keys, *_neighbours(keys)]:
            assert bilingual.forms_of(key) == (tuple(table[key].split(" ")) if key in table else ()), key
    else:
        for key in [*keys, *_neighbours(keys)]:
            assert frequencies.zipf(key) == (int(table[key]) if key in table else None), key
