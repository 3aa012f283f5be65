"""Questions in written Cantonese, as Chinese: its question words and particles (几多, 点样, 几耐, 边个,
咗, 唔 — `memory/text/fillers.json`) say how a question asks, not what the memory says, so they carry
no weight, and a question word is a word of its own even where the segmenter's dictionary would glue
it to a neighbour (要点样 → 要 + 点样). The same hits through `memory search` (CLI subprocess) and MCP
`memory_search`; a question about something never decided stays empty."""

from __future__ import annotations

from pathlib import Path

from tests.mcp_server.conftest import assert_search_titles, store_decisions

QUESTIONS = {
    "超时系几多": ["接口超时 5 秒"],  # 几多 (how much) asks; 超时 is what the memory says
    "连接池设咗几多": ["连接池大小 20"],
    "行宽点样设": ["行宽 100"],  # 点样 (how)
    "镜像 tag 要点样命名": ["镜像 tag 命名：服务名-git sha"],  # 要 + 点样, not 要点 (gist) + 样
    "redis 有几多个节点": ["Redis 集群 6 个节点"],  # 几多 + 个, not 几 + 多个
    "部署用边个工具": ["部署工具：Argo CD"],  # 边个 (which)
    "密码系几多": [],  # no password was ever decided: nothing
    "日志级别设咗几多": [],  # nor the log level
}


def _store(project: Path) -> None:
    store_decisions(
        project,
        ("连接池大小 20", "数据库连接池统一设 20 个连接。"),
        ("镜像 tag 命名：服务名-git sha", "Docker 镜像 tag 一律用服务名加 git sha。"),
        ("构建缓存保留 7 天", "CI 的构建缓存保留 7 天，之后清理。"),
        ("部署工具：Argo CD", "所有服务用 Argo CD 部署到集群。"),
        ("日志保留 30 天", "应用日志统一保留 30 天。"),
        ("Node 版本：20", "前端项目统一用 Node 20 LTS。"),
        ("Python 版本：3.12", "后端服务统一用 Python 3.12。"),
        ("Java 版本：21", "结算服务用 Java 21。"),
        ("行宽 100", "代码每行最多 100 个字符。"),
        ("Redis 集群 6 个节点", "缓存用 Redis 集群，三主三从共 6 个节点。"),
        ("接口超时 5 秒", "对外接口的超时一律设 5 秒。"),
    )


def test_cantonese_questions_find_the_memory_they_ask_about(project: Path) -> None:
    _store(project)
    assert_search_titles(project, QUESTIONS)


def test_a_cantonese_word_for_inside_is_no_term_a_memory_must_hold(project: Path) -> None:
    """入面 (inside, Mandarin 里面) and 喺边 (where) say where a question looks, as "inside" and "where" do
    in English: a memory that says 入面 itself is not the better answer for it."""
    store_decisions(
        project,
        ("Catalog alias 统一 kebab-case", "libs.versions.toml 入面 alias 统一 kebab-case，例如 androidx-core-ktx"),
        ("Catalog bundles 只限 compose", "libs.versions.toml 只为 compose 建 bundle，其他依赖唔用 bundle"),
    )
    assert_search_titles(
        project,
        {
            "catalog 入面 bundle 用喺边": ["Catalog bundles 只限 compose"],
            "catalog 入面 alias 点样命名": ["Catalog alias 统一 kebab-case"],
        },
    )
