"""`autopatch-j memory publish` as a user runs it: a real process, decisions made by turns through the CLI
(`memory ingest`, then `memory drain` with the offline extractor), files checked byte for byte."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli_batch import CliServer

DECISIONS = [
    {"user": "项目统一使用 Python 3.10+。", "assistant": "收到，项目以 Python 3.10+ 为准。"},
    {"user": "Never use wildcard imports in this codebase.", "assistant": "Understood, explicit imports only."},
]
PREFERENCE = {"user": "From now on, answer in English when I write in English.", "assistant": "Understood."}
BEGIN = "<!-- autopatch-j:begin decisions -->"
END = "<!-- autopatch-j:end decisions -->"


class Run:
    def __init__(self, done: subprocess.CompletedProcess[str]) -> None:
        self.code, self.out, self.err = done.returncode, done.stdout, done.stderr

    def json(self) -> Any:
        return json.loads(self.out)


def env_for(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    drop = (
        "AUTOPATCH_LLM_API_KEY",
        "AUTOPATCH_LLM_BASE_URL",
        "AUTOPATCH_LLM_MODEL",
        "AUTOPATCH_DEBUG",
        "AUTOPATCH_PUBLISH",
    )
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(
        {
            "AUTOPATCH_MEMORY_EXTRACTOR": "rules",
            "HOME": str(home),
            "CODEX_HOME": str(home / "codex-home"),
            "XDG_STATE_HOME": str(home / ".state"),
            "PYTHONPATH": os.pathsep.join(sys.path),
        }
    )
    env.update(extra or {})
    return env


#: One interpreter for the module's CLI calls; each call is a process of its own, forked from it
#: (tests/support/cli_batch.py).
SERVER = CliServer()


@pytest.fixture(scope="module", autouse=True)
def _cli_server() -> Iterator[None]:
    yield
    SERVER.close()


def cli(project: Path, home: Path, *args: str, env: Mapping[str, str] | None = None) -> Run:
    done = SERVER.run(["-C", str(project), *args], env=env_for(home, env), timeout=120)
    return Run(subprocess.CompletedProcess(args, done.code, done.out, done.err))


def say(project: Path, home: Path, *turns: Mapping[str, str], drain: bool = True) -> Run:
    """Turns through the CLI, as a user's conversation: ingest, then (by default) drain offline."""
    talk = project.parent / f"talk-{len(list(project.parent.glob('talk-*')))}.jsonl"
    talk.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in turns), encoding="utf-8")
    assert cli(project, home, "memory", "ingest", str(talk)).code == 0
    if not drain:
        return Run(subprocess.CompletedProcess([], 0, "", ""))
    drained = cli(project, home, "memory", "drain", "--json")
    assert drained.code == 0, drained.err
    return drained


def decided(project: Path, home: Path) -> dict[str, int]:
    """content → memory id of the active decisions."""
    items = cli(project, home, "memory", "list", "--json").json()
    return {i["content"]: i["id"] for i in items if i["kind"] == "project_decision"}


def block_of(data: bytes, newline: bytes = b"\n") -> bytes:
    start = data.index(BEGIN.encode())
    end = data.index(END.encode()) + len(END)
    return data[start:end]


def test_publish_writes_the_decisions_grouped_with_ids_and_twice_changes_nothing(project: Path, home: Path) -> None:
    say(project, home, *DECISIONS, PREFERENCE)
    ids = decided(project, home)
    assert len(ids) == 2
    first = cli(project, home, "memory", "publish", "--json")
    assert first.code == 0, first.err
    report = first.json()
    assert [(f["target"], f["action"], f["written"]) for f in report["files"]] == [
        ("agents", "created", True),
        ("claude", "created", True),
    ]
    assert report["total"] == report["shown"] == 2 and report["omitted"] == 0
    agents, claude = (project / "AGENTS.md").read_bytes(), (project / "CLAUDE.md").read_bytes()
    assert agents == claude
    text = agents.decode()
    assert text.startswith(BEGIN + "\n<!-- managed by autopatch-j, edit with `autopatch-j memory …`")
    assert text.endswith(END + "\n")
    for content, memory_id in ids.items():
        assert f"- [#{memory_id}] {content}\n" in text
    assert "### python version\n" in text and "### wildcard import\n" in text  # grouped by subject
    assert text.index("### python version") < text.index("### wildcard import")
    assert "answer in English" not in text  # a preference never goes to the project's files
    before = {name: (project / name).stat() for name in ("AGENTS.md", "CLAUDE.md")}
    again = cli(project, home, "memory", "publish", "--json").json()
    assert [f["action"] for f in again["files"]] == ["unchanged", "unchanged"] and not again["stale"]
    for name, was in before.items():
        now = (project / name).stat()
        assert (now.st_ino, now.st_mtime_ns) == (was.st_ino, was.st_mtime_ns), name  # no write at all


EXISTING = {
    "crlf_with_similar_headings": (
        b"# Agents\r\n\r\n## Project decisions\r\nOurs, by hand.\r\n<!-- autopatch-j is great -->\r\n"
        b"```\r\n<!-- autopatch-j:begin decisions -->\r\n```\r\n"
    ),
    "no_trailing_newline": "# Notes\n\n## Decisions (by hand)\n- keep it simple — 简单".encode(),
    "utf8_without_bom": "# Règles\n\nUtilisez des espaces. 🚀\n\n".encode(),
    "utf8_with_bom": "\ufeff# With a byte-order mark\n\ntext\n".encode(),
    "mixed_endings": b"a\r\nb\nc\r\n",
    "empty": b"",
}


@pytest.mark.parametrize("name", sorted(EXISTING))
def test_every_byte_outside_the_block_is_kept_and_remove_restores_the_file(
    project: Path, home: Path, name: str
) -> None:
    original = EXISTING[name]
    if name == "crlf_with_similar_headings":
        original = original.replace(b"```\r\n<!-- autopatch-j:begin decisions -->\r\n```\r\n", b"```\r\nx\r\n```\r\n")
    path = project / "AGENTS.md"
    path.write_bytes(original)
    path.chmod(0o640)
    say(project, home, *DECISIONS)
    published = cli(project, home, "memory", "publish", "--to", "agents")
    assert published.code == 0, published.err
    data = path.read_bytes()
    assert data.startswith(original)
    crlf = name.startswith("crlf") or name == "mixed_endings"
    block = block_of(data)
    assert (b"\r\n" in block) is crlf and (b"\n" in block.replace(b"\r\n", b"")) is not crlf
    if original and not original.endswith(b"\n"):
        assert not data.endswith(b"\n")  # no final newline before, none after
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert not (project / "CLAUDE.md").exists()
    removed = cli(project, home, "memory", "publish", "--to", "agents", "--remove", "--json")
    assert removed.code == 0, removed.err
    if original:
        assert path.read_bytes() == original
        assert removed.json()["files"][0]["action"] == "removed"
    else:
        assert not path.exists() and removed.json()["files"][0]["action"] == "deleted"


def test_a_moved_block_is_updated_in_place_and_text_after_it_is_kept(project: Path, home: Path) -> None:
    say(project, home, DECISIONS[0])
    path = project / "AGENTS.md"
    path.write_bytes(b"# Top\n")
    assert cli(project, home, "memory", "publish", "--to", "agents").code == 0
    mine = path.read_bytes() + b"\n## Added later by hand\nkeep me\n"
    path.write_bytes(mine)
    say(project, home, DECISIONS[1])
    assert cli(project, home, "memory", "publish", "--to", "agents").code == 0
    data = path.read_bytes()
    assert data.startswith(b"# Top\n\n" + BEGIN.encode()) and data.endswith(b"\n## Added later by hand\nkeep me\n")
    assert b"wildcard imports" in block_of(data)
    assert cli(project, home, "memory", "publish", "--to", "agents", "--remove").code == 0
    assert path.read_bytes() == b"# Top\n\n## Added later by hand\nkeep me\n"


def test_a_forgotten_decision_disappears_on_the_next_publish_and_check_says_when(project: Path, home: Path) -> None:
    fresh = cli(project, home, "memory", "publish", "--check")
    assert fresh.code == 0 and not (project / "AGENTS.md").exists()  # nothing to publish: up to date
    say(project, home, *DECISIONS)
    stale = cli(project, home, "memory", "publish", "--check", "--json")
    assert stale.code == 1 and stale.json()["stale"] and not (project / "AGENTS.md").exists()
    assert cli(project, home, "memory", "publish").code == 0
    assert cli(project, home, "memory", "publish", "--check").code == 0
    wildcard = next(i for c, i in decided(project, home).items() if "wildcard" in c)
    assert cli(project, home, "memory", "forget", str(wildcard)).code == 0
    check = cli(project, home, "memory", "publish", "--check")
    assert check.code == 1 and "AGENTS.md is stale" in check.out
    assert cli(project, home, "memory", "publish").code == 0
    for name in ("AGENTS.md", "CLAUDE.md"):
        text = (project / name).read_text(encoding="utf-8")
        assert f"[#{wildcard}]" not in text and "wildcard" not in text and "Python 3.10+" in text
    assert cli(project, home, "memory", "publish", "--check").code == 0
    assert cli(project, home, "memory", "clear", "--confirm").code == 0
    assert cli(project, home, "memory", "publish", "--check").code == 1
    assert cli(project, home, "memory", "publish").code == 0
    assert "_No active decisions._" in (project / "AGENTS.md").read_text(encoding="utf-8")


def test_a_superseding_decision_replaces_the_line(project: Path, home: Path) -> None:
    say(project, home, DECISIONS[0])
    assert cli(project, home, "memory", "publish", "--to", "agents").code == 0
    say(project, home, {"user": "我们决定以后改用 Python 3.12。", "assistant": "好的，之后都按 Python 3.12 来。"})
    assert cli(project, home, "memory", "publish", "--to", "agents").code == 0
    text = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert "Python 3.12" in text and "Python 3.10+" not in text


def test_dry_run_prints_a_unified_diff_and_writes_nothing(project: Path, home: Path) -> None:
    (project / "CLAUDE.md").write_bytes(b"# Claude\n")
    say(project, home, *DECISIONS)
    dry = cli(project, home, "memory", "publish", "--dry-run")
    assert dry.code == 0, dry.err
    assert "--- /dev/null\n+++ b/AGENTS.md\n" in dry.out and "--- a/CLAUDE.md\n+++ b/CLAUDE.md\n" in dry.out
    assert f"+{BEGIN}\n" in dry.out and " # Claude\n" in dry.out
    assert not (project / "AGENTS.md").exists() and (project / "CLAUDE.md").read_bytes() == b"# Claude\n"


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("# Règles\n".encode("latin-1"), "is not UTF-8"),
        ("x\n".encode("utf-16"), "is not UTF-8"),
        (f"{BEGIN}\n- old\n{END}\n\n{BEGIN}\n- again\n{END}\n".encode(), "duplicated"),
        (f"{BEGIN}\n- old\n".encode(), "missing its other half"),
        (f"{END}\n- old\n{BEGIN}\n".encode(), "comes before"),
        (b"<!-- autopatch-j:begin decisions\n- old\n<!-- autopatch-j:end decisions -->\n", "is not one"),
    ],
)
def test_a_file_it_cannot_edit_safely_is_refused_in_one_sentence_and_left_untouched(
    project: Path, home: Path, content: bytes, words: str
) -> None:
    say(project, home, DECISIONS[0])
    path = project / "AGENTS.md"
    path.write_bytes(content)
    for args in ((), ("--remove",), ("--check",)):
        result = cli(project, home, "memory", "publish", "--to", "agents", *args)
        assert result.code == 1, (args, result.out)
        assert result.err.startswith("error: ") and result.err.count("\n") == 1 and words in result.err
        assert "Traceback" not in result.err and path.read_bytes() == content


@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="needs /proc: a folder no one can create")
def test_a_folder_it_cannot_create_is_refused_in_one_sentence(project: Path, home: Path) -> None:
    say(project, home, PREFERENCE)
    unmakeable = {"CODEX_HOME": "/proc/self/fdinfo/autopatch-j"}  # even root cannot create a folder there
    result = cli(project, home, "memory", "publish", "--user", "--to", "agents", env=unmakeable)
    assert result.code == 1, result.out
    assert result.err.startswith("error: ") and result.err.count("\n") == 1, result.err
    assert "/fdinfo/autopatch-j" in result.err and "Traceback" not in result.err


def test_user_puts_preferences_in_the_user_level_files_only(project: Path, home: Path) -> None:
    say(project, home, *DECISIONS, PREFERENCE)
    codex, claude = home / "codex-home" / "AGENTS.md", home / ".claude" / "CLAUDE.md"
    claude.parent.mkdir()
    claude.write_bytes(b"# My global notes\n")
    done = cli(project, home, "memory", "publish", "--user", "--json")
    assert done.code == 0, done.err
    report = done.json()
    assert report["scope"] == "user" and report["kind"] == "user_preference" and report["total"] == 1
    assert [Path(f["path"]) for f in report["files"]] == [codex, claude]
    for path in (codex, claude):
        text = path.read_text(encoding="utf-8")
        assert f"<!-- autopatch-j:begin preferences {project.resolve()} -->" in text
        assert "answer in English" in text and "wildcard" not in text and "Python 3.10" not in text
    assert claude.read_bytes().startswith(b"# My global notes\n\n<!-- autopatch-j:begin preferences")
    assert not (project / "AGENTS.md").exists() and not (project / "CLAUDE.md").exists()
    project_run = cli(project, home, "memory", "publish", "--json").json()
    assert project_run["kind"] == "project_decision"
    assert "answer in English" not in (project / "AGENTS.md").read_text(encoding="utf-8")
    other = project.parent / "other-project"
    other.mkdir()
    say(other, home, {"user": "以后回答先给结论，再展开细节。", "assistant": "好的。"})
    assert cli(other, home, "memory", "publish", "--user", "--to", "claude").code == 0
    text = claude.read_text(encoding="utf-8")
    assert "answer in English" in text and "先给结论" in text  # two projects, two blocks
    assert cli(project, home, "memory", "publish", "--user", "--remove").code == 0
    assert not codex.exists()
    assert "answer in English" not in claude.read_text(encoding="utf-8") and "先给结论" in claude.read_text(
        encoding="utf-8"
    )
    assert cli(other, home, "memory", "publish", "--user", "--remove", "--to", "claude").code == 0
    assert claude.read_bytes() == b"# My global notes\n"


def test_drain_publishes_only_when_the_setting_says_so(project: Path, home: Path) -> None:
    say(project, home, DECISIONS[0])
    assert not (project / "AGENTS.md").exists() and not (project / "CLAUDE.md").exists()  # off by default
    (project / ".autopatch-j" / "config.toml").write_text('publish = ["agents"]\n', encoding="utf-8")
    drained = say(project, home, DECISIONS[1]).json()
    assert [(f["target"], f["action"]) for f in drained["published"]] == [("agents", "updated")] or [
        (f["target"], f["action"]) for f in drained["published"]
    ] == [("agents", "created")]
    assert drained["publish_error"] is None
    text = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert "Python 3.10+" in text and "wildcard" in text
    assert not (project / "CLAUDE.md").exists()
    text_run = cli(project, home, "memory", "drain")
    assert text_run.code == 0 and "Published 2 decision(s)" in text_run.out


@pytest.mark.parametrize(
    ("setting", "env", "words"),
    [
        ('publish = "yes"\n', {}, "`publish` in"),
        ('publish = ["cursor"]\n', {}, "'cursor' is not a file it can publish to"),
        ("", {"AUTOPATCH_PUBLISH": "agents,nope"}, "AUTOPATCH_PUBLISH"),
    ],
)
def test_a_bad_publish_setting_is_one_sentence_and_exit_5(
    project: Path, home: Path, setting: str, env: dict[str, str], words: str
) -> None:
    say(project, home, DECISIONS[0], drain=False)
    (project / ".autopatch-j" / "config.toml").write_text(setting, encoding="utf-8")
    result = cli(project, home, "memory", "drain", env=env)
    assert result.code == 5 and result.err.startswith("error: ") and result.err.count("\n") == 1, result.err
    assert words in result.err
    assert cli(project, home, "memory", "status", "--json").json()["jobs"].get("pending")  # nothing drained


def test_two_publishers_at_once_leave_one_complete_block(project: Path, home: Path) -> None:
    say(project, home, *DECISIONS)
    path = project / "AGENTS.md"
    original = b"# Shared file\r\nkeep\r\n"
    command = [sys.executable, "-m", "autopatch_j", "-C", str(project), "memory", "publish", "--to", "agents"]
    expected: bytes | None = None
    for _ in range(4):
        path.write_bytes(original)
        runs = [
            subprocess.Popen(command, env=env_for(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(2)
        ]
        seen: set[bytes] = set()
        while any(p.poll() is None for p in runs):
            seen.add(path.read_bytes())
        results = [(p.returncode, p.communicate()[1].decode()) for p in runs]
        for code, err in results:
            assert code == 0 or (code == 1 and "changed while autopatch-j was publishing" in err), err
        assert any(code == 0 for code, _ in results)
        data = path.read_bytes()
        expected = expected or data
        assert data == expected and data.startswith(original) and data.count(BEGIN.encode()) == 1
        assert seen <= {original, expected}, "a reader saw a half-written file"
        assert sorted(p.name for p in project.iterdir() if p.name.startswith(".AGENTS")) == []


def test_remove_needs_no_memory_and_works_on_a_damaged_store(project: Path, home: Path) -> None:
    say(project, home, DECISIONS[0])
    (project / "AGENTS.md").write_bytes(b"# mine\n")
    assert cli(project, home, "memory", "publish", "--to", "agents").code == 0
    (project / ".autopatch-j" / "memory.db").write_bytes(b"this is not a database" * 100)
    refused = cli(project, home, "memory", "publish", "--to", "agents")
    assert refused.code in (3, 4) and refused.err.startswith("error: ")
    removed = cli(project, home, "memory", "publish", "--to", "agents", "--remove")
    assert removed.code == 0, removed.err
    assert (project / "AGENTS.md").read_bytes() == b"# mine\n"


def test_codex_home_defaults_to_dot_codex_and_a_nested_claude_md_is_used(project: Path, home: Path) -> None:
    say(project, home, DECISIONS[0], PREFERENCE)
    done = cli(project, home, "memory", "publish", "--user", "--to", "agents", env={"CODEX_HOME": ""})
    assert done.code == 0, done.err
    assert "answer in English" in (home / ".codex" / "AGENTS.md").read_text(encoding="utf-8")
    assert not (home / "codex-home").exists()
    nested = project / ".claude" / "CLAUDE.md"
    nested.parent.mkdir()
    nested.write_bytes(b"# nested\n")
    assert cli(project, home, "memory", "publish", "--to", "claude").code == 0
    assert nested.read_bytes().startswith(b"# nested\n\n" + BEGIN.encode()) and not (project / "CLAUDE.md").exists()
