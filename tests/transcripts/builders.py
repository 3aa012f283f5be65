"""Write Claude Code and Codex session files in the documented formats, for tests that need many
turns, a growing file or a file cut mid-line (the static fixtures cover the format variety)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PLACEHOLDER = "__PROJECT__"


def _text(kind: str, text: str) -> list[dict[str, str]]:
    return [{"type": kind, "text": text}]


def claude_turn(index: int, *, session: str, cwd: str, parent: str | None) -> list[dict[str, Any]]:
    """One Claude Code turn: prompt, a tool round, the final text (4 records); the last uuid is the leaf."""
    common = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session, "version": "2.0.75"}
    p, a1, tr, a2 = (f"{session[:8]}-{index}-{k}" for k in ("p", "a1", "tr", "a2"))
    tool_use = {"type": "tool_use", "id": f"t{index}", "name": "Read", "input": {"file_path": "x"}}
    tool_result = {"type": "tool_result", "tool_use_id": f"t{index}", "content": "ok"}
    prompt = f"Decision {index}: from now on use option {index}."
    return [
        {**common, "type": "user", "uuid": p, "parentUuid": parent, "message": {"role": "user", "content": prompt}},
        {
            **common,
            "type": "assistant",
            "uuid": a1,
            "parentUuid": p,
            "message": {"id": f"m{index}a", "role": "assistant", "content": [*_text("text", "Checking."), tool_use]},
        },
        {**common, "type": "user", "uuid": tr, "parentUuid": a1, "message": {"role": "user", "content": [tool_result]}},
        {
            **common,
            "type": "assistant",
            "uuid": a2,
            "parentUuid": tr,
            "message": {"id": f"m{index}b", "role": "assistant", "content": _text("text", f"Option {index} it is.")},
        },
    ]


def claude_lines(first: int, count: int, *, session: str, cwd: str) -> list[str]:
    lines: list[str] = []
    parent = None if first == 0 else f"{session[:8]}-{first - 1}-a2"
    for index in range(first, first + count):
        records = claude_turn(index, session=session, cwd=cwd, parent=parent)
        lines.extend(json.dumps(r) + "\n" for r in records)
        parent = records[-1]["uuid"]
    return lines


def codex_lines(first: int, count: int, *, session: str, cwd: str, turn_ids: bool = True) -> list[str]:
    def line(kind: str, payload: dict[str, Any]) -> str:
        return json.dumps({"timestamp": "2025-09-14T10:00:00Z", "type": kind, "payload": payload}) + "\n"

    lines = [line("session_meta", {"id": session, "cwd": cwd, "cli_version": "0.46.0"})] if first == 0 else []
    for index in range(first, first + count):
        if turn_ids:
            lines.append(line("turn_context", {"turn_id": f"turn-{index}", "cwd": cwd, "model": "gpt-5"}))
        text = f"Decision {index}: keep option {index}."
        lines.append(
            line(
                "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
            )
        )
        lines.append(line("event_msg", {"type": "user_message", "message": text}))
        answer = f"Option {index} kept."
        lines.append(
            line(
                "response_item",
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]},
            )
        )
        lines.append(line("event_msg", {"type": "task_complete", "last_agent_message": answer}))
    return lines


def install_fixture(name: str, target: Path, project: Path) -> Path:
    """Copy a static fixture to `target`, its cwd placeholder replaced by the project root."""
    text = (FIXTURES / name).read_text(encoding="utf-8").replace(PLACEHOLDER, str(project))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target
