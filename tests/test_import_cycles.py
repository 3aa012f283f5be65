"""No module circles in `src/`: the module import graph, read with `ast`, has no cycle.

Every import counts — module-level, inside functions, under `TYPE_CHECKING`, relative ones and
`importlib.import_module` with a literal name, as in the layering test. `from a.b import c` is an
edge to `a.b.c` when that is a module, else to `a.b`. A circle is
broken by moving the shared piece to the module both need, never by hiding an import.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping

from tests.test_layering import PACKAGE, SRC, _dotted


def import_targets(source: str, module: str, *, is_package: bool, modules: Collection[str]) -> set[str]:
    """The modules of `modules` that `source` imports, wherever the statement is.

    `from a.b import c` names `a.b.c` when that is a module (a package's `__init__` runs either
    way, as it does for every import below it), else `a.b`; a name that is not a module is
    resolved to its longest prefix that is.
    """

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    package = module if is_package else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - (node.level - 1)])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                names.append(submodule if submodule in modules else base)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                names.append(node.args[0].value)
    targets = {resolve(name) for name in names if name.split(".")[0] == PACKAGE}
    return {target for target in targets if target is not None and target != module}


def module_graph(sources: Mapping[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """module -> the modules of ours it imports; `sources` maps module -> (source, is_package)."""
    return {
        module: import_targets(source, module, is_package=is_package, modules=sources)
        for module, (source, is_package) in sources.items()
    }


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def source_modules() -> dict[str, tuple[str, bool]]:
    modules = {}
    for path in sorted(SRC.rglob("*.py")):
        module, is_package = _dotted(path.relative_to(SRC.parent))
        modules[module] = (path.read_text(encoding="utf-8"), is_package)
    return modules


def test_src_has_no_module_cycle() -> None:
    found = cycles(module_graph(source_modules()))
    assert not found, "module circles in src/:\n" + "\n".join(" <-> ".join(c) for c in found)


# -- the checker can fail ---------------------------------------------------------------------------


def test_the_checker_finds_a_made_up_cycle_through_every_kind_of_import() -> None:
    sources = {
        "autopatch_j.a": ("from autopatch_j.b import thing\n", True),
        "autopatch_j.b": ("def later():\n    from .c import other\n", False),
        "autopatch_j.c": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from autopatch_j import a\n",
            False,
        ),
        "autopatch_j.d": ("import autopatch_j.a\nimport importlib\nimportlib.import_module('autopatch_j.e')\n", False),
        "autopatch_j.e": ("from . import d\n", False),
        "autopatch_j.f": ("import os\nfrom autopatch_j.a import x\n", False),
    }
    graph = module_graph(sources)
    assert graph["autopatch_j.c"] == {"autopatch_j.a"}
    assert cycles(graph) == [
        ["autopatch_j.a", "autopatch_j.b", "autopatch_j.c"],
        ["autopatch_j.d", "autopatch_j.e"],
    ]


def test_the_checker_passes_a_graph_without_a_cycle() -> None:
    sources = {
        "autopatch_j.a": ("from autopatch_j.b import thing\n", False),
        "autopatch_j.b": ("import json\n", False),
    }
    assert cycles(module_graph(sources)) == []


def test_from_a_package_import_a_module_is_an_edge_to_the_module() -> None:
    sources = {
        "autopatch_j.p": ("def later():\n    from autopatch_j.p import m\n", True),
        "autopatch_j.p.m": ("from autopatch_j.p import helper, n\n", False),
        "autopatch_j.p.n": ("from . import m\n", False),
    }
    graph = module_graph(sources)
    assert graph == {
        "autopatch_j.p": {"autopatch_j.p.m"},
        "autopatch_j.p.m": {"autopatch_j.p", "autopatch_j.p.n"},  # `helper` lives in the package
        "autopatch_j.p.n": {"autopatch_j.p.m"},
    }
    assert cycles(graph) == [["autopatch_j.p", "autopatch_j.p.m", "autopatch_j.p.n"]]


def test_the_real_graph_is_read() -> None:
    graph = module_graph(source_modules())
    assert "autopatch_j.llm.setting_names" in graph["autopatch_j.llm.sources"]
    assert "autopatch_j.memory.manager" in graph["autopatch_j.memory"]  # under TYPE_CHECKING
    assert "autopatch_j.llm.provider" in graph["autopatch_j.llm.config"] | graph["autopatch_j.llm.setting_names"]
