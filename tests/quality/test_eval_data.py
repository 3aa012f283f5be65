"""The quality corpora live in the repository's `eval/corpus/`, pinned by a manifest, and not in the
wheel: `autopatch-j eval` reads them from a checkout or `--corpus DIR`, and an installed package
outside a checkout says in one sentence where to get them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autopatch_j.quality.assent_data import ASSENT_FIXES
from autopatch_j.quality.corpus import PART_FILES, RETIRED
from autopatch_j.quality.joining_data import JOINING_FIXES
from autopatch_j.quality.paraphrase import VOCAB_FILE
from autopatch_j.quality.reader_data import READER_FIXES
from autopatch_j.quality.revision_fixes import REVISION_FIXES
from autopatch_j.quality.speech_data import FIXES, NEGATIVES

# the wheel is built once (module fixture) (docs/testing.md)
pytestmark = pytest.mark.xdist_group("wheel")

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "eval" / "corpus"
WHERE = (
    "error: The quality corpora are not installed with the package: run this from a checkout of the "
    "autopatch-j repository, which holds them in eval/corpus/, or pass --corpus DIR."
)


def _manifest() -> dict[str, dict[str, str | None]]:
    data = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    return {entry["file"]: entry for entry in data["files"]}


def test_the_manifest_pins_every_corpus_file_by_its_sha256() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "corpus_manifest.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    entries = _manifest()
    assert set(entries) == {
        *PART_FILES["dev"],
        *PART_FILES["test"],
        VOCAB_FILE,
        NEGATIVES,
        FIXES,
        READER_FIXES,
        JOINING_FIXES,
        REVISION_FIXES,
        ASSENT_FIXES,
    }
    assert {name for name, e in entries.items() if e["part"] == "test"} == set(PART_FILES["test"])
    for name, figure in RETIRED.items():  # the figure each retired part was measured at, once
        assert entries[name]["first_look"] == figure
    for entry in entries.values():
        assert entry["author"]
        assert entry["account"] is None or (ROOT / str(entry["account"])).is_file()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this tree's sources (copied, so the build leaves nothing in the checkout)."""
    tree = tmp_path_factory.mktemp("tree")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(tree),
            "--no-deps",
            "--disable-pip-version-check",
            "-q",
            "-w",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = out.glob("autopatch_j-*.whl")
    return built


def test_the_wheel_carries_no_corpus(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {Path(name).name for name in names}
    assert not shipped & set(_manifest()), sorted(shipped & set(_manifest()))
    assert not [n for n in names if n.startswith("autopatch_j/quality/") and n.endswith(".json")]
    # what the running package reads is still there
    assert {"autopatch_j/memory/speech_model.json", "autopatch_j/memory/lexicon.json"} <= set(names)


@pytest.fixture(scope="module")
def site(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel unpacked once, with the package imported from it in a folder outside any checkout."""
    site = tmp_path_factory.mktemp("site")
    zipfile.ZipFile(wheel).extractall(site)
    home = tmp_path_factory.mktemp("home")
    cwd = home / "elsewhere"
    cwd.mkdir()
    where = subprocess.run(
        [sys.executable, "-c", "import autopatch_j.quality.corpus as c; print(c.__file__)"],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(site), "HOME": str(home)},
        capture_output=True,
        text=True,
    )
    assert where.stdout.strip().startswith(str(site)), where.stdout + where.stderr
    return site


def _run_from_wheel(site: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m autopatch_j ARGS` with the package imported from the unpacked wheel (`site`), in a
    folder outside any checkout."""
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "HOME": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-m", "autopatch_j", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("args", [(), ("--part", "generated"), ("--json", "--part", "dev")])
def test_eval_from_the_wheel_outside_a_checkout_says_where_the_corpora_are(
    site: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    done = _run_from_wheel(site, tmp_path, "eval", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert " ".join(done.stderr.split()) == WHERE
    assert "Traceback" not in done.stdout + done.stderr


def test_eval_from_the_wheel_reads_the_corpora_given_by_corpus_dir(site: Path, tmp_path: Path) -> None:
    corpora = tmp_path / "corpora"
    shutil.copytree(CORPUS, corpora)
    dev = json.loads((corpora / "corpus.json").read_text(encoding="utf-8"))
    dev["version"] = "9.9.9"  # a copy of our own, to see that this folder is the one read
    dev["changelog"].append({"version": "9.9.9", "date": "2026-12-03", "changes": "A test's copy."})
    (corpora / "corpus.json").write_text(json.dumps(dev, ensure_ascii=False), encoding="utf-8")
    done = _run_from_wheel(site, tmp_path, "eval", "--corpus", str(corpora), "--part", "dev", "--sample", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "eval dev: 2 cases (a stratified sample of 2316), corpus 9.9.9, mode offline" in done.stderr
