"""memory_search benchmark: p50/p99 at 1k, 10k and 100k active items, against an FTS5 baseline.

The store is a real Memory database (created and verified by `MemoryManager.open()`), filled with
generated Chinese/English preferences, decisions and discussions (titles, aliases, keywords,
content) and their search index (memory/index.py), bulk-inserted. In the same run, the same queries
go to a baseline: an FTS5 `trigram` table holding the same memories (title, aliases, keywords and
content), queried with one `LIKE '%q%'` statement and scoped the same way — and, for queries of
several words, an FTS5 AND-of-terms table. The baseline exists only here — local Memory never uses
FTS5 (M-60). The index's bytes per active memory (`dbstat`) are reported beside the FTS5 trigram
table's.

Searches run on a connection with the product's settings (the `Database.connect()` pragmas). Also
measured per size: `MemoryManager.search` per call, as the CLI, the agent's tool and the MCP server
call it (a fresh read connection, its pragmas, the schema and statement preparation, one read
transaction), on the first `--manager-calls` queries of the mix; and a process's first search of
the store on the same queries: the process's copy of postings and item rows (memory/postings_cache.py)
emptied before each search, beside the ranking statement alone (`search_in_tx(..., cached=False)`).
The main figures are a long-lived process's (the agent, the MCP server): its copy warms as it searches.

`--baseline-src DIR` runs another checkout's search (DIR is its `src`) side by side, alternating query
by query on the same store, in a process of its own (`search_side.py` with `PYTHONPATH=DIR`): its
`search_in_tx` on a long-lived connection with its own pragmas, and its `Database.read` +
`search_in_tx` per call, each timed inside that process. Every module of that side is the other
checkout's, and so is its process's copy (kept postings, hits and rankings): neither side's kept
work serves the other. The hits of both are compared (ids, order, match kind, title, synopsis), and
the statements each sent are counted; the store and its index are written by this tree.

    python bench/search_bench.py [--quick] [--sizes N,…] [--json] [--queries N] [--seed S]
        [--baseline-src DIR] [--dump FILE]

`--dump FILE` writes the hits of every measured search of the long-lived process (size, query class,
query, then per hit its memory id, kind, title, synopsis and match kind), one JSON line per search:
two checkouts' dumps of one seed are equal byte for byte when their rankings are (`cmp`).

`--quick` stops at 10k items (no 100k store) and runs fewer queries; `--sizes` names the sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from autopatch_j.memory import postings_cache
from autopatch_j.memory.db import Database
from autopatch_j.memory.index import WEIGHT_OFFSET, item_weights
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.search import search_in_tx
from autopatch_j.memory.terms import normalize
from autopatch_j.memory.text import fold

# -- generated content ------------------------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


ZH_TOPICS = _words(
    "数据库 迁移 缓存 日志 接口 测试 单元测试 集成测试 部署 容器 镜像 依赖 版本 配置 构建 发布 回滚 监控 告警 "
    "性能 内存 线程 并发 事务 索引 查询 分页 权限 认证 鉴权 加密 签名 网关 路由 限流 熔断 重试 超时 队列 消息 "
    "调度 任务 定时器 异常 错误码 返回值 注释 文档 命名 格式化 代码风格 评审 分支 合并 提交 变更 需求 前端 后端 "
    "移动端 小程序 支付 订单 库存 用户 账号 会员 积分 优惠券 报表 导出 导入 搜索 推荐 通知 短信 邮件 上传 下载 "
    "文件 存储 备份 恢复 灰度 特性开关 埋点 统计 模板 国际化 时区 编码 序列化 反序列化 协议 客户端 服务端"
)
ZH_VERBS = _words("统一使用 不要再用 默认采用 一律 优先 禁止 先写 改用 保留 拆分 合并 升级到 固定为 避免 总是")
ZH_FILLERS = _words("以后 今后 我们决定 从现在起 约定 这个项目 所有模块 新代码 团队 规范 要求 方案 讨论 比较 倾向")
EN_TOPICS = _words(
    "python java maven gradle spring boot junit pytest ruff mypy docker kubernetes postgres sqlite redis kafka "
    "logging tracing metrics retries timeouts pagination migrations fixtures mocks fakes typing dataclasses "
    "pydantic fastapi django flask react vue typescript eslint prettier webpack vite git rebase squash release "
    "changelog semver monorepo workspace cache index schema lint format review branch commit hotfix rollback "
    "feature flags secrets config env vars cli repl prompt streaming tokens answer summary conclusion details"
)
EN_VERBS = _words("use always never prefer avoid keep pin upgrade split merge write answer put run")
EN_FILLERS = _words("from now on by default going forward we decided let's use for this project in every module")
KINDS = ("user_preference", "project_decision", "discussion_context")


@dataclass(frozen=True, slots=True)
class GenItem:
    id: int
    kind: str
    thread_id: int | None
    title: str
    aliases: list[str]
    keywords: list[str]
    content: str
    status: str
    updated_at: float


def _zh_phrase(rng: random.Random) -> str:
    return rng.choice(ZH_VERBS) + "".join(rng.sample(ZH_TOPICS, rng.randint(1, 2)))


def _en_phrase(rng: random.Random) -> str:
    return f"{rng.choice(EN_VERBS)} {' '.join(rng.sample(EN_TOPICS, rng.randint(1, 3)))}"


def generate(n: int, rng: random.Random, *, threads: list[int], active_thread: int) -> list[GenItem]:
    """Realistic items: ~half Chinese, ~half English titles; mixed content; 10% non-active rows."""
    items = []
    for i in range(1, n + 1):
        kind = rng.choices(KINDS, weights=(4, 4, 2))[0]
        zh = rng.random() < 0.55
        ident = f"{rng.choice(EN_TOPICS)}{rng.randint(1, 9999)}"  # a rarer token, like a module name
        title = (_zh_phrase(rng) if zh else _en_phrase(rng))[:60]
        if rng.random() < 0.3:
            title = f"{title} {ident}"
        aliases = [_en_phrase(rng) if zh else _zh_phrase(rng) for _ in range(rng.randint(1, 2))]
        keywords = rng.sample(ZH_TOPICS, rng.randint(1, 3)) + rng.sample(EN_TOPICS, rng.randint(1, 2))
        content = (
            f"{rng.choice(ZH_FILLERS)}{_zh_phrase(rng)}，{_zh_phrase(rng)}；"
            f"{rng.choice(EN_FILLERS)} {_en_phrase(rng)}。"
            if zh
            else f"{rng.choice(EN_FILLERS)} {_en_phrase(rng)}, {_en_phrase(rng)} ({_zh_phrase(rng)}). {ident}"
        )
        thread = (active_thread if rng.random() < 0.5 else rng.choice(threads)) if kind == KINDS[2] else None
        status = "active" if rng.random() < 0.9 else rng.choice(("revised", "superseded", "forgotten"))
        items.append(GenItem(i, kind, thread, title, aliases, keywords, content, status, 1_700_000_000.0 + i))
    return items


# -- bulk load ----------------------------------------------------------------------------------------


@dataclass
class Store:
    path: Path
    conn: sqlite3.Connection  # the loader's connection
    thread_id: int
    manager: MemoryManager
    term_ids: dict[str, int] = field(default_factory=lambda: {"": 1})  # terms numbered as the indexer would
    loaded: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {"postings": 0})


_ITEM_SQL = (
    "INSERT INTO memory_items (id, memory_id, revision, kind, thread_id, title, content, aliases, keywords, "
    "non_factual, status, operation, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, 'create', ?, ?)"
)


def open_store(tmp: Path) -> Store:
    manager = MemoryManager(root=tmp)
    assert manager.open().ok
    for _ in range(3):  # a few archived threads whose discussions must stay out of scope
        manager.start_new_thread()
    thread_id = manager.active_thread().id
    conn = sqlite3.connect(manager.paths.db, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute(
        "CREATE VIRTUAL TABLE bench_fts USING fts5(term, item_id UNINDEXED, tokenize = 'trigram')"
    )  # the baseline, in the scratch database only
    # The multi-term baseline: one document per active item (title, aliases, keywords, content) with
    # Porter stemming, CJK runs cut into overlapping bigrams; rowid = item id.
    conn.execute("CREATE VIRTUAL TABLE bench_fts_docs USING fts5(doc, tokenize = 'porter unicode61')")
    return Store(path=manager.paths.db, conn=conn, thread_id=thread_id, manager=manager)


_INDEX_TRIGGERS = ("memory_postings_insert", "memory_search_docs_insert")


def load(store: Store, items: list[GenItem]) -> float:
    """Insert items and their search index as consolidation would, but in bulk; returns seconds."""
    started = time.perf_counter()
    conn = store.conn
    triggers = [
        conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", (name,)).fetchone()[0]
        for name in _INDEX_TRIGGERS
    ]
    item_rows: list[tuple[object, ...]] = []
    posting_rows: list[tuple[int, int, int]] = []
    doc_rows: list[tuple[int, int]] = []
    fts_rows: list[tuple[str, int]] = []
    and_rows: list[tuple[int, str]] = []
    for it in items:
        item_rows.append(
            (
                it.id,
                it.id,
                it.kind,
                it.thread_id,
                it.title,
                it.content,
                json.dumps(it.aliases, ensure_ascii=False),
                json.dumps(it.keywords, ensure_ascii=False),
                int(it.kind == KINDS[2]),
                it.status,
                it.updated_at,
                it.updated_at,
            )
        )
        if it.status != "active":
            continue  # only active revisions are indexed
        # The same rows as index.index_item_in_tx.
        weights = item_weights(title=it.title, content=it.content, aliases=it.aliases, keywords=it.keywords)
        term_ids = [store.term_ids.setdefault(term, len(store.term_ids) + 1) for term in weights]
        posting_rows.extend((n, it.id, w - WEIGHT_OFFSET) for n, w in zip(term_ids, weights.values(), strict=True))
        doc_rows.append((it.id, len(term_ids)))
        store.counts["postings"] += len(weights)
        text = "\n".join([it.title, *it.aliases, *it.keywords, it.content])
        fts_rows.append((normalize(text), it.id))
        and_rows.append((it.id, fts_doc(text)))
    conn.execute("BEGIN")
    for name in _INDEX_TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    conn.executemany(_ITEM_SQL, item_rows)
    posting_rows.sort()
    known = conn.execute("SELECT max(id) FROM memory_term_stats").fetchone()[0] or 0
    conn.executemany(  # the new terms, numbered as the loader numbered them
        "INSERT INTO memory_term_stats (id, term, items) VALUES (?, ?, 0)",
        [(n, term) for term, n in store.term_ids.items() if n > known],
    )
    conn.executemany("INSERT INTO memory_postings (term_id, item_id, weight) VALUES (?, ?, ?)", posting_rows)
    conn.executemany("INSERT INTO memory_search_docs (item_id, terms) VALUES (?, ?)", doc_rows)
    conn.execute(
        "UPDATE memory_term_stats SET items = (SELECT count(*) FROM memory_postings p WHERE p.term_id = "
        "memory_term_stats.id) WHERE term <> ''"
    )
    conn.execute(
        "INSERT INTO memory_term_stats (term, items) SELECT '', count(*) FROM memory_search_docs WHERE true "
        "ON CONFLICT (term) DO UPDATE SET items = excluded.items"
    )
    for sql in triggers:
        conn.execute(sql)
    conn.executemany("INSERT INTO bench_fts (term, item_id) VALUES (?, ?)", fts_rows)
    conn.executemany("INSERT INTO bench_fts_docs (rowid, doc) VALUES (?, ?)", and_rows)
    conn.execute("COMMIT")
    # As in a store in use (autocheckpoint at 1,000 pages): the pages are in the main file, not a WAL
    # of the whole load that every reader would have to look up first.
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.loaded += len(items)
    return time.perf_counter() - started


# The index's tables and the unique index of the terms' text (term → number).
_OURS = (
    "memory_postings",
    "memory_search_docs",
    "memory_term_stats",
    "sqlite_autoindex_memory_term_stats_1",
    "memory_index_state",
    "memory_index_keys",
)


def index_bytes(conn: sqlite3.Connection) -> dict[str, int]:
    """Bytes of pages (`dbstat`) of our search index and of the FTS5 trigram table (its index shadow
    tables, and its copy of the text apart)."""
    sizes = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall())
    fts_index = sum(v for k, v in sizes.items() if k.startswith("bench_fts_") and not k.startswith("bench_fts_docs"))
    fts_content = sizes.get("bench_fts_content", 0)
    return {
        "ours": sum(sizes.get(name, 0) for name in _OURS),
        "fts5_trigram_index": fts_index - fts_content,
        "fts5_trigram_content": fts_content,
    }


_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")


def fts_doc(text: str) -> str:
    """Text for the FTS5 multi-term baseline: CJK runs become their overlapping bigrams (as CJK analyzers do)."""

    def bigrams(match: re.Match[str]) -> str:
        run = match.group()
        return " ".join(run[i : i + 2] for i in range(max(len(run) - 1, 1)))

    return _CJK_RUN.sub(lambda m: f" {bigrams(m)} ", fold(text))


def fts_match(query: str) -> str | None:
    """The FTS5 AND-of-terms expression of a query: CJK bigrams, Latin words as prefixes; None if empty."""
    parts = []
    for token in re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff]+|[0-9a-z]+", fts_doc(query)):
        parts.append(f'"{token}"' if _CJK_RUN.fullmatch(token) else f'"{token}"*')
    return " AND ".join(dict.fromkeys(parts)) or None


def multi_term_query(item: GenItem, rng: random.Random) -> str:
    """2–3 words of one item in a shuffled order, English ones sometimes inflected ("commits", "cached")."""
    text = fold(f"{item.title} {item.content}")
    latin = [w for w in re.findall(r"[a-z]{4,}", text) if w not in _FILLER_WORDS]
    chinese = [w for w in ZH_TOPICS if len(w) == 2 and w in text]
    pool = list(dict.fromkeys(latin + chinese))
    words = rng.sample(pool, min(len(pool), rng.randint(2, 3)))
    words = [w + rng.choice(("s", "ed", "")) if w.isascii() and not w.endswith(("s", "e")) else w for w in words]
    return " ".join(words)


def question_query(item: GenItem, rng: random.Random) -> str:
    """A question a later agent would ask about an item: two of its words inside question words."""
    words = multi_term_query(item, rng).split()[:2]
    if any(not w.isascii() for w in words):
        return f"我们的{''.join(words)}是怎么定的"
    return f"what do we use for {' '.join(words)} in this project"


def _content_words(content: str) -> list[str]:
    """Words of two or more characters of a content (CJK runs whole), as a user would type one."""
    return [m.group() for m in re.finditer(r"[\u3400-\u4dbf\u4e00-\u9fff]{2,}|[a-z0-9]{2,}", fold(content))] or [
        content[:6]
    ]


_FILLER_WORDS = frozenset(" ".join(EN_FILLERS).split()) | {"from", "this", "every"}

# -- queries ------------------------------------------------------------------------------------------


def make_queries(items: list[GenItem], rng: random.Random, n: int) -> list[tuple[str, str]]:
    """(class, query) pairs drawn from the loaded items, plus misses and long sentences."""
    active = [it for it in items if it.status == "active"]
    out: list[tuple[str, str]] = []
    makers: list[tuple[str, Callable[[], str]]] = [
        ("exact title", lambda: rng.choice(active).title),
        ("exact keyword", lambda: rng.choice(rng.choice(active).keywords)),
        ("prefix", lambda: normalize(rng.choice(active).title)[: rng.randint(2, 6)]),
        ("substring zh/en", lambda: _middle(normalize(rng.choice(rng.choice(active).aliases)), rng, 4, 8)),
        ("substring short", lambda: _middle(normalize(rng.choice(active).title), rng, 2, 3)),
        ("content word", lambda: rng.choice(_content_words(rng.choice(active).content))),
        (
            "miss",
            lambda: rng.choice(["kubernetes operator 配额", "zqxj", "区块链共识", "quantum annealing", "无关问题"]),
        ),
        ("long sentence", lambda: "请帮我解释一下为什么这个接口在高并发下会超时 and how python logging works here"),
        ("multi-term", lambda: multi_term_query(rng.choice(active), rng)),
        ("question", lambda: question_query(rng.choice(active), rng)),
    ]
    for i in range(n):
        name, make = makers[i % len(makers)]
        out.append((name, make()))
    rng.shuffle(out)
    return out


def _middle(text: str, rng: random.Random, lo: int, hi: int) -> str:
    size = min(len(text), rng.randint(lo, hi))
    start = rng.randint(0, max(len(text) - size, 0))
    return text[start : start + size].strip() or text


_FTS_SQL = """
WITH hits AS (
    SELECT item_id, min(CASE WHEN term = :q THEN 0 WHEN substr(term, 1, length(:q)) = :q THEN 1 ELSE 2 END) AS rank
    FROM bench_fts WHERE term LIKE '%' || :q || '%'
    GROUP BY item_id
)
SELECT i.memory_id, i.kind, i.title, substr(i.content, 1, 161), h.rank
FROM hits h JOIN memory_items i ON i.id = h.item_id
WHERE i.status = 'active' AND (i.kind <> 'discussion_context' OR i.thread_id = :thread_id)
ORDER BY h.rank, i.updated_at DESC, i.memory_id DESC
LIMIT 5
"""


# The multi-term baseline: FTS5 does AND-of-terms natively; ranked by recency and scoped like ours.
_FTS_AND_SQL = """
SELECT i.memory_id, i.kind, i.title, substr(i.content, 1, 161)
FROM bench_fts_docs f CROSS JOIN memory_items i ON i.id = f.rowid
WHERE bench_fts_docs MATCH :m
  AND i.status = 'active' AND (i.kind <> 'discussion_context' OR i.thread_id = :thread_id)
ORDER BY i.updated_at DESC, i.memory_id DESC
LIMIT 5
"""


def baseline(conn: sqlite3.Connection, name: str, q: str, thread_id: int) -> list[sqlite3.Row]:
    """The FTS5 baseline of a query class: AND-of-terms for queries of several words, trigram LIKE otherwise."""
    if name in ("multi-term", "question"):
        expression = fts_match(q)
        return conn.execute(_FTS_AND_SQL, {"m": expression, "thread_id": thread_id}).fetchall() if expression else []
    nq = normalize(q)
    return conn.execute(_FTS_SQL, {"q": nq, "thread_id": thread_id}).fetchall() if nq else []


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Before:
    """Another checkout's search (`--baseline-src DIR`, DIR its `src`) in a process of its own
    (`search_side.py` under `PYTHONPATH=DIR`): every module of it is that checkout's, and its copy of
    postings, kept hits and rankings is its own, so neither side's kept work serves the other."""

    def __init__(self, src: Path) -> None:
        if not (src / "autopatch_j" / "memory" / "search.py").is_file():
            raise SystemExit(f"--baseline-src {src}: no autopatch_j/memory/search.py there")
        self.src = src
        env = {**os.environ, "PYTHONPATH": str(src), "PYTHONIOENCODING": "utf-8"}
        self._process = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("search_side.py"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=env,
        )

    def ask(self, *request: object) -> Any:
        """One request to the other process, its answer (search_side.py lists them)."""
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(request, ensure_ascii=False) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise SystemExit(f"--baseline-src {self.src}: its search process ended ({self._process.wait()})")
        return json.loads(line)

    def search(self, path: Path, query: str, thread_id: int) -> tuple[float, int, list[tuple[object, ...]]]:
        """ms, statements sent and hit rows of one search on the other process's long-lived reader."""
        ms, statements, hits = self.ask("search", query, thread_id)
        return ms, statements, [tuple(hit) for hit in hits]

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait()


def load_before(src: Path) -> Before:
    """The other checkout's search, started in its own process."""
    return Before(src)


def reader(db: Any) -> sqlite3.Connection:
    """A long-lived connection with a Database's settings (the pragmas every Memory connection gets)."""
    return db.connect()  # type: ignore[no-any-return]


def _hit_rows(hits: list[Any]) -> list[tuple[object, ...]]:
    return [(h.memory_id, str(h.kind), h.title, h.synopsis, h.match) for h in hits]


def measure(
    store: Store, queries: list[tuple[str, str]], before: Before | None, dump: TextIO | None = None
) -> dict[str, object]:
    conn = reader(Database(path=store.path))
    if before:
        before.ask("connect", str(store.path))
    statements: list[int] = []
    before_statements: list[int] = []
    ours: list[float] = []
    fts: list[float] = []
    cpu_ours: dict[str, list[float]] = {}  # thread CPU time: robust to other processes on a shared machine
    cpu_fts: dict[str, list[float]] = {}
    by_class: dict[str, list[float]] = {}
    fts_by_class: dict[str, list[float]] = {}
    before_by_class: dict[str, list[float]] = {}
    hit_counts: list[int] = []
    fts_missed = 0  # FTS5 trigram returns no rows for patterns under 3 characters
    differ: list[tuple[str, str]] = []  # queries whose hits differ from the --baseline-src search
    sent: list[str] = []
    hits_by_class: dict[str, list[int]] = {}
    for name, q in queries[:50]:  # warm the page cache for both
        search_in_tx(conn, thread_id=store.thread_id, query=q)
        baseline(conn, name, q, store.thread_id)
        if before:
            before.ask("warm", q, store.thread_id)

    def run_before(q: str) -> list[tuple[object, ...]]:
        assert before
        ms, sent_before, hits = before.search(store.path, q, store.thread_id)
        before_by_class.setdefault(name, []).append(ms)
        before_statements.append(sent_before)
        return hits

    for i, (name, q) in enumerate(queries):
        before_hits = run_before(q) if before and i % 2 else None  # alternate which runs first
        conn.execute("BEGIN")
        sent.clear()
        conn.set_trace_callback(sent.append)
        c0, t0 = time.thread_time(), time.perf_counter()
        hits = search_in_tx(conn, thread_id=store.thread_id, query=q)
        t1, c1 = time.perf_counter(), time.thread_time()
        conn.set_trace_callback(None)
        c2, t2 = time.thread_time(), time.perf_counter()
        fts_hits = baseline(conn, name, q, store.thread_id)
        t3, c3 = time.perf_counter(), time.thread_time()
        for bucket in (name, "all"):
            cpu_ours.setdefault(bucket, []).append((c1 - c0) * 1000)
            cpu_fts.setdefault(bucket, []).append((c3 - c2) * 1000)
        counts = hits_by_class.setdefault(name, [0, 0, 0])
        counts[0] += 1
        counts[1] += bool(hits)
        counts[2] += bool(fts_hits)
        if hits and not fts_hits:
            fts_missed += 1
        conn.execute("ROLLBACK")
        if before and before_hits is None:
            before_hits = run_before(q)
        if before and _hit_rows(hits) != before_hits:
            differ.append((name, q))
        statements.append(sum(1 for s in sent if s.lstrip().upper().startswith(("SELECT", "WITH"))))
        ours.append((t1 - t0) * 1000)
        fts.append((t3 - t2) * 1000)
        by_class.setdefault(name, []).append((t1 - t0) * 1000)
        fts_by_class.setdefault(name, []).append((t3 - t2) * 1000)
        hit_counts.append(len(hits))
        if dump is not None:
            dump.write(json.dumps([store.loaded, name, q, _hit_rows(hits)], ensure_ascii=False) + "\n")
    result: dict[str, object] = {
        "items": store.loaded,
        "active_items": conn.execute("SELECT count(*) FROM memory_items WHERE status = 'active'").fetchone()[0],
        "terms": dict(store.counts),
        "queries": len(queries),
        "p50_ms": statistics.median(ours),
        "p99_ms": percentile(ours, 0.99),
        "fts5_p50_ms": statistics.median(fts),
        "fts5_p99_ms": percentile(fts, 0.99),
        "ratio_p50": statistics.median(ours) / max(statistics.median(fts), 1e-9),
        "ratio_p99": percentile(ours, 0.99) / max(percentile(fts, 0.99), 1e-9),
        "cpu_p50_ms": statistics.median(cpu_ours["all"]),
        "fts5_cpu_p50_ms": statistics.median(cpu_fts["all"]),
        "statements_max": max(statements),
        "statements_mean": statistics.fmean(statements),
        "queries_with_hits": sum(1 for n in hit_counts if n),
        "fts5_empty_where_we_hit": fts_missed,
        "by_class": {
            name: {
                "p50_ms": statistics.median(v),
                "p99_ms": percentile(v, 0.99),
                "fts5_p50_ms": statistics.median(fts_by_class[name]),
                "fts5_p99_ms": percentile(fts_by_class[name], 0.99),
                "cpu_p50_ms": statistics.median(cpu_ours[name]),
                "fts5_cpu_p50_ms": statistics.median(cpu_fts[name]),
                "queries": hits_by_class[name][0],
                "with_hits": hits_by_class[name][1],
                "fts5_with_hits": hits_by_class[name][2],
                **({"before_p50_ms": statistics.median(before_by_class[name])} if before else {}),
            }
            for name, v in sorted(by_class.items())
        },
    }
    if before:
        all_before = [ms for v in before_by_class.values() for ms in v]
        result["before"] = {
            "p50_ms": statistics.median(all_before),
            "ratio_p50": statistics.median(ours) / max(statistics.median(all_before), 1e-9),
            "statements_max": max(before_statements),
            "statements_mean": statistics.fmean(before_statements),
            "hits_differ": len(differ),
            "differ_examples": differ[:5],
        }
    conn.close()
    if before:
        before.ask("close")
    return result


def measure_cold(store: Store, queries: list[tuple[str, str]]) -> dict[str, object]:
    """A process's first search of the store: the copy of postings and item rows emptied before each
    search, alternating with the ranking statement alone (`cached=False`) on the same query."""
    conn = reader(Database(path=store.path))
    cold: list[float] = []
    in_sql: list[float] = []
    for i, (_, q) in enumerate(queries):
        for first_cold in (i % 2 == 0, i % 2 == 1):
            postings_cache.clear()
            conn.execute("BEGIN")
            t0 = time.perf_counter()
            search_in_tx(conn, thread_id=store.thread_id, query=q, cached=first_cold)
            (cold if first_cold else in_sql).append((time.perf_counter() - t0) * 1000)
            conn.execute("ROLLBACK")
    conn.close()
    return {
        "calls": len(queries),
        "cold_p50_ms": statistics.median(cold),
        "cold_p99_ms": percentile(cold, 0.99),
        "sql_p50_ms": statistics.median(in_sql),
        "sql_p99_ms": percentile(in_sql, 0.99),
    }


def measure_manager(store: Store, queries: list[tuple[str, str]], before: Before | None) -> dict[str, object]:
    """`MemoryManager.search` per call (a fresh read connection each), alternating with the --baseline-src read."""
    ours: list[float] = []
    theirs: list[float] = []
    cpu_ours: list[float] = []
    cpu_theirs: list[float] = []
    differ = 0

    def run_before(q: str) -> list[tuple[object, ...]]:
        assert before
        ms, cpu_ms, hits = before.ask("manager", str(store.path), q, store.thread_id)
        theirs.append(ms)
        cpu_theirs.append(cpu_ms)
        return [tuple(hit) for hit in hits]

    for i, (_, q) in enumerate(queries):
        before_hits = run_before(q) if before and i % 2 else None
        c0, t0 = time.thread_time(), time.perf_counter()
        hits = store.manager.search(thread_id=store.thread_id, query=q)
        ours.append((time.perf_counter() - t0) * 1000)
        cpu_ours.append((time.thread_time() - c0) * 1000)
        if before and before_hits is None:
            before_hits = run_before(q)
        differ += bool(before) and _hit_rows(hits) != before_hits
    result: dict[str, object] = {
        "calls": len(ours),
        "p50_ms": statistics.median(ours),
        "p99_ms": percentile(ours, 0.99),
        "cpu_p50_ms": statistics.median(cpu_ours),
    }
    if before:
        result.update(
            before_p50_ms=statistics.median(theirs),
            before_cpu_p50_ms=statistics.median(cpu_theirs),
            ratio_p50=statistics.median(ours) / max(statistics.median(theirs), 1e-9),
            hits_differ=differ,
        )
    return result


# -- CJK tokenization: suffixes (ours) vs bigrams -------------------------------------------------------------


# -- main ---------------------------------------------------------------------------------------------------


def run(
    *,
    quick: bool,
    n_queries: int,
    seed: int,
    manager_calls: int,
    before: Before | None = None,
    dump: TextIO | None = None,
    sizes: list[int] | None = None,
) -> dict[str, object]:
    rng = random.Random(seed)
    sizes = sizes or ([1_000, 10_000] if quick else [1_000, 10_000, 100_000])
    report: dict[str, object] = {
        "seed": seed,
        "sqlite": sqlite3.sqlite_version,
        "baseline_src": str(before.src) if before else None,
        "sizes": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp))
        items = generate(sizes[-1], rng, threads=list(range(1, store.thread_id + 1)), active_thread=store.thread_id)
        for size in sizes:
            load_s = load(store, items[store.loaded : size])
            queries = make_queries(items[:size], rng, n_queries)
            result = measure(store, queries, before, dump)
            result["manager"] = measure_manager(store, queries[:manager_calls], before)
            result["cold"] = measure_cold(store, queries[:manager_calls])
            result["load_s"] = load_s
            result["db_mb"] = store.path.stat().st_size / 1e6
            sizes_now = index_bytes(store.conn)
            active = int(result["active_items"])  # type: ignore[call-overload]
            result["index_bytes_per_memory"] = {k: round(v / active, 1) for k, v in sizes_now.items()}
            report["sizes"].append(result)  # type: ignore[attr-defined]
        store.conn.close()
        store.manager.close()
    by_size = {r["items"]: r for r in report["sizes"]}  # type: ignore[attr-defined]
    report["targets"] = {
        "p50_at_10k_le_1ms": by_size[10_000]["p50_ms"] <= 1.0 if 10_000 in by_size else None,
        "p50_le_fts5_at_every_size": all(r["ratio_p50"] <= 1.0 for r in by_size.values()),
        "statements_le_3": all(r["statements_max"] <= 3 for r in by_size.values()),
        "index_bytes_le_fts5_trigram": all(
            r["index_bytes_per_memory"]["ours"] <= r["index_bytes_per_memory"]["fts5_trigram_index"]
            for r in by_size.values()
        ),
    }
    return report


def print_report(report: dict[str, object]) -> None:
    print(f"memory_search benchmark (seed {report['seed']}, SQLite {report['sqlite']})")
    header = f"{'items':>8} {'p50 ms':>8} {'p99 ms':>8} {'fts5 p50':>9} {'fts5 p99':>9} {'x p50':>6} {'x p99':>6}"
    header += f" {'cpu p50':>8} {'fts5 cpu':>8}"
    print(header + f" {'stmts max':>9} {'mean':>5} {'hits':>6} {'fts miss':>8} {'load s':>7}")
    for r in report["sizes"]:  # type: ignore[attr-defined]
        print(
            f"{r['items']:>8} {r['p50_ms']:>8.3f} {r['p99_ms']:>8.3f} "
            f"{r['fts5_p50_ms']:>9.3f} {r['fts5_p99_ms']:>9.3f} "
            f"{r['ratio_p50']:>6.2f} {r['ratio_p99']:>6.2f} {r['cpu_p50_ms']:>8.3f} {r['fts5_cpu_p50_ms']:>8.3f} "
            f"{r['statements_max']:>9} {r['statements_mean']:>5.2f} "
            f"{r['queries_with_hits']:>6} {r['fts5_empty_where_we_hit']:>8} {r['load_s']:>7.1f}"
        )
    for r in report["sizes"]:  # type: ignore[attr-defined]
        print(
            f"\nper query class at {r['items']} items "
            "(ours p50/p99 | fts5 p50/p99 | cpu p50 ours/fts5, ms | with hits: ours, fts5):"
        )
        for name, c in r["by_class"].items():
            print(
                f"  {name:<16} {c['p50_ms']:>7.3f} {c['p99_ms']:>7.3f} | {c['fts5_p50_ms']:>7.3f} "
                f"{c['fts5_p99_ms']:>7.3f} | {c['cpu_p50_ms']:>7.3f} {c['fts5_cpu_p50_ms']:>7.3f} | "
                f"{c['with_hits']:>4} {c['fts5_with_hits']:>4} of {c['queries']}"
            )
    for r in report["sizes"]:  # type: ignore[attr-defined]
        m = r["manager"]
        line = f"\nMemoryManager.search per call at {r['items']} items ({m['calls']} calls): p50 {m['p50_ms']:.3f} ms"
        line += f", p99 {m['p99_ms']:.3f} ms, CPU p50 {m['cpu_p50_ms']:.3f} ms"
        if "before_p50_ms" in m:
            line += f" | before p50 {m['before_p50_ms']:.3f} ms (CPU {m['before_cpu_p50_ms']:.3f} ms)"
            line += f", ratio {m['ratio_p50']:.2f}, hits differ {m['hits_differ']}"
        print(line)
        c = r["cold"]
        print(
            f"first search in a process at {r['items']} items ({c['calls']} queries, copy emptied before each): "
            f"p50 {c['cold_p50_ms']:.3f} ms, p99 {c['cold_p99_ms']:.3f} ms | ranking statement alone "
            f"(cached=False) p50 {c['sql_p50_ms']:.3f} ms, p99 {c['sql_p99_ms']:.3f} ms"
        )
        if "before" in r:
            b = r["before"]
            print(
                f"search_in_tx at {r['items']} items against --baseline-src: before p50 {b['p50_ms']:.3f} ms, "
                f"ratio {b['ratio_p50']:.2f}, hits differ {b['hits_differ']} of {r['queries']}, statements max "
                f"{b['statements_max']} mean {b['statements_mean']:.2f}; before p50 by class: "
                + ", ".join(f"{name} {c['before_p50_ms']:.3f}" for name, c in r["by_class"].items())
            )
    print("\ntargets: " + ", ".join(f"{k} {v}" for k, v in report["targets"].items()))  # type: ignore[attr-defined]
    for r in report["sizes"]:  # type: ignore[attr-defined]
        b = r["index_bytes_per_memory"]
        print(
            f"index bytes per active memory at {r['items']} items: ours {b['ours']:.0f}, FTS5 trigram index "
            f"{b['fts5_trigram_index']:.0f} (+ its copy of the text {b['fts5_trigram_content']:.0f})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="stop at 10k items and run fewer queries")
    parser.add_argument("--sizes", default=None, help="comma-separated store sizes (default 1000,10000,100000)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--queries", type=int, default=None, help="searches per size (default 2000, quick 400)")
    parser.add_argument("--seed", type=int, default=4, help="random seed of the generated store and queries")
    parser.add_argument("--manager-calls", type=int, default=400, help="MemoryManager.search calls per size")
    parser.add_argument(
        "--baseline-src", type=Path, default=None, help="another checkout's src: run its search side by side"
    )
    parser.add_argument("--dump", type=Path, default=None, help="write every measured search's hits to FILE")
    args = parser.parse_args(argv)
    n_queries = args.queries or (400 if args.quick else 2_000)
    before = load_before(args.baseline_src.resolve()) if args.baseline_src else None
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    try:
        report = run(
            quick=args.quick,
            n_queries=n_queries,
            seed=args.seed,
            manager_calls=args.manager_calls,
            before=before,
            dump=dump,
            sizes=[int(size) for size in args.sizes.split(",")] if args.sizes else None,
        )
    finally:
        if dump is not None:
            dump.close()
        if before is not None:
            before.close()
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=2)
        print()
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
