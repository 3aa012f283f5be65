"""CLI cold start at store sizes: whole-process commands against `python -c pass`, in one run.

Each command runs as a fresh process (`python -m autopatch_j …`, the entry point of the `autopatch-j`
script) N times, interleaved with a bare `python -c pass` and with every other command and store
size, so machine noise hits all of them alike; medians are compared with the baseline and with the
same command on an empty store. Bytecode is cached (in a temporary PYTHONPYCACHEPREFIX, so no source
tree is written to), as for an installed package.

Commands, each at 0, 10,000 and 100,000 turns (`--sizes`):
- `memory status`;
- `memory search "deployed services"`;
- `hook claude-code` — the Stop hook as Claude Code runs it, importing one new turn of its session
  (the turn is appended to the transcript before each run, untimed);
- MCP spawn-to-first-answer — `autopatch-j mcp` over stdio: spawn, `initialize`, then one
  `tools/call memory_search`, timed until that answer arrives.
Also timed on an empty store: `--version`, `--help`.

A store of N turns: N - N/10 turns admitted through the admission path (`admit_completed_turns`, in
batches of 2,000 per transaction), their extraction jobs then marked done (all but the last 10, as a
drained store has them), and N/10 memories with their own turn, job, candidate, quote and search
terms as consolidation writes them (tests/memory/item_factory.py). Every row goes through the
project's own write transactions, so the store leaves its build with a sound verification stamp, as
a store in use does (docs/memory.md).

Targets (issue: start-up that does not grow with the store): at the largest size `memory status`,
`memory search` and the hook each ≤ 1.5× their empty-store median; `memory status` on an empty store
≤ 8× `python -c pass`. Also reported: the heavy modules `memory status` imports (`python -X importtime`).

`--baseline-src DIR` also times every command with DIR (another checkout's `src`) first on
PYTHONPATH, interleaved with the rest: a "before" measured in the same run.

    python bench/cold_start_bench.py [--quick] [--json] [--runs N] [--sizes 0,10000,100000] [--baseline-src DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GROWTH_TARGET = 1.5  # at the largest size, x the same command on an empty store
STATUS_TARGET = 8.0  # `memory status` on an empty store, x `python -c pass`
HEAVY = (
    "openai",
    "fastapi",
    "sqlalchemy",
    "prompt_toolkit",
    "httpx",
    "uvicorn",
    "alembic",
    "pydantic",
    "pydantic_settings",
    "mcp",
    "Stemmer",  # memory search's English stemmer: search and indexing only
    "rich",  # terminal rendering: tables and styled text, not the plain status lines
)
BASELINE = "python -c pass"
SIZED = ("memory status", "memory search", "hook claude-code", "mcp first answer")
SESSION = "0badc0de-cold-start-bench"
BATCH = 2_000
PENDING_LEFT = 10


def build_store(root: Path, turns: int) -> None:
    """A project whose Memory holds `turns` turns, a tenth of them with a memory (see the module doc)."""
    from tests.memory.item_factory import add_item_in_tx

    from autopatch_j.memory.manager import MemoryManager
    from autopatch_j.memory.records import Intent, MemoryKind

    manager = MemoryManager(root=root)
    assert manager.open().ok
    items = turns // 10
    plain = turns - items
    for start in range(0, plain, BATCH):
        manager.admit_completed_turns(
            [
                (
                    f"Question {i}: how should service {i % 500} be deployed, and which tests run first? "
                    f"我们讨论一下服务 {i % 500} 的部署顺序。" + " context" * 20,
                    f"Answer {i}: deploy service {i % 500} after its tests pass; roll back on failure. " * 4,
                    Intent.GENERAL_CHAT,
                )
                for i in range(start, min(start + BATCH, plain))
            ]
        )
    kinds = (MemoryKind.USER_PREFERENCE, MemoryKind.PROJECT_DECISION, MemoryKind.DISCUSSION_CONTEXT)
    with manager.db.write("bench: finish the jobs and add the memories") as conn:
        conn.execute(
            "UPDATE memory_jobs SET status = 'succeeded' WHERE status = 'pending' AND id <= "
            "(SELECT max(id) FROM memory_jobs) - ?",
            (PENDING_LEFT,),
        )
        for i in range(items):
            add_item_in_tx(
                conn,
                kind=kinds[i % 3],
                title=f"deploy service {i} with 先给结论 rule {i % 97}",
                content=f"When deploying service {i}, answer first, then explain; 服务 {i} 部署前先运行测试。",
                keywords=[f"service{i}", "deploy", "部署"],
            )
    manager.close()


class Transcript:
    """A Claude Code session file that gains one turn before each hook run."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.path = project / f"{SESSION}.jsonl"
        self.turns = 0
        self.path.write_text("", encoding="utf-8")

    def add_turn(self) -> None:
        from tests.transcripts.builders import claude_lines

        lines = claude_lines(self.turns, 1, session=SESSION, cwd=str(self.project))
        with self.path.open("a", encoding="utf-8") as f:
            f.writelines(lines)
        self.turns += 1

    def payload(self) -> str:
        return json.dumps(
            {
                "session_id": SESSION,
                "transcript_path": str(self.path),
                "cwd": str(self.project),
                "hook_event_name": "Stop",
            }
        )


def _frame(method: str, params: dict[str, object] | None = None, id: int | None = None) -> bytes:
    message: dict[str, object] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    if id is not None:
        message["id"] = id
    return (json.dumps(message) + "\n").encode()


def _time_process(argv: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        input=stdin.encode() if stdin is not None else None,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[2:])} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def _time_mcp(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Spawn to the answer of the first `tools/call` (a memory_search); the shutdown is not timed."""
    started = time.perf_counter()
    with subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        client = {"name": "cold-start-bench", "version": "1"}
        process.stdin.write(
            _frame("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}, 1)
        )
        process.stdin.write(_frame("notifications/initialized"))
        process.stdin.write(
            _frame("tools/call", {"name": "memory_search", "arguments": {"query": "deployed services"}}, 2)
        )
        process.stdin.flush()
        answer: dict[str, object] = {}
        while answer.get("id") != 2:
            line = process.stdout.readline()
            if not line:
                raise SystemExit("mcp: the server closed its output before answering")
            answer = json.loads(line)
        elapsed = (time.perf_counter() - started) * 1000
        process.stdin.close()
        process.wait(timeout=60)
    return elapsed


def _label(size: int) -> str:
    return "empty" if size == 0 else f"{size // 1000}k" if size % 1000 == 0 else str(size)


def _runners(
    py: str, projects: dict[int, Path], transcripts: dict[int, Transcript]
) -> dict[str, Callable[[dict[str, str]], float]]:
    """name -> a function timing one run with the given environment."""
    empty = projects[0]
    cli = [py, "-m", "autopatch_j"]
    runners: dict[str, Callable[[dict[str, str]], float]] = {
        BASELINE: lambda env: _time_process([py, "-c", "pass"], empty, env),
        "autopatch-j --version": lambda env: _time_process([*cli, "--version"], empty, env),
        "autopatch-j --help": lambda env: _time_process([*cli, "--help"], empty, env),
    }
    for size, project in projects.items():
        label = _label(size)
        transcript = transcripts[size]

        def hook(env: dict[str, str], project: Path = project, transcript: Transcript = transcript) -> float:
            transcript.add_turn()
            return _time_process([*cli, "hook", "claude-code"], project, env, stdin=transcript.payload())

        runners[f"memory status ({label})"] = lambda env, p=project: _time_process([*cli, "memory", "status"], p, env)
        runners[f"memory search ({label})"] = lambda env, p=project: _time_process(
            [*cli, "memory", "search", "deployed services"], p, env
        )
        runners[f"hook claude-code ({label})"] = hook
        runners[f"mcp first answer ({label})"] = lambda env, p=project: _time_mcp([*cli, "mcp"], p, env)
    return runners


def heavy_imports(py: str, cwd: Path, env: dict[str, str]) -> list[str]:
    """Heavy top-level packages that `memory status` imports (via `python -X importtime`)."""
    done = subprocess.run(
        [py, "-X", "importtime", "-m", "autopatch_j", "memory", "status"],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    seen = set()
    for line in done.stderr.splitlines():
        if "|" in line:
            top = line.rsplit("|", 1)[1].strip().split(".")[0]
            if top in HEAVY:
                seen.add(top)
    return sorted(seen)


def _summaries(samples: dict[str, list[float]], base: float) -> dict[str, dict[str, float | int]]:
    return {
        name: {
            "median_ms": round(statistics.median(values), 1),
            "min_ms": round(min(values), 1),
            "max_ms": round(max(values), 1),
            "ratio_to_baseline": round(statistics.median(values) / base, 2),
            "runs": len(values),
        }
        for name, values in samples.items()
    }


def _growth(results: dict[str, dict[str, float | int]], sizes: list[int]) -> dict[str, dict[str, float]]:
    """command -> size label -> median at that size / median on the empty store."""
    out: dict[str, dict[str, float]] = {}
    for command in SIZED:
        empty = float(results[f"{command} (empty)"]["median_ms"])
        out[command] = {
            _label(size): round(float(results[f"{command} ({_label(size)})"]["median_ms"]) / empty, 2)
            for size in sizes
            if size
        }
    return out


def run(runs: int, sizes: list[int], baseline_src: Path | None) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOPATCH_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["AUTOPATCH_MEMORY_EXTRACTOR"] = "rules"  # the MCP server's worker: no LLM is configured here
    sizes = sorted({0, *sizes})
    with tempfile.TemporaryDirectory(prefix="autopatch-cold-") as tmp:
        env["HOME"] = str(Path(tmp) / "home")  # the hook's problem log and any agent home stay in here
        projects = {size: Path(tmp) / f"project-{_label(size)}" for size in sizes}
        build_s: dict[str, float] = {}
        for size, project in projects.items():
            project.mkdir()
            started = time.perf_counter()
            build_store(project, size)
            build_s[_label(size)] = round(time.perf_counter() - started, 1)
        transcripts = {size: Transcript(project) for size, project in projects.items()}
        sides = {"after": {**env, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pyc-after")}}
        if baseline_src is not None:
            before_path = os.pathsep.join(p for p in (str(baseline_src), env.get("PYTHONPATH", "")) if p)
            sides["before"] = {**env, "PYTHONPATH": before_path, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pyc-before")}
        table = _runners(sys.executable, projects, transcripts)
        for side_env in sides.values():  # writes the bytecode caches and the first stamps (not timed)
            for runner in table.values():
                runner(side_env)
        samples: dict[str, dict[str, list[float]]] = {side: {name: [] for name in table} for side in sides}
        for _ in range(runs):
            for name, runner in table.items():  # interleaved: noise hits every command alike
                for side, side_env in sides.items():
                    if side == "before" and name == BASELINE:
                        continue  # one baseline serves both sides
                    samples[side][name].append(runner(side_env))
        heavy = {side: heavy_imports(sys.executable, projects[0], side_env) for side, side_env in sides.items()}
    base = statistics.median(samples["after"][BASELINE])
    results = {side: _summaries({k: v for k, v in s.items() if v}, base) for side, s in samples.items()}
    growth = _growth(results["after"], sizes)
    largest = _label(max(sizes))
    status_ratio = float(results["after"]["memory status (empty)"]["ratio_to_baseline"])
    growth_met = all(growth[c][largest] <= GROWTH_TARGET for c in SIZED[:3]) if max(sizes) else True
    return {
        "benchmark": "cold_start",
        "runs": runs,
        "sizes_turns": sizes,
        "store_build_s": build_s,
        "baseline_src": str(baseline_src) if baseline_src else None,
        "results": results["after"],
        **({"results_before": results["before"]} if "before" in results else {}),
        "growth_vs_empty": growth,
        **({"growth_vs_empty_before": _growth(results["before"], sizes)} if "before" in results else {}),
        "growth_target": GROWTH_TARGET,
        "status_target_ratio": STATUS_TARGET,
        "memory_status_meets_target": status_ratio <= STATUS_TARGET,
        "growth_meets_target": growth_met,
        "heavy_modules_imported_by_memory_status": heavy["after"],
        **({"heavy_modules_before": heavy["before"]} if "before" in heavy else {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="5 runs per command; stores of 0, 1,000 and 10,000 turns")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--runs", type=int, default=None, help="runs per command (default 15)")
    parser.add_argument("--sizes", default=None, help="store sizes in turns, comma-separated (default 0,10000,100000)")
    parser.add_argument("--baseline-src", type=Path, default=None, help="also time this `src` tree (before)")
    args = parser.parse_args()
    default_sizes = "0,1000,10000" if args.quick else "0,10000,100000"
    try:
        sizes = [int(s) for s in (args.sizes or default_sizes).split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes takes whole numbers separated by commas, e.g. 0,10000,100000")
    if any(s < 0 for s in sizes):
        parser.error("--sizes cannot be negative")
    report = run(
        args.runs or (5 if args.quick else 15), sizes, args.baseline_src.resolve() if args.baseline_src else None
    )
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"cold start, median of {report['runs']} interleaved runs each; stores of {report['sizes_turns']} turns:")
    before = report.get("results_before", {})
    for name, r in report["results"].items():  # type: ignore[union-attr]
        line = f"  {name:34} {r['median_ms']:8.1f} ms  (x{r['ratio_to_baseline']:5.2f} python -c pass)"
        if name in before:  # type: ignore[operator]
            b = before[name]  # type: ignore[index]
            line += f"   before {b['median_ms']:8.1f} ms  (x{b['ratio_to_baseline']:5.2f})"
        print(line)
    print("growth (x the same command on an empty store):")
    for command, by_size in report["growth_vs_empty"].items():  # type: ignore[union-attr]
        print(f"  {command:20} " + ", ".join(f"{size} x{ratio:.2f}" for size, ratio in by_size.items()))
    verdict = "meets" if report["memory_status_meets_target"] else "MISSES"
    print(f"memory status on an empty store {verdict} the <= {STATUS_TARGET:g}x python -c pass target")
    verdict = "meet" if report["growth_meets_target"] else "MISS"
    print(f"status, search and the hook {verdict} the <= {GROWTH_TARGET:g}x empty-store target at the largest size")
    print(f"heavy modules imported by memory status: {report['heavy_modules_imported_by_memory_status'] or 'none'}")
    if "heavy_modules_before" in report:
        print(f"  before: {report['heavy_modules_before'] or 'none'}")
    print(f"store build: {report['store_build_s']} s")


if __name__ == "__main__":
    main()
