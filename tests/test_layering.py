"""Layering: every package imports only what docs/architecture.md allows.

The rules are read from the tables in docs/architecture.md (written down once); every module's
imports are read with `ast`: `import`, `from … import` (relative ones resolved), imports inside
functions or under `TYPE_CHECKING`, and `importlib.import_module` / `__import__` with a literal name.
The checker itself is tested on synthetic sources, so it cannot be a check that cannot fail.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "autopatch_j"
DOC = ROOT / "docs" / "architecture.md"
PACKAGE = "autopatch_j"
NONE = "—"


@dataclass(frozen=True, slots=True)
class Rules:
    allowed: Mapping[str, frozenset[str]]  # package -> the packages of ours it may import
    sdk_owners: Mapping[str, frozenset[str]]  # third-party library -> the only packages that may import it


@dataclass(frozen=True, slots=True)
class Violation:
    module: str  # e.g. "autopatch_j/memory/manager.py"
    line: int
    imported: str
    why: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line} imports {self.imported} ({self.why})"


# -- the rules, from the document -------------------------------------------------------------------


def _table(text: str, header: str) -> list[list[str]]:
    """The body rows of the Markdown table whose header row starts with `header`, as cells."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _names(cell: str) -> frozenset[str]:
    return frozenset() if cell == NONE else frozenset(re.findall(r"`([^`]+)`", cell))


def parse_rules(text: str) -> Rules:
    allowed = {}
    for cells in _table(text, "| Package |"):
        [name] = _names(cells[0])
        allowed[name] = _names(cells[-1])
    owners = {}
    for cells in _table(text, "| Library |"):
        [library] = _names(cells[0])
        owners[library] = _names(cells[-1])
    return Rules(allowed=allowed, sdk_owners=owners)


# -- the imports, from the source -------------------------------------------------------------------


def _dotted(relative: Path) -> tuple[str, bool]:
    """(`autopatch_j.memory.manager`, is_package) of a file path relative to `src/`."""
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def imported_names(source: str, module: str, *, is_package: bool) -> Iterator[tuple[int, str]]:
    """(line, absolute dotted name) of everything `source` imports, wherever the statement is."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - (node.level - 1)])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            yield node.lineno, base
            for alias in node.names:  # `from autopatch_j import memory` imports a package
                if alias.name != "*":
                    yield node.lineno, f"{base}.{alias.name}"
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                yield node.lineno, node.args[0].value


def check_source(source: str, relative: Path, rules: Rules, units: frozenset[str]) -> list[Violation]:
    """The imports of one module (path relative to `src/`) that its package's row does not allow."""
    module, is_package = _dotted(relative)
    unit = _unit(relative)
    allowed = rules.allowed.get(unit, frozenset())
    found: dict[tuple[int, str], Violation] = {}
    for line, name in imported_names(source, module, is_package=is_package):
        parts = name.split(".")
        if parts[0] == PACKAGE:
            if len(parts) < 2:
                continue
            target = parts[1] if parts[1] in units else "__init__"
            if target not in (unit, "__init__") and target not in allowed:  # the root: `__version__`
                why = f"{unit} may import {', '.join(sorted(allowed)) or 'nothing of ours'}"
                found.setdefault((line, target), Violation(relative.as_posix(), line, name, why))
        elif parts[0] in rules.sdk_owners and unit not in rules.sdk_owners[parts[0]]:
            why = f"only {', '.join(sorted(rules.sdk_owners[parts[0]]))} may import {parts[0]}"
            found.setdefault((line, parts[0]), Violation(relative.as_posix(), line, name, why))
    return list(found.values())


def _unit(relative: Path) -> str:
    """The top-level package (or module) a file under `src/` belongs to."""
    parts = relative.parts
    return parts[1] if len(parts) > 2 else Path(parts[1]).stem


def source_units() -> frozenset[str]:
    return frozenset(_unit(path.relative_to(SRC.parent)) for path in SRC.rglob("*.py"))


def violations_in(unit: str, rules: Rules) -> list[Violation]:
    units = source_units()
    found = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC.parent)
        if _unit(relative) == unit:
            found += check_source(path.read_text(encoding="utf-8"), relative, rules, units)
    return found


RULES = parse_rules(DOC.read_text(encoding="utf-8"))
MEMORY_API = "autopatch_j.memory"
MEMORY_API_LINE = "**Memory through its public API only:**"


def memory_api_users(text: str) -> frozenset[str]:
    """The packages the document says import Memory only through `autopatch_j.memory`."""
    line = next(line for line in text.splitlines() if line.startswith(MEMORY_API_LINE))
    return _names(line.removeprefix(MEMORY_API_LINE).strip())


def internals_imported(
    source: str, relative: Path, modules: frozenset[str], package: str = "memory"
) -> list[Violation]:
    """The imports of a module of `package`'s own modules (`autopatch_j.<package>.<module>`)."""
    module, is_package = _dotted(relative)
    found: dict[int, Violation] = {}
    for line, name in imported_names(source, module, is_package=is_package):
        parts = name.split(".")
        if parts[:2] == ["autopatch_j", package] and len(parts) > 2 and parts[2] in modules:
            why = f"import {package}'s public API, `from autopatch_j.{package} import …`"
            found.setdefault(line, Violation(relative.as_posix(), line, name, why))
    return list(found.values())


def memory_internals_imported(source: str, relative: Path, memory_modules: frozenset[str]) -> list[Violation]:
    """The imports of a module of Memory's own modules (`autopatch_j.memory.<module>`)."""
    return internals_imported(source, relative, memory_modules, "memory")


def package_modules(package: str) -> frozenset[str]:
    """The modules and subpackages directly inside `src/autopatch_j/<package>/`."""
    return frozenset(
        p.stem if p.is_file() else p.name
        for p in (SRC / package).iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()
    )


def memory_modules() -> frozenset[str]:
    return package_modules("memory")


PUBLIC_API_LINE = "**Only through their public API, from every other package:**"


def public_api_packages(text: str) -> frozenset[str]:
    """The packages the document says every other package imports only through their `__init__`."""
    line = next(line for line in text.splitlines() if line.startswith(PUBLIC_API_LINE))
    return _names(line.removeprefix(PUBLIC_API_LINE).strip())


# -- the real code ----------------------------------------------------------------------------------


def test_the_table_places_every_package() -> None:
    assert source_units() == set(RULES.allowed), "place every package of src/autopatch_j in docs/architecture.md"
    for unit, allowed in RULES.allowed.items():
        assert allowed <= set(RULES.allowed), f"{unit}'s row names a package that does not exist"


@pytest.mark.parametrize("unit", sorted(source_units()))
def test_each_package_imports_only_what_its_row_allows(unit: str) -> None:
    violations = violations_in(unit, RULES)
    assert not violations, "layering broken (docs/architecture.md):\n" + "\n".join(map(str, violations))


FORBIDDEN = {  # issue 16, checked against the table so one edited cell cannot undo them
    "memory": {"agent", "cli", "cloud", "workspace", "quality", "mcp_server", "transcripts"},
    "workspace": {"memory"},
    "llm": {"memory"},
    "agent": {"cli"},
    "cloud": {"cli", "agent"},
    "app": {"cli", "mcp_server"},  # the service layer under the faces
    "mcp_server": {"cli"},  # one face never leans on another
    "state_dir": set(RULES.allowed),
    "configuration": set(RULES.allowed),
    "runtime": set(RULES.allowed),
}


@pytest.mark.parametrize("unit", sorted(FORBIDDEN))
def test_the_issue_16_rules_hold_in_the_table(unit: str) -> None:
    assert not RULES.allowed[unit] & FORBIDDEN[unit]
    assert RULES.sdk_owners["openai"] == {"llm"}


MEMORY_API_USERS = memory_api_users(DOC.read_text(encoding="utf-8"))


@pytest.mark.parametrize("unit", sorted(MEMORY_API_USERS))
def test_the_named_packages_import_only_memorys_public_api(unit: str) -> None:
    found = [
        violation
        for path in sorted((SRC / unit).rglob("*.py"))
        for violation in memory_internals_imported(
            path.read_text(encoding="utf-8"), path.relative_to(SRC.parent), memory_modules()
        )
    ]
    assert not found, "Memory internals imported:\n" + "\n".join(map(str, found))


PUBLIC_API_PACKAGES = public_api_packages(DOC.read_text(encoding="utf-8"))


@pytest.mark.parametrize("package", sorted(PUBLIC_API_PACKAGES))
def test_other_packages_import_only_the_public_api(package: str) -> None:
    modules = package_modules(package)
    found = [
        violation
        for path in sorted(SRC.rglob("*.py"))
        if _unit(path.relative_to(SRC.parent)) != package
        for violation in internals_imported(
            path.read_text(encoding="utf-8"), path.relative_to(SRC.parent), modules, package
        )
    ]
    assert not found, f"{package} internals imported:\n" + "\n".join(map(str, found))


@pytest.mark.parametrize("package", sorted(PUBLIC_API_PACKAGES))
def test_each_public_api_resolves_every_name_and_loads_nothing_up_front(package: str) -> None:
    import subprocess
    import sys

    code = (
        f"import sys, autopatch_j.{package} as m\n"
        f"before = sorted(n for n in sys.modules if n.startswith('autopatch_j.{package}.'))\n"
        "missing = [n for n in m.__all__ if getattr(m, n, None) is None]\n"
        "print(before, missing, len(m.__all__) > 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[] [] True"


def test_the_public_api_checker_names_internal_imports() -> None:
    source = "from autopatch_j.cloud import Worker\nfrom autopatch_j.cloud.worker import Worker\n"
    found = internals_imported(source, Path("autopatch_j/cli/x.py"), package_modules("cloud"), "cloud")
    assert [(v.line, v.imported) for v in found] == [(2, "autopatch_j.cloud.worker")]
    assert {"cli", "cloud", "quality", "transcripts"} <= PUBLIC_API_PACKAGES


def test_memorys_public_api_resolves_every_name_and_loads_nothing_up_front() -> None:
    import subprocess
    import sys

    code = (
        "import sys, autopatch_j.memory as m\n"
        "before = sorted(n for n in sys.modules if n.startswith('autopatch_j.memory.'))\n"
        "missing = [n for n in m.__all__ if getattr(m, n, None) is None]\n"
        "print(before, missing, 'MemoryManager' in m.__all__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[] [] True"


# -- the checker can fail -----------------------------------------------------------------------------

SYNTHETIC = """
from __future__ import annotations
import importlib
from typing import TYPE_CHECKING

import autopatch_j.cli.app
from autopatch_j.agent.host import AgentHost
from ..workspace import store
from .. import quality
from autopatch_j import cloud
from autopatch_j.llm.provider import Purpose
from autopatch_j.state_dir import STATE_DIR_NAME
from . import records
from .errors import MemoryError_

if TYPE_CHECKING:
    from autopatch_j.transcripts.importer import Importer


def later():
    from autopatch_j.mcp_server import server
    import openai
    return importlib.import_module("autopatch_j.cli.repl")
"""


def test_the_checker_names_each_offending_module_and_import() -> None:
    found = check_source(SYNTHETIC, Path("autopatch_j/memory/fake.py"), RULES, source_units())
    by_line = {v.line: v.imported for v in found}
    assert by_line == {
        6: "autopatch_j.cli.app",
        7: "autopatch_j.agent.host",
        8: "autopatch_j.workspace",  # relative, two levels up
        9: "autopatch_j.quality",  # `from .. import quality`
        10: "autopatch_j.cloud",  # `from autopatch_j import cloud`
        17: "autopatch_j.transcripts.importer",  # under TYPE_CHECKING
        21: "autopatch_j.mcp_server",  # inside a function
        22: "openai",  # a third-party SDK outside its package
        23: "autopatch_j.cli.repl",  # importlib with a literal name
    }
    assert (
        "autopatch_j/memory/fake.py:7 imports autopatch_j.agent.host "
        "(memory may import llm, runtime, state_dir, strict_model)" in {str(v) for v in found}
    )


def test_the_table_has_no_cycle() -> None:
    def reaches(start: str, goal: str, seen: frozenset[str] = frozenset()) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in RULES.allowed[start])

    assert [unit for unit in RULES.allowed if reaches(unit, unit)] == []


def test_the_mcp_server_would_be_caught_importing_the_cli() -> None:
    source = "from autopatch_j.cli.memory_cmds import item_payload\nfrom autopatch_j.app.payloads import item_payload\n"
    found = check_source(source, Path("autopatch_j/mcp_server/x.py"), RULES, source_units())
    assert [v.imported for v in found] == ["autopatch_j.cli.memory_cmds"]


def test_the_memory_api_checker_names_internal_imports() -> None:
    source = (
        "from autopatch_j.memory import MemoryManager, MemoryKind\n"
        "from autopatch_j.memory.records import Item\n"
        "from autopatch_j.memory import search\n"
        "def later():\n    import autopatch_j.memory.worker\n"
    )
    found = memory_internals_imported(source, Path("autopatch_j/agent/x.py"), memory_modules())
    assert [(v.line, v.imported) for v in found] == [
        (2, "autopatch_j.memory.records"),
        (3, "autopatch_j.memory.search"),
        (5, "autopatch_j.memory.worker"),
    ]
    assert memory_api_users("x\n**Memory through its public API only:** `a`, `b`\n") == {"a", "b"}
    assert {"agent", "app", "mcp_server"} <= MEMORY_API_USERS


def test_the_checker_passes_a_module_that_keeps_to_its_row() -> None:
    source = "from autopatch_j.llm.provider import Purpose\nfrom . import records\nimport sqlite3\n"
    assert check_source(source, Path("autopatch_j/memory/fine.py"), RULES, source_units()) == []
    assert check_source("import openai\n", Path("autopatch_j/llm/x.py"), RULES, source_units()) == []


def test_the_rules_are_read_from_the_document() -> None:
    text = "| Package | Role | May import |\n|--|--|--|\n| `a` | x | — |\n| `b` | y | `a` |\n\n"
    text += "| Library | Only in |\n|--|--|\n| `openai` | `b` |\n"
    rules = parse_rules(text)
    assert rules.allowed == {"a": frozenset(), "b": frozenset({"a"})}
    assert rules.sdk_owners == {"openai": frozenset({"b"})}
    bad = check_source("from autopatch_j.b import x\n", Path("autopatch_j/a/m.py"), rules, frozenset({"a", "b"}))
    assert [str(v) for v in bad] == ["autopatch_j/a/m.py:1 imports autopatch_j.b (a may import nothing of ours)"]


def test_the_mcp_server_runs_without_loading_the_cli() -> None:
    """The MCP face at run time: building its server loads the service layer, never a `cli` module."""
    import subprocess
    import sys

    code = (
        "import sys, autopatch_j.mcp_server.server, autopatch_j.mcp_server.service\n"
        "print(sorted(m for m in sys.modules if m.startswith('autopatch_j.')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "autopatch_j.app.context" in loaded
    assert "autopatch_j.cli" not in loaded
