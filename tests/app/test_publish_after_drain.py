"""`app.publish.service.publish_after_drain`: the automatic publish every drain path runs, as a value."""

from __future__ import annotations

from pathlib import Path

from autopatch_j.app.context import AppContext
from autopatch_j.app.publish.service import DrainPublish, publish_after_drain


def _app(root: Path) -> AppContext:
    return AppContext.from_environment(root=root, environ={})


def test_no_target_means_publishing_is_off(tmp_path: Path) -> None:
    app = _app(tmp_path)
    try:
        assert publish_after_drain(app, ()) == DrainPublish(report=None, error=None)
    finally:
        app.close()


def test_a_publish_reports_each_file_written(tmp_path: Path) -> None:
    app = _app(tmp_path)
    try:
        done = publish_after_drain(app, ("agents",))
    finally:
        app.close()
    assert done.error is None and done.report is not None
    assert [f.path.name for f in done.report.files] == ["AGENTS.md"]


def test_a_refusal_is_one_sentence_and_no_report(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").mkdir()  # a directory where the file goes: publishing is refused
    app = _app(tmp_path)
    try:
        done = publish_after_drain(app, ("agents",))
    finally:
        app.close()
    assert done.report is None
    assert done.error is not None and "AGENTS.md is a directory" in done.error and "\n" not in done.error
