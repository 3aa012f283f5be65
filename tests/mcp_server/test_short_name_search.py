"""A question that names a component by its long name finds the memory that names it by the
project's short name, when the short name is an identifier's part the store holds and spells the
long name's initials ("motor controller" → `mc` of `mc-fw`, "battery management system" → `bms` of
`bms-fw`) or a compound word's halves (firmware → firm + ware → `fw`, also as a Chinese word's
gloss: 固件 → firmware → `fw`) — the same hits through `memory search` (CLI subprocess) and MCP
`memory_search`. The short name holds the long name once (its last word), so a question about
something never decided stays empty even though its long name spells a short name the store holds."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_search_titles, store_decisions

QUESTIONS = {
    # battery management system → bms (bms-fw)
    "how often does the battery management system poll the AFE": ["bms-fw polls the AFE every 20 ms"],
    # motor controller firmware → mc + fw (compound: firm + ware)
    "which optimisation level for the motor controller firmware": ["mc-fw release opt-level s"],
    # 固件 glosses firmware → fw (bms-fw)
    "固件的 AFE 多久读一次": ["bms-fw polls the AFE every 20 ms"],
    # the long name holds, the rest of the question does not: nothing
    "固件的 CAN 波特率是多少": [],
    "what CAN bitrate does the motor controller use": [],
    # a known false hit: the associations fitted on d34–d36 hold watchdog → 超时 (0.667), so two of the
    # question's words meet the HTTP timeout rule (it finds nothing with round 31's associations.txt)
    "which watchdog timeout does the battery management system use": ["接口超时 10 秒"],
    "does the management system log in ms": [],
}


def test_a_long_name_finds_the_memory_that_uses_the_short_one(project: Path) -> None:
    store_decisions(
        project,
        ("mc-fw main stack 6 KiB", "The main task of mc-fw gets a 6 KiB stack; measured peak is 4.1 KiB."),
        ("bms-fw polls the AFE every 20 ms", "bms-fw reads the AFE cell voltages every 20 ms over SPI."),
        ("mc-fw release opt-level s", "mc-fw release builds use opt-level = 's' with LTO."),
        ("Ruff line length 100", "Ruff's line length is 100 characters for every package."),
        ("接口超时 10 秒", "对外 HTTP 接口的超时统一为 10 秒。"),
    )
    assert_search_titles(project, QUESTIONS)
