"""`memory publish` on a store of many decisions, against `memory status` and `python -c pass`, in one run.

A project whose Memory holds N active decisions (default 1,000, over 40 subjects) and N/4 preferences,
written with the test factory (tests/memory/item_factory.py) through the project's own write
transactions. Each command runs as a fresh process (`python -m autopatch_j …`), interleaved:

- `publish (write)`: `memory publish` with AGENTS.md and CLAUDE.md holding a user's text and no block
  (the files are reset before each run, untimed): two blocks rendered, planned and replaced;
- `publish (no change)`: the same command when both blocks are up to date (no write);
- `publish --check`: the CI form, up to date;
- `memory status` and `python -c pass`: the baselines.

Also timed in this process: the service call alone (`app.publish.service.publish`, read + render +
plan of both files, no write), the median of 50 calls.

Medians and ratios to `memory status` of the same run are printed.

    python bench/publish_bench.py [--decisions N] [--runs N] [--json]
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
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
USER_TEXT = b"# Team notes\r\n\r\n## Decisions (by hand)\r\n- keep CRLF\r\n"


def build_store(root: Path, decisions: int) -> None:
    sys.path.insert(0, str(REPO))
    from tests.memory.item_factory import add_item_in_tx

    from autopatch_j.memory.manager import MemoryManager
    from autopatch_j.memory.records import MemoryKind

    manager = MemoryManager(root=root)
    assert manager.open().ok
    with manager.db.write("bench: add the memories") as conn:
        for i in range(decisions + decisions // 4):
            kind = MemoryKind.PROJECT_DECISION if i < decisions else MemoryKind.USER_PREFERENCE
            made = add_item_in_tx(
                conn,
                kind=kind,
                title=f"rule {i}",
                content=f"Decision {i}: service {i} deploys only after its tests pass; 服务 {i} 部署前先运行测试。",
            )
            conn.execute("UPDATE memory_items SET subject = ? WHERE id = ?", (f"subject {i % 40}", made.id))
    manager.close()


def service_ms(root: Path) -> float:
    from autopatch_j.app.context import AppContext
    from autopatch_j.app.publish.service import publish

    app = AppContext.from_environment(root=root, environ={})
    publish(app, targets=("agents", "claude"), write=False)
    samples = []
    for _ in range(50):
        start = time.perf_counter()
        publish(app, targets=("agents", "claude"), write=False)
        samples.append((time.perf_counter() - start) * 1000)
    app.close()
    return statistics.median(samples)


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.decode()}")
    return elapsed * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        root.mkdir()
        build_store(root, args.decisions)
        env = {**os.environ, "PYTHONPYCACHEPREFIX": str(Path(folder) / "pycache")}
        cli = [sys.executable, "-m", "autopatch_j", "-C", str(root)]
        commands = {
            "publish (write)": [*cli, "memory", "publish"],
            "publish (no change)": [*cli, "memory", "publish"],
            "publish --check": [*cli, "memory", "publish", "--check"],
            "memory status": [*cli, "memory", "status"],
            "python -c pass": [sys.executable, "-c", "pass"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        timed(commands["publish (write)"], env)  # warm the bytecode cache
        for _ in range(args.runs):
            for name, command in commands.items():
                if name == "publish (write)":
                    for file in ("AGENTS.md", "CLAUDE.md"):
                        (root / file).write_bytes(USER_TEXT)
                times[name].append(timed(command, env))
        block = (root / "AGENTS.md").read_text(encoding="utf-8")
        in_process = service_ms(root)
    medians = {name: statistics.median(values) for name, values in times.items()}
    status = medians["memory status"]
    result = {
        "decisions": args.decisions,
        "runs": args.runs,
        "shown_lines": block.count("\n- [#"),
        "median_ms": {name: round(value, 1) for name, value in medians.items()},
        "service_call_ms": round(in_process, 2),
        "ratio_to_status": {name: round(value / status, 2) for name, value in medians.items()},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{args.decisions} decisions, {result['shown_lines']} shown in the block, {args.runs} runs each")
    for name, value in medians.items():
        print(f"  {name:22} {value:8.1f} ms   {value / status:5.2f}x memory status")
    print(f"  service call alone     {in_process:8.2f} ms   (read, render, plan both files; in process)")


if __name__ == "__main__":
    main()
