"""A question naming one member of a family of variants (rev D, v3, 三期, P2) is not answered by a memory
that names only other members of that family (`memory/text/variants.py`): the family is read by the
shape of the words — a head word and a short label — not from a list. A memory naming the question's
member, none of the family, or limiting something to a member ("only on rev C") still answers — the
same hits through `memory search` (CLI subprocess) and MCP `memory_search`, in English and Chinese."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_search_titles, store_decisions

DECISIONS = (
    ("Rev B board: UART console at 115200", "On the rev B controller board the UART console runs at 115200 baud."),
    ("v2 接口分页用 cursor", "v2 版本的接口分页统一用 cursor，不用 offset。"),
    ("二期工程数据库用 PostgreSQL", "二期工程的数据库统一用 PostgreSQL 15。"),
    ("P1 incidents page the on-call in 15 minutes", "A P1 incident pages the on-call engineer within 15 minutes."),
    ("Secure boot only on rev C", "Secure boot is enabled only on rev C controller boards."),
)

QUESTIONS = {
    # the question's own member, or no member of the family: found
    "what baud rate does the rev B console use": ["Rev B board: UART console at 115200"],
    "what baud rate does the console use": ["Rev B board: UART console at 115200"],
    "v2 接口怎么分页": ["v2 接口分页用 cursor"],
    "二期工程用什么数据库": ["二期工程数据库用 PostgreSQL"],
    "how fast is the on-call paged for a P1 incident": ["P1 incidents page the on-call in 15 minutes"],
    # a memory limiting something to one member speaks to the others
    "is secure boot enabled on rev B controller boards": [
        "Secure boot only on rev C",
        "Rev B board: UART console at 115200",
    ],
    # another member of the family only: not an answer
    "what baud rate does the rev D console use": [],
    "v3 接口怎么分页": [],
    "三期工程用什么数据库": [],
    "how fast is the on-call paged for a P2 incident": [],
}


def test_a_memory_of_another_variant_does_not_answer(project: Path) -> None:
    store_decisions(project, *DECISIONS)
    assert_search_titles(project, QUESTIONS)
