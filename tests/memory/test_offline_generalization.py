"""Issue 11, second round: the offline extractor on the failure classes of the previous round, checked
with our own vocabulary (never the generator's): inflection, progressive and nominal decisions,
standing bare imperatives, a narrower past-report gate, confirmations by structure, the kind of a
confirmed proposal about the assistant's own conduct, clause merging and reversals by stem."""

from __future__ import annotations

import pytest

from autopatch_j.memory.drain import drain
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.memory.pipeline_support import admit, pipeline_for
from tests.memory.test_offline import extracted
from tests.memory.test_validation import turn


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # progressive and inflected decision verbs
        ("We're switching the CI pipelines to Buildkite.", "project_decision"),
        ("The team is migrating every service to Helm charts.", "project_decision"),
        ("We dropped support for Safari 14.", "project_decision"),
        ("我们正在统一改用 Conan 管理 C++ 依赖。", "project_decision"),
        # nominal decisions: a decision label with a colon, "X it is"
        ("Decision: releases are tagged from main only.", "project_decision"),
        ("Team consensus: every endpoint returns RFC 3339 timestamps.", "project_decision"),
        ("团队共识：接口统一返回 ISO 8601 时间。", "project_decision"),
        ("Buildkite it is.", "project_decision"),
        # standing bare imperatives about the agent's output
        ("Keep replies under ten lines.", "user_preference"),
        ("Format every answer as a bulleted list.", "user_preference"),
        ("每次回复都附上参考链接。", "user_preference"),
        # negated forms
        ("We no longer ship 32-bit builds.", "project_decision"),
        ("Windows 7 不再维护了。", "project_decision"),
        # past markers that do not report the past
        ("发布之前先跑一遍冒烟测试，以后都这样。", "user_preference"),
        ("按之前说好的：以后提交信息用英文写。", "user_preference"),
        ("不过以后都用 tab 缩进。", "user_preference"),
    ],
)
def test_structures_beyond_the_listed_phrases(text: str, kind: str) -> None:
    assert extracted(turn(1, text)) == [(kind, text)]


@pytest.mark.parametrize(
    "text",
    [
        "We're running into timeouts with the Redis client.",
        "What it is.",
        "I don't know what it is.",
        "Keep these answers for the README.",
        "Summarize the replies above in one line.",
        "We switched to Buildkite last year and regretted it.",
        "上周我们讨论过要不要换 Gradle。",
        "我们以前用过 Maven。",
        "老的配置格式不支持嵌套。",
        "我们正在用 Maven 构建。",
        "Decision pending on the queue library.",
        "We need a decision on the database.",
    ],
)
def test_lookalikes_stay_out(text: str) -> None:
    assert extracted(turn(1, text)) == []


def test_weighing_options_is_discussion_context() -> None:
    text = "We're weighing Buildkite against Jenkins for the runners — what are the trade-offs?"
    assert extracted(turn(1, text)) == [("discussion_context", text)]


PROPOSAL = "我建议项目统一用 Conan 管理依赖。"


@pytest.mark.parametrize(
    "confirmation",
    ["没问题，就按这个思路改。", "Fine, go ahead with that plan.", "Works for me — go ahead.", "好，就照你的来。"],
)
def test_confirmations_with_follow_through_words(confirmation: str) -> None:
    prior = turn(1, "依赖怎么管？", f"有两种做法。{PROPOSAL}")
    assert extracted(turn(2, confirmation), prior=prior) == [("project_decision", PROPOSAL)]


@pytest.mark.parametrize(
    ("proposal", "reply"),
    [
        ("Want me to always add type hints to the functions I write for you?", "Sure."),
        ("How about I list the changed files at the end of each answer?", "Yes, please."),
        ("要不我以后每次改完都先跑一遍测试再交给你？", "好"),
    ],
)
def test_a_confirmed_proposal_about_the_assistants_own_conduct_is_a_preference(proposal: str, reply: str) -> None:
    prior = turn(1, "Noted.", proposal)
    assert extracted(turn(2, reply), prior=prior) == [("user_preference", proposal)]


def test_clauses_of_one_statement_joined_by_a_semicolon_form_one_candidate() -> None:
    text = "Actually, stop pasting whole modules; from now on show only the changed functions."
    (only,) = extracted(turn(1, text))
    assert only == ("user_preference", text)


def test_a_reversal_supersedes_by_a_shared_stem(manager: MemoryManager) -> None:
    pipeline = pipeline_for(manager)
    admit(manager, [("Always paste the whole module when you change something.", "OK.")])
    drain(pipeline)
    admit(manager, [("Actually, stop pasting whole modules; from now on show only the changed functions.", "OK.")])
    drain(pipeline)
    active = [i.content for i in manager.list_items() if i.kind is MemoryKind.USER_PREFERENCE]
    assert active == ["Actually, stop pasting whole modules; from now on show only the changed functions."]


def test_a_supersede_keeps_the_keywords_of_what_it_replaces(manager: MemoryManager) -> None:
    pipeline = pipeline_for(manager)
    admit(manager, [("前端路由统一用 React Router。", "好。")])
    drain(pipeline)
    admit(manager, [("React Router 太重了，团队决定改用 Wouter，别再引入 React Router 了。", "好。")])
    drain(pipeline)
    (active,) = [i for i in manager.list_items() if i.kind is MemoryKind.PROJECT_DECISION]
    assert "wouter" in active.content.casefold() and "路由" in active.keywords
    hits = manager.search(thread_id=manager.active_thread().id, query="路由")
    assert [h.memory_id for h in hits] == [active.memory_id]


# Our own paraphrase checks (issue 11, second round), one line each: expected kinds (P preference,
# N decision, D discussion, - nothing) || the user's turn [|| the assistant's answer just before].
# Written from the failure classes, with our own vocabulary; never from the generator's.
PROBES = """
# my own vocabulary: explicit preferences
P || 以后回答尽量短一点。
P || 我希望你每次改代码前先说明思路。
P || 你回答的时候不要用表情符号。
P || 请始终用中文和我交流。
P || 记得以后给函数加类型注解。
P || 以后别给我解释 Git 基础命令了。
P || 回答里不要出现英文术语的翻译，直接用英文。
P || From now on, reply in English even when I write in Chinese.
P || I'd like you to always show the command before running it.
P || Please never use emojis in your replies.
P || Don't ever paste the whole file back to me.
P || Keep your answers short, please.
P || Always explain the root cause before proposing a fix.
P || Stop adding comments to every line.
P || I prefer tabs over spaces.
P || When you suggest code, include the imports.
# explicit decisions
N || 我们决定用 PostgreSQL 作为主数据库。
N || 团队约定接口统一返回 JSON。
N || 项目以后统一使用 Java 21。
N || 前端改用 Vite 构建，不再用 webpack。
N || 我们不再支持 IE11。
N || 新服务一律用 Go 写。
N || 代码风格统一用 black 格式化。
N || 定了，日志统一用 structlog。
N || We decided to use PostgreSQL for persistence.
N || We're going with FastAPI for the new service.
N || Our team agreed on trunk-based development.
N || We will no longer support Python 3.8.
N || Let's standardize on Poetry for dependency management.
N || The project uses semantic versioning from now on.
N || All new modules must be written in TypeScript.
N || We've settled on Kafka for the event bus.
N || Going forward, every PR needs two approvals.
N || Final decision: we ship on Tuesdays.
N || We switched our CI to GitHub Actions, and that's final.
# temporary
- || 这次先简单回答就行。
- || 这个问题先用英文回答吧。
- || 暂时先用 print 调试一下。
- || Just this once, give me the long version.
- || For now, skip the tests.
- || For this task, ignore the linter.
- || Today let's keep it short.
# code facts
- || pom.xml 里现在配置的是 Java 17。
- || 项目目前用的是 MySQL 8。
- || 我们的 CI 跑在 Jenkins 上。
- || The repo currently uses Maven.
- || Our build runs on Gradle 8.
- || package.json declares React 18.
- || We use MySQL in production right now.
# undecided
- || 要不要换成 Poetry？
- || 我们还没决定用哪个数据库。
- || 是不是该升级到 Java 21 了？
- || Should we move to pnpm?
- || We haven't decided on the database yet.
D || I'm not sure whether to use Redis or Memcached.
- || Maybe we should switch to Rust eventually.
- || 也许以后可以考虑 Kotlin。
# one-off requests
- || 帮我把这个函数改成异步的。
- || Rewrite this test using pytest fixtures.
- || Please rename the variable to user_id.
- || 解释一下这段代码。
- || Can you add logging to this handler?
# confirmations after a concrete proposal
N || 好的，就这么做。 || 我建议把缓存层换成 Redis，你看行吗？
N || 可以，按这个来。 || 我建议把缓存层换成 Redis，你看行吗？
N || 嗯，同意这个方案。 || 建议数据库迁移用 Flyway 管理。
N || 没问题。 || 我推荐用 Alembic 管理数据库迁移。
N || 就用这个吧。 || 可以考虑用 Caddy 替代 Nginx 做反向代理。
N || 赞成，开始吧。 || 我建议接口统一加上版本前缀 /v1。
N || Yes, let's do that. || I suggest we use Alembic for migrations.
N || Sounds good to me. || I'd recommend Caddy instead of Nginx for the reverse proxy.
N || Agreed, go for it. || How about we pin all dependencies with a lock file?
N || Perfect, that works. || My suggestion is to split the monolith into two services.
N || OK, make it so. || I propose we adopt Conventional Commits for commit messages.
N || Yep, do that. || We could move the config to environment variables.
N || Let's go with your suggestion. || I'd suggest SQLite for local development.
N || That's the plan then. || I recommend putting feature flags in a single config file.
P || 好，以后就这样。 || 要不我以后回答都先给结论？
P || Sure, do that from now on. || Shall I always include a test plan with my patches?
# not confirmations
- || 不用，先保持现状。 || 我建议把缓存层换成 Redis，你看行吗？
- || 好的，但是等下周再说。 || 我建议把缓存层换成 Redis，你看行吗？
- || 我再想想。 || 我建议把缓存层换成 Redis，你看行吗？
- || No, keep Nginx. || I'd recommend Caddy instead of Nginx for the reverse proxy.
- || Hmm, not sure yet. || I'd recommend Caddy instead of Nginx for the reverse proxy.
- || OK, but not now. || I'd recommend Caddy instead of Nginx for the reverse proxy.
- || Thanks, that helps. || The function returns a list of users.
- || 好的，谢谢。 || 这个函数返回用户列表。
- || Yes. || The config is loaded from config.toml at startup.
- || Let me think about it. || I suggest we use Alembic for migrations.
# assistant-only claims
- || 测试怎么跑？ || 以后我们统一用 pytest 跑测试，我已经配置好了。
- || What's our database? || We decided to use PostgreSQL; it's in the config.
# mixed
N || 后端 API 以后统一用 snake_case naming。
N || Let's 统一用 pnpm 管理依赖。
P || 以后 commit message 用英文写。
N || 我们决定 migrate 到 Kubernetes。
- || 这次 PR 先不加测试。
- || 现在 CI 用的是 GitHub Actions。
# reversals / negation
N || 不用 Jenkins 了，以后都用 GitHub Actions。
N || 算了，还是用 MySQL 吧，PostgreSQL 先不考虑了。
N || On second thought, let's keep MySQL.
N || Actually, we're dropping Docker Swarm; Kubernetes only.
P || 以后不用每次都总结改动了。
P || No need to explain basic Git commands anymore.
N || 老接口 v1 下个月起不再维护。
N || Scratch that — we're moving the API gateway to Envoy.
N || 改主意了，我们前端还是用 React。
- || Scratch that, I was wrong about the stack trace.
# negatives that look like statements
- || 我们之前讨论过用 Kafka，但没定。
- || 上次你说要用 Redis，后来呢？
- || 我们组的服务昨天挂了。
- || 团队在评估 Gradle 和 Maven。
- || 项目里用了不少 Lombok 注解。
- || 我们的接口返回的是 XML。
- || 同事说以后可能会换数据库。
- || 他们决定用 Rust 了吗？
- || 这个函数每次都会返回空列表。
- || 每次运行测试都很慢。
- || 你每次都把缩进搞错。
- || 以前我们用 SVN。
- || 我们的团队有五个人。
- || Our team decided nothing yet.
- || The team is debugging the payment service.
- || We're seeing errors in the logs.
- || We used to deploy with Ansible.
- || Last sprint we migrated the billing DB to Aurora.
- || Every time I run the build it fails.
- || The API always returns 500 on empty input.
- || Can we use Redis for this?
- || We might drop Windows support next year.
- || Someone suggested we switch to Bun.
- || What's the decision: Maven or Gradle?
- || Is that the plan?
- || It is what it is.
- || That's how it is.
- || Each answer you gave was wrong.
- || Show me the answers above again.
- || Print every response from the API.
- || Summarize each reply in this thread.
- || When you get a chance, look at the flaky test.
- || 你回答的时候是不是漏了一步？
- || 回答里这个例子有错。
- || The decision: still open.
- || Decision pending: Maven or Gradle.
- || Policy: TBD.
- || We're going to lunch.
- || We're moving to the next file.
- || Let me know when the build finishes.
- || Let's see what the logs say.
- || Let's look at the stack trace first.
- || 我们先看看日志吧。
- || 先跑一下测试再说。
P || 以后给我写代码的时候都加上注释。
P || 请以后用表格对比方案。
P || 今后回复请控制在五行以内。
P || 我不喜欢太长的解释，以后简短点。
P || 记住：我用的是 macOS，命令都给 zsh 版本的。
P || 回答问题时先给出代码，再解释。
P || 别再给我推荐付费工具了。
P || 以后不要自动帮我提交代码。
P || 我习惯用 vim 快捷键，给快捷键时按 vim 来。
P || From here on, keep explanations to a paragraph.
P || In future, ask before you delete any file.
P || Remember that I'm on Windows, so give PowerShell commands.
P || Please stop apologizing in every reply.
P || I want you to cite the file and line for every claim.
P || Default to Python examples unless I say otherwise.
P || No more bullet lists, please write prose.
P || Never run git push without asking me.
N || 我们统一用 UTC 存储时间。
N || 数据库主键一律用 UUID。
N || 我们定了：日志保留 30 天。
N || 决定了，下个版本开始不再兼容 Python 3.9。
N || 团队已经达成一致，采用 monorepo。
N || 项目文档统一放在 docs 目录下。
N || 以后所有接口都必须有单元测试。
N || The team decided that all dates are stored in UTC.
- || We'll keep the monolith for now and revisit later.
N || From now on, the main branch is protected and needs CI to pass.
N || We agreed that feature flags live in LaunchDarkly.
N || Our convention: tests go next to the code they test.
N || Let's not use ORMs in this project; raw SQL only.
N || We're dropping support for Node 16 in the next release.
N || All timestamps will be stored in UTC.
N || Services should communicate over gRPC from now on.
- || No more questions, thanks.
- || Let's not worry about the warnings.
- || No more than three retries happened.
- || 回答时间太长了。
- || In future releases we might add SSO.
# discussion context: options being weighed
D || 我们在纠结用 Kafka 还是 RabbitMQ。
D || 前端框架在 React 和 Vue 之间犹豫。
D || 我们在讨论 REST 和 GraphQL 哪个更适合。
D || We're debating whether to use Kafka or RabbitMQ.
D || We're torn between Flask and FastAPI for the API layer.
D || I'm comparing Postgres and MySQL for this service.
D || Option A is a monolith, option B is microservices; which fits better?
D || 方案一是单体，方案二是微服务，各有优缺点。
- || 把这个选项关掉。
- || 在两个函数之间加一行日志。
- || Add CLI options for verbose output.
- || Which one is the entry point?
- || Are there alternatives to this regex?
# imperative always/never with any verb
P || Please never suggest Lombok annotations to me.
P || You should always mention breaking changes.
- || Never mind, I found it.
- || It always crashes when I run the tests.
- || The cache never expires?
"""
_KINDS = {"P": "user_preference", "N": "project_decision", "D": "discussion_context"}


def _probes() -> list[tuple[str, str, str | None]]:
    rows = [line.split(" || ") for line in PROBES.splitlines() if line.strip() and not line.startswith("#")]
    return [(row[0], row[1], row[2] if len(row) > 2 else None) for row in rows]


@pytest.mark.parametrize(("expected", "text", "before"), _probes())
def test_own_paraphrase_checks(expected: str, text: str, before: str | None) -> None:
    prior = turn(1, "?", before) if before else None
    got = [kind for kind, _ in extracted(turn(2 if prior else 1, text), prior=prior)]
    assert got == [] if expected == "-" else got == [_KINDS[k] for k in expected]
