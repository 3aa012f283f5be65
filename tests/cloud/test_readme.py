"""README's "cloud control plane in one minute" runs pasted as one block (issue 10, item 15).

The block is extracted from README.md and run verbatim by bash in an empty directory on SQLite, with
`autopatch-j` on PATH and AUTOPATCH_CLOUD_PORT set to a free port (the block reads it).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

from autopatch_j.cloud.injection import PREFIX

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_block() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## The cloud control plane in one minute", 1)[1]
    match = re.search(r"```bash\n(.*?)```", section, re.S)
    assert match is not None
    return match.group(1)


def test_the_readme_cloud_minute_works_pasted_as_one_block(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOPATCH_CLOUD_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["AUTOPATCH_CLOUD_PORT"] = str(port)
    proc = subprocess.Popen(
        ["bash", "-c", readme_block()],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=180)
    finally:  # the block stops its server; make sure nothing of the session is left either way
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, err
    assert (tmp_path / "cloud.sqlite3").exists()
    last = json.loads(out.strip().splitlines()[-1])
    assert last["id"] == 2 and last["prompt"] == "Add metrics" and last["status"] == "completed"
    # the injection happened, and the stored result never carries the injected block (issue 10, privacy)
    assert last["result_text"].endswith("It received 1 injected project memory line(s).")
    assert PREFIX not in last["result_text"]
    assert '"source_thread_id":"1"' in out
