"""The REPL's slash-command table (H-11): names, usage, help, parsing and "did you mean" suggestions.

Pure data and pure functions; `repl.py` executes a resolved command through the same handlers as the
subcommands (`memory_cmds.py`), and `repl_completion.py` completes from this table.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str  # "/memory show"
    usage: str  # "/memory show ID"
    help: str
    args: tuple[str, ...] = ()  # placeholders: "ID", "--confirm"


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("/help", "/help", "Show this list of commands and keys."),
    CommandSpec("/status", "/status", "Memory health and jobs, whether an LLM is configured, the pending patch."),
    CommandSpec(
        "/new",
        "/new",
        "Start a new conversation thread: old jobs get one processing chance, the pending patch is aborted.",
    ),
    CommandSpec(
        "/reset", "/reset", "Clear the review workspace, scan results, index and request cache; Memory is kept."
    ),
    CommandSpec("/memory status", "/memory status", "Memory health, background jobs and the last error."),
    CommandSpec("/memory list", "/memory list", "List the current memories with their ids."),
    CommandSpec("/memory show", "/memory show ID", "Show one memory with its sources and revisions.", ("ID",)),
    CommandSpec("/memory forget", "/memory forget ID", "Take a memory out of routing and search.", ("ID",)),
    CommandSpec(
        "/memory clear",
        "/memory clear --confirm",
        "Delete all Memory data and start one empty thread (exports and history are kept).",
        ("--confirm",),
    ),
    CommandSpec("/memory export", "/memory export", "Write a RAW JSON snapshot under .autopatch-j/exports/."),
    CommandSpec("/patch", "/patch", "Show the pending patch proposed by a review (also /patch show)."),
    CommandSpec("/accept", "/accept", "Apply the pending patch after re-checking the file (also /patch accept)."),
    CommandSpec("/discard", "/discard", "Drop the pending patch (also /patch discard)."),
    CommandSpec("/quit", "/quit", "Finish pending Memory jobs once and exit (also Ctrl-D; /exit)."),
)

ALIASES: dict[str, str] = {"/exit": "/quit"}
#: `/patch show|accept|discard` (the words the review's answer suggests) are the same commands.
PATCH_SUBCOMMANDS: dict[str, str] = {"show": "/patch", "accept": "/accept", "discard": "/discard"}
MEMORY_SUBCOMMANDS: tuple[str, ...] = tuple(
    spec.name.split()[1] for spec in COMMANDS if spec.name.startswith("/memory ")
)
TOP_LEVEL: tuple[str, ...] = tuple(dict.fromkeys(spec.name.split()[0] for spec in COMMANDS))
_BY_NAME: dict[str, CommandSpec] = {spec.name: spec for spec in COMMANDS}

KEYS_HELP: tuple[tuple[str, str], ...] = (
    ("Ctrl-C", "cancel the answer in flight (the turn is kept as failed); at the prompt, clear the line"),
    ("Ctrl-D", "exit, like /quit"),
    ("Tab", "complete commands and memory ids"),
    ("Up / Down", "history (kept in .autopatch-j/cli-history)"),
)


def is_command(line: str) -> bool:
    """A line is a slash command when its first non-blank character is `/`."""
    return line.lstrip().startswith("/")


@dataclass(frozen=True, slots=True)
class Resolved:
    """A known command and its remaining arguments."""

    spec: CommandSpec
    args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Unknown:
    """Nothing to execute: what was typed, and the closest known command (if any)."""

    typed: str
    suggestion: str | None


@dataclass(frozen=True, slots=True)
class BadUsage:
    """A known command with wrong arguments: say how to call it."""

    spec: CommandSpec
    problem: str


def resolve(line: str) -> Resolved | Unknown | BadUsage:
    """Map a slash-command line to its spec, or to a suggestion; never executes anything."""
    words = line.split()
    head = ALIASES.get(words[0].lower(), words[0].lower())
    rest = tuple(words[1:])
    if head == "/memory":
        if not rest:
            return BadUsage(_BY_NAME["/memory status"], "/memory needs one of: " + ", ".join(MEMORY_SUBCOMMANDS))
        sub = rest[0].lower()
        spec = _BY_NAME.get(f"/memory {sub}")
        if spec is None:
            close = suggest(sub, MEMORY_SUBCOMMANDS)
            return Unknown(f"/memory {rest[0]}", f"/memory {close}" if close else None)
        return _check_args(spec, rest[1:])
    if head == "/patch" and rest:
        target = PATCH_SUBCOMMANDS.get(rest[0].lower())
        if target is None:
            close = suggest(rest[0], tuple(PATCH_SUBCOMMANDS))
            return Unknown(f"/patch {rest[0]}", f"/patch {close}" if close else None)
        return _check_args(_BY_NAME[target], rest[1:])
    spec = _BY_NAME.get(head)
    if spec is None:
        return Unknown(words[0], suggest(head, (*TOP_LEVEL, *ALIASES)))
    return _check_args(spec, rest)


def _check_args(spec: CommandSpec, args: tuple[str, ...]) -> Resolved | BadUsage:
    if spec.args == ("ID",):
        if len(args) != 1 or not args[0].isdigit():
            return BadUsage(spec, f"usage: {spec.usage} (a number from /memory list)")
    elif spec.args == ("--confirm",):
        if any(arg != "--confirm" for arg in args):
            return BadUsage(spec, f"usage: {spec.usage}")
    elif args:
        return BadUsage(spec, f"{spec.name} takes no arguments")
    return Resolved(spec, args)


def suggest(word: str, choices: tuple[str, ...]) -> str | None:
    """The closest choice to a mistyped word (difflib), or None when nothing is close."""
    matches = difflib.get_close_matches(word.lower(), choices, n=1, cutoff=0.5)
    if matches:
        return matches[0]
    prefixed = [choice for choice in choices if choice.startswith(word.lower()) and len(word) > 1]
    return prefixed[0] if len(prefixed) == 1 else None
