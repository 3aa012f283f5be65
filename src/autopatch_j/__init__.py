"""autopatch-j: a coding-agent CLI with durable, provenance-checked Memory."""

from __future__ import annotations

TYPE_CHECKING = False  # typing stays unloaded at start-up (the CLI's cold start); mypy knows the name
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

__version__ = "0.1.0"


def lazy_api(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's module `__getattr__` (PEP 562) for its public API: `exports` maps each public name
    to `"module"` (the same name in that submodule) or `"module:name"`; it is imported on first use,
    so importing the package loads none of its modules."""

    def __getattr__(name: str) -> Any:
        import importlib

        where = exports.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = where.partition(":")
        return getattr(importlib.import_module(f"{package}.{module}"), attribute or name)

    return __getattr__


def set_variable(environ: Mapping[str, str], *names: str, prefix: str = "") -> str | None:
    """The first variable of `environ` that is one of `names`, or starts with `prefix`, compared in
    upper case, and whose value is not blank — as `environ` writes its name; None when there is none.
    How every setting answers "is it given?" before (or without) loading its settings class."""
    wanted = {name.upper() for name in names}
    start = prefix.upper()
    for name, value in environ.items():
        key = name.upper()
        if (key in wanted or (start and key.startswith(start))) and value.strip():
            return name
    return None
