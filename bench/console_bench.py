"""Console benchmark (C-42): the memories page with 1,000 memories beside the JSON endpoint.

    python bench/console_bench.py [--memories 1000] [--rounds 60] [--json]

Both are served in-process through the same app (`create_app`, SQLite in a temp directory) with
Starlette's TestClient, alternating page and JSON request by request so machine noise hits both
alike: `GET /console/memories` (session cookie, HTML rendered by Jinja2) and
`GET /users/me/memories` (bearer token, the same memories as JSON). Prints p50/p99 of each and the
page/JSON ratio of the medians. Nothing is asserted; nothing is written outside the temp directory.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from fastapi.testclient import TestClient

from autopatch_j.cloud.app import create_app
from autopatch_j.cloud.db import make_engine, write_tx
from autopatch_j.cloud.memories import create_user_memory
from autopatch_j.cloud.schema import migrate
from autopatch_j.cloud.settings import CloudSettings
from autopatch_j.cloud.users import create_user

CONTENT = 'Prefers small commits; token=sk-abcdef123456 is redacted; <b>markup</b> & "quotes" stay text. '


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def run(memories: int, rounds: int) -> dict[str, float | int]:
    with tempfile.TemporaryDirectory(prefix="apj-console-bench-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'cloud.sqlite3'}"
        engine = make_engine(url)
        migrate(engine)
        now = datetime.now(UTC)
        with write_tx(engine) as conn:
            made = create_user(conn, name="bench", is_admin=False, now=now)
            for i in range(memories):
                create_user_memory(conn, user=made.user, content=f"#{i} {CONTENT}", now=now)
        app = create_app(settings=CloudSettings(db=url), engine=engine)
        page_ms: list[float] = []
        json_ms: list[float] = []
        with TestClient(app, follow_redirects=False) as client:
            form = client.get("/console/sign-in").text
            token = re.search(r'name="csrf" value="([^"]+)"', form)
            assert token is not None
            signed = client.post("/console/sign-in", data={"csrf": token.group(1), "token": made.token})
            assert signed.status_code == 303, signed.text
            headers = {"Authorization": f"Bearer {made.token}"}
            page_bytes = json_bytes = 0
            for i in range(rounds + 3):  # the first 3 rounds warm up caches and are dropped
                for kind in ("page", "json") if i % 2 == 0 else ("json", "page"):
                    start = time.perf_counter()
                    if kind == "page":
                        response = client.get("/console/memories")
                        page_bytes = len(response.content)
                    else:
                        response = client.get("/users/me/memories", headers=headers)
                        json_bytes = len(response.content)
                    elapsed = (time.perf_counter() - start) * 1000
                    assert response.status_code == 200, response.text
                    if i >= 3:
                        (page_ms if kind == "page" else json_ms).append(elapsed)
            assert len(client.get("/users/me/memories", headers=headers).json()) == memories
        engine.dispose()
    return {
        "memories": memories,
        "rounds": rounds,
        "page_p50_ms": statistics.median(page_ms),
        "page_p99_ms": percentile(page_ms, 99),
        "json_p50_ms": statistics.median(json_ms),
        "json_p99_ms": percentile(json_ms, 99),
        "page_over_json_p50": statistics.median(page_ms) / statistics.median(json_ms),
        "page_bytes": page_bytes,
        "json_bytes": json_bytes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    figures = run(args.memories, args.rounds)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"memories page vs JSON endpoint, {figures['memories']} memories, {figures['rounds']} requests each")
    print(
        f"  GET /console/memories   p50 {figures['page_p50_ms']:.1f} ms  p99 {figures['page_p99_ms']:.1f} ms"
        f"  ({figures['page_bytes'] / 1024:.0f} KiB HTML)"
    )
    print(
        f"  GET /users/me/memories  p50 {figures['json_p50_ms']:.1f} ms  p99 {figures['json_p99_ms']:.1f} ms"
        f"  ({figures['json_bytes'] / 1024:.0f} KiB JSON)"
    )
    print(f"  page / JSON (p50): {figures['page_over_json_p50']:.2f}x")


if __name__ == "__main__":
    main()
