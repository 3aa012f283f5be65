"""Tab completion for the REPL: slash commands, `/memory` subcommands, memory ids and `--confirm` (H-10)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from autopatch_j.cli.repl_commands import ALIASES, COMMANDS, MEMORY_SUBCOMMANDS, PATCH_SUBCOMMANDS, TOP_LEVEL

#: (id, title) pairs of the memories that can be shown or forgotten right now.
MemoryIds = Callable[[], Sequence[tuple[int, str]]]

_HELP = {spec.name: spec.help for spec in COMMANDS}
_HELP["/memory"] = "status | list | show ID | forget ID | clear --confirm | export"


class SlashCompleter(Completer):
    """Completes only lines that start with `/`; ordinary questions are never completed."""

    def __init__(self, *, memory_ids: MemoryIds) -> None:
        self._memory_ids = memory_ids

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/"):
            return
        words = text.split()
        ends_with_space = text.endswith((" ", "\t"))
        if len(words) <= 1 and not ends_with_space:
            yield from _choices(text, (*TOP_LEVEL, *ALIASES), lambda name: _HELP.get(name, _alias_help(name)))
            return
        head = words[0].lower()
        args = words[1:]
        current = "" if ends_with_space else args.pop() if args else ""
        if head == "/patch":
            if not args:
                yield from _choices(current, tuple(PATCH_SUBCOMMANDS), lambda sub: _HELP[PATCH_SUBCOMMANDS[sub]])
            return
        if head != "/memory":
            return
        if not args:
            yield from _choices(current, MEMORY_SUBCOMMANDS, lambda sub: _HELP.get(f"/memory {sub}", ""))
            return
        if len(args) != 1:
            return
        sub = args[0].lower()
        if sub in ("show", "forget"):
            yield from self._ids(current)
        elif sub == "clear":
            yield from _choices(current, ("--confirm",), lambda _: "really delete all Memory data")

    def _ids(self, current: str) -> Iterable[Completion]:
        try:
            pairs = self._memory_ids()
        except Exception:  # completion must never break the prompt (degraded store, locked DB)
            return
        for memory_id, title in pairs:
            text = str(memory_id)
            if text.startswith(current):
                yield Completion(text, start_position=-len(current), display_meta=title)


def _alias_help(name: str) -> str:
    target = ALIASES.get(name)
    return f"same as {target}" if target else ""


def _choices(current: str, options: Iterable[str], meta: Callable[[str], str]) -> Iterable[Completion]:
    lowered = current.lower()
    for option in options:
        if option.startswith(lowered):
            yield Completion(option, start_position=-len(current), display_meta=meta(option))
