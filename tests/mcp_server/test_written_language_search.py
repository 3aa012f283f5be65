"""A question in English about a memory written in Chinese crosses languages even when the words it
shares are Latin ones the Chinese text carries (Redis, Terraform): the question's other words are
said in Chinese there, or not at all, as for any question across languages. The learned qualifier
reads the match as crossing scripts by the language the memory is written in (its title), so such a
question still finds the memory — the same hits through `memory search` (CLI subprocess) and MCP
`memory_search`; questions about something never decided stay empty."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_search_titles, store_decisions

DECISIONS = (
    ("Redis key 统一加服务名前缀", "所有 Redis key 以服务名加冒号开头，例如 order:cart:123。"),
    ("Terraform state 放 S3，DynamoDB 加锁", "Terraform remote state 放 S3 bucket，用 DynamoDB 表做 state lock。"),
    ("Nginx gzip 只压缩 JSON 和 JS", "Nginx 的 gzip_types 只开 application/json 和 application/javascript。"),
    ("Webhook 签名用 HMAC-SHA256", "对外 webhook 用 HMAC-SHA256 签名，header 名 X-Signature。"),
    ("Base image: python:3.12-slim", "Docker images build from python:3.12-slim."),
)

QUESTIONS = {
    # English questions about Chinese rules, held by the Latin words of the Chinese text only
    "are redis keys namespaced per microservice": ["Redis key 统一加服务名前缀"],
    "how is concurrent terraform apply prevented": ["Terraform state 放 S3，DynamoDB 加锁"],
    # held through the bilingual table as before
    "which header carries the webhook signature": ["Webhook 签名用 HMAC-SHA256"],
    # never decided: nothing
    "which redis cluster hosts the session store": [],
    "which terraform provider version is pinned": [],
    "does nginx terminate tls": [],
    "which webhook retry schedule do we follow": [],
}


def test_a_question_finds_a_memory_written_in_the_other_language_by_its_latin_words(project: Path) -> None:
    store_decisions(project, *DECISIONS)
    assert_search_titles(project, QUESTIONS)
