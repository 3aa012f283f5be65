"""`memory status`, `--version` and `--help` import only what they need (issue 16: CLI cold start).

Each command runs in a fresh interpreter through the real entry point; the test then lists what is
in `sys.modules`. Not a timing: bench/cold_start_bench.py measures the time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.memory.item_factory import add_item

# Packages no one of these commands needs: the LLM SDK, the cloud stack, the REPL, MCP, the stemmer.
HEAVY_PACKAGES = (
    "openai",
    "httpx",
    "pydantic",
    "pydantic_settings",
    "fastapi",
    "starlette",
    "sqlalchemy",
    "alembic",
    "uvicorn",
    "psycopg",
    "prompt_toolkit",
    "mcp",
    "Stemmer",
)
# Our own modules that belong to other commands: the agent, the LLM layer, the cloud, the other
# command modules, and Memory's search and indexing.
OTHER_COMMANDS = (
    "autopatch_j.agent",
    "autopatch_j.llm",
    "autopatch_j.cloud",
    "autopatch_j.mcp_server",
    "autopatch_j.workspace",
    "autopatch_j.transcripts",
    "autopatch_j.cli.ask_cmds",
    "autopatch_j.cli.eval_cmds",
    "autopatch_j.cli.search_cmds",
    "autopatch_j.cli.pipeline_cmds",
    "autopatch_j.cli.import_cmds",
    "autopatch_j.cli.hook_cmds",
    "autopatch_j.cli.mcp_cmds",
    "autopatch_j.cli.cloud",
    "autopatch_j.cli.repl",
    "autopatch_j.memory.search",
    "autopatch_j.memory.terms",
    "autopatch_j.memory.words",
    "autopatch_j.memory.pipeline",
    "autopatch_j.memory.clear",
    "autopatch_j.memory.export",
    # rich: styled plain lines are written by app/render.py itself; rich is for tables and live output
    "rich",
)

_SCRIPT = """
import json, sys
from autopatch_j.cli.launch import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("\\n" + json.dumps(sorted(sys.modules)))
"""


def _modules_after(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if n in modules or any(m.startswith(n + ".") for m in modules))


@pytest.mark.parametrize("args", [["memory", "status"], ["memory", "status", "--json"], ["--version"]])
def test_the_command_imports_no_heavy_package_and_no_other_command(tmp_path: Path, args: list[str]) -> None:
    modules = _modules_after(args, tmp_path)
    assert "autopatch_j.cli.launch" in modules  # the script really ran the entry point
    assert _loaded(modules, HEAVY_PACKAGES) == []
    assert _loaded(modules, OTHER_COMMANDS) == []


@pytest.mark.parametrize("extractor", ["rules", " llm "])
def test_an_extractor_named_in_the_environment_loads_no_settings_framework(tmp_path: Path, extractor: str) -> None:
    """`AUTOPATCH_MEMORY_EXTRACTOR` is any text (checked where the extractor is chosen), so naming it
    costs `memory status` no pydantic: a hook or MCP setup that sets it starts as fast as one that
    does not."""
    modules = _modules_after(["memory", "status"], tmp_path, {"AUTOPATCH_MEMORY_EXTRACTOR": extractor})
    assert "autopatch_j.cli.launch" in modules
    assert _loaded(modules, HEAVY_PACKAGES) == []


def test_memory_status_loads_only_the_memory_group(tmp_path: Path) -> None:
    modules = _modules_after(["memory", "status"], tmp_path)
    assert "autopatch_j.cli.status_cmd" in modules and "autopatch_j.memory.status" in modules
    assert (tmp_path / ".autopatch-j" / "memory.db").exists()  # and it did open (create) the Memory


@pytest.mark.parametrize("args", [["memory", "status"], ["memory", "status", "--json"]])
def test_memory_status_starts_without_the_command_framework(tmp_path: Path, args: list[str]) -> None:
    """The command run most often skips typer, click and the command tree (cli/launch.py)."""
    modules = _modules_after(args, tmp_path)
    assert _loaded(modules, ("typer", "click", "autopatch_j.cli.app", "autopatch_j.cli.memory_cmds")) == []


def _entry(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autopatch_j", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_memory_status_says_the_same_through_either_start(tmp_path: Path) -> None:
    """The direct start and the full application (reached with `-C`) print the same text and JSON."""
    for args in (["memory", "status"], ["memory", "status", "--json"]):
        direct = _entry(args, tmp_path)
        full = _entry(["-C", str(tmp_path), *args], tmp_path)
        assert direct.returncode == full.returncode == 0, (direct.stderr, full.stderr)
        assert direct.stdout == full.stdout
    assert json.loads(direct.stdout)["health"] == "healthy"


def test_memory_status_fails_in_one_sentence_through_the_direct_start(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / ".autopatch-j").write_text("a file where the state directory should be", encoding="utf-8")
    direct = _entry(["memory", "status"], blocked)
    full = _entry(["-C", str(blocked), "memory", "status"], blocked)
    assert direct.returncode == full.returncode != 0
    assert direct.stderr == full.stderr and direct.stderr.startswith("error: ") and "Traceback" not in direct.stderr


def test_help_still_lists_every_command_without_the_heavy_packages(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "autopatch_j", "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    for name in ("memory", "new", "gitignore", "reset", "ask", "patch", "eval", "mcp", "cloud", "hook"):
        assert f"  {name} " in done.stdout, name
    assert _loaded(_modules_after(["--help"], tmp_path), HEAVY_PACKAGES) == []


# A cold search's Python heap at its peak (tracemalloc), the interpreter's own allocations included.
_TRACED = """
import json, sys, tracemalloc
tracemalloc.start()
from autopatch_j.cli.launch import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("\\n" + json.dumps(tracemalloc.get_traced_memory()[1]))
"""
#: 11.5 MB measured; the word tables a query reads parsed whole held 33 MB more (frequencies.txt alone 6).
SEARCH_HEAP_BUDGET = 16 * 2**20


@pytest.mark.parametrize(("query", "title"), [("conclusion", "回答先给结论"), ("部署", "Deploy with helm")])
def test_a_cold_search_reads_the_word_tables_it_asks_not_whole(tmp_path: Path, query: str, title: str) -> None:
    """A question in the other language finds the memory through the bilingual table and the general
    frequencies, and the process's heap stays far below what parsing those tables costs: a lookup
    reads the lines it needs (memory/text/sorted_table.py)."""
    manager = MemoryManager(root=tmp_path)
    assert manager.open().ok
    add_item(manager, kind=MemoryKind.USER_PREFERENCE, title="回答先给结论", content="以后回答先给结论，再给细节。")
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="Deploy with helm", content="We deploy with helm charts.")
    manager.close()
    done = subprocess.run(
        [sys.executable, "-c", _TRACED, "memory", "search", query, "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    *answer, peak = done.stdout.strip().splitlines()
    assert [hit["title"] for hit in json.loads("\n".join(answer))] == [title]
    assert int(peak) < SEARCH_HEAP_BUDGET, f"a cold search's heap peaked at {int(peak) / 2**20:.1f} MB"


def test_an_english_search_over_chinese_memories_does_not_load_the_segmenter(tmp_path: Path) -> None:
    """How an English question's hits matched is read from their Latin words first: a hit whose title
    also holds Chinese is labelled without loading the Chinese segmenter (≈ 0.1 s of CPU), so a
    search of a store whose memories hold Chinese costs what it costs on an empty one."""
    manager = MemoryManager(root=tmp_path)
    assert manager.open().ok
    add_item(
        manager, kind=MemoryKind.PROJECT_DECISION, title="Deploy with helm（部署用 helm）", content="部署前先跑测试。"
    )
    manager.close()
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, "memory", "search", "deploy helm", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    *answer, modules = done.stdout.strip().splitlines()
    assert [(hit["title"], hit["match"]) for hit in json.loads("\n".join(answer))] == [
        ("Deploy with helm（部署用 helm）", "words")
    ]
    assert _loaded(set(json.loads(modules)), ("rjieba",)) == []
