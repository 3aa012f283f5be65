"""The interrogative form of a clause (`memory/interrogatives.py`) and lines in a script of their own
(`blocks.own_script_lines`): what asks without a question mark, and what is someone else's words."""

from __future__ import annotations

import pytest

from autopatch_j.memory.blocks import own_script_lines
from autopatch_j.memory.interrogatives import default_interrogatives


@pytest.mark.parametrize(
    "text",
    [
        "and are we actually exposed on 816",
        "ok. is that upgrade safe for the dashboard build",
        "did they ever enable the cache",
        "should it run on every push",
        "LFS 按文件数收费还是按大小",
        "缩略图按宽度切还是按高度切",
        "是走HTTP还是gRPC",
        "测试环境的 redis 要重启 咋弄",  # a question word closes the clause
        "压测跑完的报告放哪",
        "heartbeat 超时要 3 秒 为什么",
        "网关的重试默认开没开",  # A-not-A
        "这个超时是不是太短了",
        "灰度那批机器要不要先摘掉",
        "kafka 的 acks 配的 all 吗",  # a closing question particle
        "how do we rotate the staging keys",  # a question word before an inverted auxiliary
        "so what is the default batch size of the exporter",
        "what's the retention on the audit bucket",
    ],
)
def test_a_clause_of_interrogative_form_asks(text: str) -> None:
    assert default_interrogatives().asks(text)


@pytest.mark.parametrize(
    "text",
    [
        "yes, do that.",
        "do that for every module from now on",  # "do" with no personal pronoun instructs
        "can you keep it short from now on",  # a modal with "you" requests
        "we are going with B",
        "this is the rule",
        "新界面还是 UGUI 等 2023 再说",  # nothing repeated: 还是 says what stays
        "以后 ES 日志索引还是按天建。",
        "用 redis 还是用 memcached 吧",  # 吧 settles
        "这个还是这样处理",  # a demonstrative repeated asks nothing
        "以后不管改什么配置都先提 PR",  # a question word under 都 is free choice
        "其他的没什么",  # a negated question word is indefinite
        "proto 放各自服务的仓库 谁提供服务谁维护",  # a correlative pair
        "只允许这几个",  # a question word after a demonstrative
        "别每次都问我要不要改",  # an embedded question
        "不管是不是紧急修复 都要走 review",  # A-not-A under a concessive
        "以后所有接口都统一返回 JSON",
        "we use zstd, which is faster",  # a relative "which" asks nothing
        "how it works is documented in the README",
        "the line limit stays at 120, which is the default anyway",  # a relative clause
        "keepalive 统一设成三十秒 不对不对 是三十秒",  # a repeated negation
    ],
)
def test_a_statement_does_not_ask(text: str) -> None:
    assert not default_interrogatives().asks(text)


def test_a_line_in_a_script_the_rest_never_uses_is_found() -> None:
    lines = [
        "Sato-san left a note on the incident:",
        "",
        "佐藤：再発防止として、売上系martの変更は必ずstg環境で1日分の比較をしてから本番へ。",
        "",
        "what is the best way to do that comparison?",
    ]
    assert own_script_lines(lines) == {2}


def test_a_loanword_or_a_shared_script_is_no_script_of_its_own() -> None:
    assert own_script_lines(["单体测试方针：", "単体テスト 全部用 JUnit5 写，覆盖率 80% 以上。"]) == set()
    assert own_script_lines(["レビュー指摘 统一登记到 Redmine。", "レビュー記録 用日语写。"]) == set()
    assert own_script_lines(["rules:", "every commit is signed"]) == set()
