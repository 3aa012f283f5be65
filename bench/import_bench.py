"""Transcript import (issue 13): throughput on a generated history, and the hook's wall time.

1. Throughput: a generated history of Claude Code and Codex sessions (half each, by bytes; every
   turn has a tool round with a ~2 KB tool result, as real sessions do) is imported into a fresh
   project with the real `Importer`. Reported: turns/s and MB/s, beside a baseline measured in the
   same run on the same files — `json.loads` of every line, the floor any importer pays — and the
   time of a re-run (nothing new: the cursors skip everything).
2. Hook: `autopatch-j hook claude-code` as Claude Code runs it (a fresh process, the hook JSON on
   stdin) after one new turn was appended to a large, already-imported session; the median wall
   time from start to exit over N runs, interleaved with `python -c pass` and
   `autopatch-j memory status` (the CLI's cold start) so machine noise hits all of them alike.

    python bench/import_bench.py [--mb 50] [--runs 15] [--quick] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from autopatch_j.memory.imports import Source
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.transcripts.discovery import SessionFile
from autopatch_j.transcripts.importer import Importer

TOOL_OUTPUT = ("    def handler(self, request):  # generated tool output line\n" * 36)[:2000]


def _claude_turn(index: int, session: str, cwd: str, parent: str | None) -> tuple[list[str], str]:
    common = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session, "version": "2.0.75"}
    p, a1, tr, a2 = (f"{session}-{index}-{k}" for k in ("p", "a1", "tr", "a2"))
    prompt = f"Turn {index}: from now on prefer small modules and explain the trade-offs of option {index % 7}."
    records = [
        {**common, "type": "user", "uuid": p, "parentUuid": parent, "message": {"role": "user", "content": prompt}},
        {
            **common,
            "type": "assistant",
            "uuid": a1,
            "parentUuid": p,
            "message": {
                "id": f"m{index}a",
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Let me look at the code first.", "signature": "sig"},
                    {"type": "tool_use", "id": f"t{index}", "name": "Read", "input": {"file_path": "src/app.py"}},
                ],
            },
        },
        {
            **common,
            "type": "user",
            "uuid": tr,
            "parentUuid": a1,
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{index}", "content": TOOL_OUTPUT}],
            },
        },
        {
            **common,
            "type": "assistant",
            "uuid": a2,
            "parentUuid": tr,
            "message": {
                "id": f"m{index}b",
                "role": "assistant",
                "content": [{"type": "text", "text": f"Option {index % 7} keeps modules small; the trade-off is " * 4}],
            },
        },
    ]
    return [json.dumps(r) + "\n" for r in records], a2


def _codex_turn(index: int, cwd: str) -> list[str]:
    def line(kind: str, payload: dict[str, Any]) -> str:
        return json.dumps({"timestamp": "2025-09-14T10:00:00Z", "type": kind, "payload": payload}) + "\n"

    text = f"Turn {index}: we decided to keep SQLite as the only local store for component {index % 11}."
    answer = f"Noted for component {index % 11}: SQLite stays the only local store. " * 3
    return [
        line("turn_context", {"turn_id": f"turn-{index}", "cwd": cwd, "model": "gpt-5-codex"}),
        line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}),
        line("event_msg", {"type": "user_message", "message": text, "kind": "plain"}),
        line("response_item", {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA" * 40}),
        line(
            "response_item",
            {"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}', "call_id": "c"},
        ),
        line("response_item", {"type": "function_call_output", "call_id": "c", "output": TOOL_OUTPUT}),
        line(
            "response_item",
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]},
        ),
        line("event_msg", {"type": "task_complete", "last_agent_message": answer}),
    ]


def generate(folder: Path, *, megabytes: float, cwd: str, files: int = 20) -> tuple[list[SessionFile], int]:
    """Half Claude Code, half Codex sessions, `files` files in all; returns them and the turn count."""
    per_file = int(megabytes * 1024 * 1024 / files)
    sessions: list[SessionFile] = []
    turns = 0
    for number in range(files):
        if number % 2 == 0:
            session_id = f"bench{number:04d}"
            path = folder / "claude" / f"{session_id}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            size, parent, index = 0, None, 0
            with path.open("w") as handle:
                while size < per_file:
                    lines, parent = _claude_turn(index, session_id, cwd, parent)
                    handle.writelines(lines)
                    size += sum(len(s) for s in lines)
                    index += 1
            sessions.append(SessionFile(source=Source.CLAUDE_CODE, path=path, session_id=session_id))
        else:
            session_id = f"0199bench-{number:04d}"
            path = folder / "codex" / f"rollout-2025-09-14T10-00-00-{session_id}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            meta = {"timestamp": "x", "type": "session_meta", "payload": {"id": session_id, "cwd": cwd}}
            size, index = 0, 0
            with path.open("w") as handle:
                handle.write(json.dumps(meta) + "\n")
                while size < per_file:
                    lines = _codex_turn(index, cwd)
                    handle.writelines(lines)
                    size += sum(len(s) for s in lines)
                    index += 1
            sessions.append(SessionFile(source=Source.CODEX, path=path, session_id=session_id))
        turns += index
    return sessions, turns


def _json_floor(sessions: list[SessionFile]) -> float:
    started = time.perf_counter()
    for session in sessions:
        with session.path.open("rb") as handle:
            for raw in handle:
                json.loads(raw)
    return time.perf_counter() - started


def throughput(scratch: Path, megabytes: float) -> dict[str, Any]:
    project = scratch / "project"
    project.mkdir()
    sessions, turns = generate(scratch / "history", megabytes=megabytes, cwd=str(project))
    size = sum(s.path.stat().st_size for s in sessions)
    floor = _json_floor(sessions)
    manager = MemoryManager(root=project)
    manager.open()
    importer = Importer(manager=manager)
    started = time.perf_counter()
    admitted = sum(importer.import_session(s).turns_admitted for s in sessions)
    elapsed = time.perf_counter() - started
    started = time.perf_counter()
    again = sum(importer.import_session(s).turns_admitted for s in sessions)
    rerun = time.perf_counter() - started
    manager.close()
    assert admitted == turns and again == 0, (admitted, turns, again)
    return {
        "history_mb": round(size / 1024 / 1024, 1),
        "sessions": len(sessions),
        "turns": turns,
        "import_s": round(elapsed, 2),
        "turns_per_s": round(turns / elapsed),
        "mb_per_s": round(size / 1024 / 1024 / elapsed, 1),
        "baseline_json_loads_s": round(floor, 2),
        "ratio_to_json_loads": round(elapsed / floor, 2),
        "rerun_s": round(rerun, 3),
    }


def _time(argv: list[str], *, cwd: Path, env: dict[str, str], stdin: str = "") -> tuple[float, float]:
    """(wall ms, CPU ms) of one fresh process; CPU time is far less sensitive to a loaded machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, input=stdin.encode(), capture_output=True, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{argv[2:]} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed, cpu


def hook_wall_time(scratch: Path, runs: int, session_mb: float) -> dict[str, Any]:
    project = scratch / "hook-project"
    project.mkdir()
    sessions, _ = generate(scratch / "hook-history", megabytes=session_mb * 2, cwd=str(project), files=2)
    session = next(s for s in sessions if s.source is Source.CLAUDE_CODE)
    manager = MemoryManager(root=project)
    manager.open()
    Importer(manager=manager).import_session(session)  # the session was imported by earlier hooks
    manager.close()
    last = session.path.read_text().splitlines()[-1]
    parent = json.loads(last)["uuid"]
    payload = json.dumps(
        {
            "session_id": session.session_id,
            "transcript_path": str(session.path),
            "cwd": str(project),
            "hook_event_name": "Stop",
        }
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    commands = {
        "baseline: python -c pass": ([sys.executable, "-c", "pass"], ""),
        "autopatch-j memory status": ([sys.executable, "-m", "autopatch_j", "memory", "status"], ""),
        "autopatch-j hook claude-code (one new turn)": (
            [sys.executable, "-m", "autopatch_j", "hook", "claude-code"],
            payload,
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for run in range(runs):
        lines, parent = _claude_turn(100_000 + run, session.session_id, str(project), parent)
        with session.path.open("a") as handle:
            handle.writelines(lines)
        for name, (argv, stdin) in commands.items():
            wall, used = _time(argv, cwd=project, env=env, stdin=stdin)
            times[name].append(wall)
            cpu[name].append(used)
    medians = {name: round(statistics.median(values), 1) for name, values in times.items()}
    cpu_medians = {name: round(statistics.median(values), 1) for name, values in cpu.items()}
    base = medians["baseline: python -c pass"]
    return {
        "session_mb": round(session.path.stat().st_size / 1024 / 1024, 1),
        "runs": runs,
        "median_ms": medians,
        "median_cpu_ms": cpu_medians,
        "ratio_to_python_c_pass": {name: round(ms / base, 1) for name, ms in medians.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of the generated history (default 50)")
    parser.add_argument("--runs", type=int, default=15, help="hook runs (default 15)")
    parser.add_argument("--quick", action="store_true", help="5 MB and 5 runs")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    megabytes, runs = (5.0, 5) if args.quick else (args.mb, args.runs)
    with tempfile.TemporaryDirectory(prefix="import-bench-") as tmp:
        scratch = Path(tmp)
        result = {"throughput": throughput(scratch, megabytes), "hook": hook_wall_time(scratch, runs, session_mb=5.0)}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    t, h = result["throughput"], result["hook"]
    print(f"import: {t['turns']} turns, {t['history_mb']} MB in {t['sessions']} sessions")
    print(f"  {t['import_s']} s -> {t['turns_per_s']} turns/s, {t['mb_per_s']} MB/s")
    print(f"  baseline json.loads of every line: {t['baseline_json_loads_s']} s (import = {t['ratio_to_json_loads']}x)")
    print(f"  re-run with nothing new: {t['rerun_s']} s")
    print(f"hook wall time, median of {h['runs']} runs, session of {h['session_mb']} MB:")
    for name, ms in h["median_ms"].items():
        ratio, used = h["ratio_to_python_c_pass"][name], h["median_cpu_ms"][name]
        print(f"  {name}: {ms} ms wall ({ratio}x python -c pass), {used} ms CPU")


if __name__ == "__main__":
    main()
