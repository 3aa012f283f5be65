"""An acronym's plural is the acronym: a memory that writes `GPUs` or `CVEs` is found by a question
that writes `GPU` or `CVE` (the stemmer leaves such plurals alone: gpus, cves), in English and in
Chinese — the same hits through `memory search` (CLI subprocess) and MCP `memory_search`; questions
about something never decided stay empty."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_search_titles, store_decisions

QUESTIONS = {
    "how many GPU per person": ["Two GPUs per person at most"],
    "how often is a CVE triaged": ["CVEs triaged weekly"],
    "CVE 多久处理一次": ["CVEs triaged weekly"],
    # K8s is no plural: still asked for whole
    "which K8s version do the nodes run": ["Nodes run K8s 1.29"],
    # never decided: nothing
    "GPU driver version": [],
    "CVE severity threshold": [],
}


def test_an_acronym_finds_the_memory_that_writes_its_plural(project: Path) -> None:
    store_decisions(
        project,
        ("Two GPUs per person at most", "Each person may hold at most 2 GPUs in the dev namespace."),
        ("UDFs live in rt-udf", "Flink UDFs are kept in the rt-udf module only."),
        ("CVEs triaged weekly", "Open CVEs from the scanners are triaged every Monday."),
        ("Nodes run K8s 1.29", "Every cluster node runs K8s 1.29 until the spring upgrade."),
        ("Ruff line length 100", "Ruff's line length is 100 characters for every package."),
    )
    assert_search_titles(project, QUESTIONS)
