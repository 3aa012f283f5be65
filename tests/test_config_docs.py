"""docs/configuration.md names every setting of both settings classes (issue 16: documented once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.cloud.settings import CloudSettings
from autopatch_j.configuration import env_variable
from autopatch_j.llm.sources import LLMSources

DOC = (Path(__file__).resolve().parents[1] / "docs" / "configuration.md").read_text(encoding="utf-8")


def _documented(variable: str) -> bool:
    """Named in full, or as `_TAIL` on a row that names the shared head (`AUTOPATCH_CLOUD_HOST` / `_PORT`)."""
    if f"`{variable}`" in DOC:
        return True
    parts = variable.split("_")
    for cut in range(2, len(parts)):
        head, tail = "_".join(parts[:cut]), "_".join(parts[cut:])
        if any(f"`_{tail}`" in line and f"`{head}_" in line for line in DOC.splitlines()):
            return True
    return False


@pytest.mark.parametrize("field", sorted(CloudSettings.model_fields))
def test_every_cloud_variable_is_documented(field: str) -> None:
    assert _documented(env_variable(CloudSettings, field)), env_variable(CloudSettings, field)


@pytest.mark.parametrize("field", sorted(LLMSources.model_fields))
def test_every_llm_key_and_variable_is_documented(field: str) -> None:
    variable = "AUTOPATCH_DEBUG" if field == "debug" else env_variable(LLMSources, field)
    rows = [line for line in DOC.splitlines() if f"`{variable}`" in line]
    assert rows, variable
    assert any(f"| `{field}` |" in row for row in rows), f"`{field}` is not on the row of {variable}"


def test_no_other_document_repeats_the_tables() -> None:
    for path in (Path(__file__).resolve().parents[1] / "docs").glob("*.md"):
        if path.name != "configuration.md":
            text = path.read_text(encoding="utf-8")
            assert "| `AUTOPATCH_CLOUD_SWEEP_BATCH` |" not in text, path.name
            assert "| `AUTOPATCH_LLM_MODEL`" not in text, path.name
