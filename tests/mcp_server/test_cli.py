"""The `mcp` command at the CLI boundary: options, refusals, and no cost for the other commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.mcp_server.conftest import cli, offline_env


def test_other_commands_never_import_the_mcp_sdk(project: Path) -> None:
    """CLI cold start: the SDK (about 1 s of imports) is loaded only by `autopatch-j mcp`."""
    probe = (
        "import sys\n"
        "from autopatch_j.cli.app import main\n"
        "try:\n"
        f"    main(['-C', {str(project)!r}, 'memory', 'status', '--json'])\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "loaded = sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.'))\n"
        "sys.stderr.write(f'mcp imported: {loaded}')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=offline_env(), timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().endswith("mcp imported: []"), done.stderr


def test_help_documents_the_options(project: Path) -> None:
    shown = cli(project, "mcp", "--help")
    assert shown.code == 0
    for option in ("--read-only", "--transport", "--host", "--port", "--allow-remote"):
        assert option in shown.out, option


def test_a_non_loopback_host_needs_allow_remote(project: Path) -> None:
    refused = cli(project, "mcp", "--transport", "streamable-http", "--host", "0.0.0.0", "--port", "8999")
    assert refused.code == 1 and "Traceback" not in refused.err
    assert refused.err.strip() == (
        "error: --host 0.0.0.0 is not a loopback address; Memory holds RAW conversation, so serving it beyond "
        "this machine needs --allow-remote."
    )
    assert not (project / ".autopatch-j").exists()  # refused before Memory was touched


def test_an_unknown_transport_is_a_usage_error(project: Path) -> None:
    refused = cli(project, "mcp", "--transport", "carrier-pigeon")
    assert refused.code == 2 and "carrier-pigeon" in refused.err and "Traceback" not in refused.err


def test_a_missing_project_directory_is_one_sentence(tmp_path: Path) -> None:
    refused = cli(tmp_path / "nowhere", "mcp")
    assert refused.code != 0 and refused.err.startswith("error: ") and "does not exist" in refused.err
