"""Where the corpora are read from is a value, `CorpusFolder`, passed to whatever reads them: a copy
of the checkout's folder with one part changed is read as that copy, wherever the process stands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from autopatch_j.quality import CorpusFolder, load_part
from autopatch_j.quality.corpus import DEV_FILE, NOT_FOUND, CorpusError
from autopatch_j.quality.paraphrase import load_vocab

CHECKOUT = Path(__file__).resolve().parents[2] / "eval" / "corpus"


def _copy_with_one_test_case(tmp_path: Path) -> CorpusFolder:
    folder = tmp_path / "corpus"
    shutil.copytree(CHECKOUT, folder)
    for name in ("corpus_test21.json", "corpus_test22.json"):
        raw = json.loads((folder / name).read_text(encoding="utf-8"))
        raw["cases"] = raw["cases"][:1]
        (folder / name).write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    return CorpusFolder(folder)


def test_a_part_is_read_from_the_folder_it_is_given(tmp_path: Path) -> None:
    copy = _copy_with_one_test_case(tmp_path)
    assert len(load_part("test", copy).cases) == 2
    assert len(load_part("test", CorpusFolder(CHECKOUT)).cases) > 2
    assert copy.has_part("test") and copy.file(DEV_FILE) == copy.path / DEV_FILE
    assert load_vocab(copy) == load_vocab(CorpusFolder(CHECKOUT))


def test_a_folder_without_a_part_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "dev-only"
    folder.mkdir()
    shutil.copyfile(CHECKOUT / DEV_FILE, folder / DEV_FILE)
    assert not CorpusFolder(folder).has_part("test")
    with pytest.raises(CorpusError, match="no test part"):
        load_part("test", CorpusFolder(folder))


def test_outside_a_checkout_the_checkout_folder_is_not_found(tmp_path: Path) -> None:
    assert CorpusFolder.of_checkout(CHECKOUT).path == CHECKOUT
    with pytest.raises(CorpusError, match="not installed with the package"):
        CorpusFolder.of_checkout(tmp_path)
    assert NOT_FOUND.startswith("The quality corpora are not installed")
