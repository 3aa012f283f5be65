"""An optional static scanner for code audits: Semgrep, when it is installed (H-22).

`SemgrepScanner.detect()` returns a scanner only when `semgrep` is on PATH; otherwise audits run
without one and say so. The scanner runs `semgrep scan --json` on the audited files (never with
metrics), with a timeout; any failure is reported as the scanner's status, never as a failed audit.
Results are cached in the workspace's request cache, keyed by the files' content hashes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CONFIG = "p/default"
SCAN_TIMEOUT_S = 120.0
MAX_SCANNER_FINDINGS = 50
MAX_MESSAGE_CHARS = 300


@dataclass(frozen=True, slots=True)
class ScannerFinding:
    rule: str
    path: str
    line: int
    severity: str
    message: str

    def to_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "path": self.path,
            "line": self.line,
            "severity": self.severity,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class ScanOutcome:
    status: str  # "ok", "not installed", or "failed: …"
    findings: tuple[ScannerFinding, ...] = ()


class SemgrepScanner:
    def __init__(self, *, executable: str, config: str = DEFAULT_CONFIG, timeout_s: float = SCAN_TIMEOUT_S) -> None:
        self.executable = executable
        self.config = config
        self.timeout_s = timeout_s

    @classmethod
    def detect(cls, *, config: str = DEFAULT_CONFIG) -> SemgrepScanner | None:
        executable = shutil.which("semgrep")
        return cls(executable=executable, config=config) if executable else None

    def scan(self, root: Path, files: Sequence[str]) -> ScanOutcome:
        if not files:
            return ScanOutcome("ok")
        command = [
            self.executable,
            "scan",
            "--json",
            "--quiet",
            "--metrics=off",
            f"--config={self.config}",
            "--",
            *files,
        ]
        try:
            done = subprocess.run(
                command, cwd=root, capture_output=True, text=True, timeout=self.timeout_s, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return ScanOutcome(f"failed: {type(exc).__name__}")
        try:
            data = json.loads(done.stdout or "{}")
        except json.JSONDecodeError:
            return ScanOutcome(f"failed: exit code {done.returncode}, output is not JSON")
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            return ScanOutcome(f"failed: exit code {done.returncode}")
        findings = [f for f in (_finding(r) for r in results[:MAX_SCANNER_FINDINGS]) if f is not None]
        return ScanOutcome("ok", tuple(findings))


def _finding(raw: object) -> ScannerFinding | None:
    if not isinstance(raw, dict):
        return None
    extra = raw.get("extra") if isinstance(raw.get("extra"), dict) else {}
    start = raw.get("start") if isinstance(raw.get("start"), dict) else {}
    assert isinstance(extra, dict) and isinstance(start, dict)
    line = start.get("line")
    return ScannerFinding(
        rule=str(raw.get("check_id", "")),
        path=str(raw.get("path", "")),
        line=line if isinstance(line, int) else 0,
        severity=str(extra.get("severity", "")),
        message=str(extra.get("message", ""))[:MAX_MESSAGE_CHARS],
    )
