"""Read-only project tools (H-21): confined to the project root, bounded output, errors as observations."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from autopatch_j.agent.tools import MAX_READ_LINES, MAX_SEARCH_MATCHES, ProjectTools, Toolbox
from autopatch_j.llm.provider import ToolCall
from autopatch_j.workspace.confine import resolve_inside
from autopatch_j.workspace.errors import PathOutsideProject


@pytest.fixture
def tools(project: Path) -> ProjectTools:
    return ProjectTools(root=project)


@pytest.fixture
def box(tools: ProjectTools) -> Toolbox:
    return Toolbox(tools.tools())


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("TOP-SECRET-OUTSIDE\n", encoding="utf-8")
    return secret


def call(box: Toolbox, name: str, **arguments: object) -> str:
    return box.call(ToolCall(id="c1", name=name, arguments=json.dumps(arguments)))


def attack_paths(project: Path, outside: Path) -> list[str]:
    (project / "escape").symlink_to(outside.parent, target_is_directory=True)
    (project / "secret-link.txt").symlink_to(outside)
    (project / ".autopatch-j").mkdir(exist_ok=True)
    (project / ".autopatch-j" / "memory.db").write_bytes(b"SQLite format 3\x00")
    (project / "state-link").symlink_to(project / ".autopatch-j")
    return [
        "../outside/secret.txt",
        "src/../../outside/secret.txt",
        "../../../../../../../../etc/passwd",
        "/etc/passwd",
        str(outside),
        "escape/secret.txt",
        "secret-link.txt",
        "src/app.py\x00.txt",
        "a" * 5000,
        "/".join(["a" * 200] * 10),
        ".autopatch-j/memory.db",
        "./.autopatch-j/memory.db",
        "src/../.autopatch-j/memory.db",
        str(project / ".autopatch-j" / "memory.db"),
        "state-link/memory.db",
    ]


def test_every_attack_path_is_refused_by_the_confinement(project: Path, outside: Path) -> None:
    for path in attack_paths(project, outside):
        with pytest.raises(PathOutsideProject):
            resolve_inside(project, path)


@pytest.mark.parametrize("tool", ["read_file", "list_files", "search_project"])
def test_every_tool_refuses_every_attack_path_without_leaking(
    project: Path, outside: Path, box: Toolbox, tool: str
) -> None:
    for path in attack_paths(project, outside):
        arguments: dict[str, object] = {"path": path}
        if tool == "search_project":
            arguments["pattern"] = "SECRET"
        observation = call(box, tool, **arguments)
        assert observation.startswith("error:"), (path, observation)
        assert "TOP-SECRET-OUTSIDE" not in observation
        assert "SQLite format" not in observation


def test_paths_inside_the_project_are_accepted_including_absolute_and_inner_symlinks(project: Path) -> None:
    (project / "link-to-app.py").symlink_to(project / "src" / "app.py")
    assert resolve_inside(project, "src/app.py") == (project / "src" / "app.py").resolve()
    assert resolve_inside(project, str(project / "README.md")) == (project / "README.md").resolve()
    assert resolve_inside(project, "src/../README.md") == (project / "README.md").resolve()
    assert resolve_inside(project, "link-to-app.py") == (project / "src" / "app.py").resolve()
    assert resolve_inside(project, "") == project.resolve()


def test_list_files_skips_state_and_vcs_folders_and_does_not_follow_symlinked_folders(
    project: Path, outside: Path, tools: ProjectTools
) -> None:
    (project / ".git").mkdir()
    (project / ".autopatch-j").mkdir(exist_ok=True)
    (project / "escape").symlink_to(outside.parent, target_is_directory=True)
    listing = tools.list_files(".", depth=3)
    assert "src/" in listing and "app.py" in listing and "README.md" in listing
    assert ".git" not in listing and ".autopatch-j" not in listing
    assert "escape@" in listing and "secret.txt" not in listing


def test_read_file_numbers_lines_and_honours_a_range(tools: ProjectTools) -> None:
    text = tools.read_file("src/app.py", start_line=4, end_line=5)
    assert text.startswith("src/app.py lines 4-5 of 5:")
    assert "4| def run(cmd):" in text and "import subprocess" not in text


def test_read_file_is_bounded(project: Path, tools: ProjectTools) -> None:
    (project / "big.txt").write_text("".join(f"line {n}\n" for n in range(5000)), encoding="utf-8")
    text = tools.read_file("big.txt")
    assert f"lines 1-{MAX_READ_LINES} of 5000" in text
    assert "not shown; ask for a range" in text
    assert f"line {MAX_READ_LINES + 5}\n" not in text


def test_read_file_refuses_binary_files(project: Path, tools: ProjectTools) -> None:
    (project / "blob.bin").write_bytes(b"\x00\x01\x02")
    assert tools.read_file("blob.bin").startswith("error:")


def test_search_is_literal_case_insensitive_and_bounded(project: Path, tools: ProjectTools) -> None:
    assert tools.search_project("SHELL=true") == "src/app.py:5: return subprocess.call(cmd, shell=True)"
    assert tools.search_project("(.*)+$").startswith("no matches")  # a literal, never a regex
    (project / "many.txt").write_text("needle\n" * 500, encoding="utf-8")
    result = tools.search_project("needle")
    assert result.count("many.txt:") == MAX_SEARCH_MATCHES
    assert "stopped at" in result


def test_search_never_reads_the_state_folder_or_files_linked_from_outside(
    project: Path, outside: Path, tools: ProjectTools
) -> None:
    (project / ".autopatch-j").mkdir(exist_ok=True)
    (project / ".autopatch-j" / "notes.txt").write_text("TOP-SECRET-OUTSIDE", encoding="utf-8")
    (project / "secret-link.txt").symlink_to(outside)
    assert tools.search_project("TOP-SECRET").startswith("no matches")


def test_bad_calls_become_error_observations(box: Toolbox) -> None:
    assert call(box, "delete_file", path="x").startswith("error: unknown tool")
    assert box.call(ToolCall(id="c", name="read_file", arguments="{not json")).startswith("error:")
    assert box.call(ToolCall(id="c", name="read_file", arguments="[1]")).startswith("error:")
    assert call(box, "read_file", path=7).startswith("error:")
    assert call(box, "read_file", path="missing.py").startswith("error:")
    assert call(box, "search_project", pattern="").startswith("error:")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_special_files_are_not_read(project: Path, tools: ProjectTools) -> None:
    os.mkfifo(project / "pipe")
    assert tools.read_file("pipe").startswith("error:")
