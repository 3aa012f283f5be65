"""The realistic-session part: multi-turn sessions with memory-level gold, read from `eval/realistic/`.

Sessions are written from the spec alone by authors who never saw the extractor (format:
`eval/realistic/FORMAT.md`). Each file holds one author's batch; `manifest.json` beside the
folders lists every file with its sha256 and author, and the loader refuses a file whose bytes do
not match (an edited gold file is a different measurement). The part lives in the repository's
`eval/` folder, not in the installed package: `autopatch-j eval --part realistic` finds it from a
checkout, or reads `--corpus DIR` (a folder with a `manifest.json`, or any folder of batch files).

Validation is strict (pydantic, `extra="forbid"`) and complete: every quote must be an exact
substring of the turn side it names, a superseded memory names the memory that replaced it, and no
two gold memories on one subject are active at the end. A broken file fails with one sentence.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from autopatch_j.memory.records import MemoryKind
from autopatch_j.quality.corpus import CorpusError, find_checkout_folder
from autopatch_j.quality.corpus import GoldSource as Quote

RoleName = Literal["user", "assistant"]
GoldState = Literal["active", "superseded", "retired"]
WhyName = Literal[
    "pasted",
    "report",
    "one_off",
    "temporary",
    "deferred",
    "hypothetical",
    "question",
    "code_fact",
    "assistant_claim",
    "chit_chat",
]
WHY: tuple[str, ...] = WhyName.__args__  # type: ignore[attr-defined]
MANIFEST = "manifest.json"
#: Where the part lives in a checkout, relative to the repository root.
CHECKOUT_DIR = Path("eval") / "realistic"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Turn(_Strict):
    user: str = Field(min_length=1)
    assistant: str


class GoldMemory(_Strict):
    key: str = Field(min_length=1)
    kind: MemoryKind
    subject: str = Field(min_length=1)
    title: str = Field(min_length=1)
    content: str = Field(min_length=1)
    sources: tuple[Quote, ...] = Field(min_length=1)
    state: GoldState
    superseded_by: str | None = None


class NotMemory(_Strict):
    turn: int = Field(ge=0)
    quote: str = Field(min_length=1)
    why: WhyName
    role: RoleName = "user"


class GoldQuery(_Strict):
    query: str = Field(min_length=1)
    target: str | None


class Session(_Strict):
    id: str = Field(min_length=1)
    language: Literal["en", "zh", "mixed"]
    note: str = ""
    turns: tuple[Turn, ...] = Field(min_length=1)
    memories: tuple[GoldMemory, ...] = ()
    not_memories: tuple[NotMemory, ...] = ()
    queries: tuple[GoldQuery, ...] = ()

    def text(self, turn: int, role: str) -> str:
        side = self.turns[turn]
        return side.user if role == "user" else side.assistant


class Batch(_Strict):
    author: str = Field(min_length=1)
    batch: int = Field(ge=0)
    sessions: tuple[Session, ...] = Field(min_length=1)


class ManifestEntry(_Strict):
    file: str = Field(min_length=1)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    author: str = Field(min_length=1)
    part: Literal["dev"] = "dev"
    written: str = ""


class Manifest(_Strict):
    files: tuple[ManifestEntry, ...] = Field(min_length=1)


class RealisticPart(_Strict):
    """Every session of the part, with the author of each (sessions keep their file order)."""

    source: str
    sessions: tuple[Session, ...]
    authors: dict[str, str]  # session id -> author

    @property
    def author_names(self) -> list[str]:
        return list(dict.fromkeys(self.authors.values()))


def _problems(session: Session) -> list[str]:
    p: list[str] = []
    n = len(session.turns)

    def quote_ok(q: Quote | NotMemory, where: str) -> None:
        if q.turn >= n:
            p.append(f"{where}: turn {q.turn} out of range")
        elif q.quote not in session.text(q.turn, q.role):
            p.append(f"{where}: quote is not an exact substring of turn {q.turn} {q.role}: {q.quote[:60]!r}")

    keys = [m.key for m in session.memories]
    if len(set(keys)) != len(keys):
        p.append("memory keys must be unique")
    active: Counter[str] = Counter()
    for m in session.memories:
        for j, src in enumerate(m.sources):
            quote_ok(src, f"{m.key} source {j}")
        if m.kind != "discussion_context" and not any(s.role == "user" for s in m.sources):
            p.append(f"{m.key}: a preference or decision needs a user source")
        if m.state == "superseded" and (m.superseded_by not in keys or m.superseded_by == m.key):
            p.append(f"{m.key}: superseded needs superseded_by naming another memory")
        if m.state != "superseded" and m.superseded_by is not None:
            p.append(f"{m.key}: superseded_by only for state superseded")
        if m.state == "active":
            active[m.subject] += 1
    p.extend(f"{count} active memories on subject {s!r}" for s, count in active.items() if count > 1)
    for j, nm in enumerate(session.not_memories):
        quote_ok(nm, f"not_memories {j}")
    live = {m.key for m in session.memories if m.state == "active"}
    p.extend(f"query {j} targets {q.target!r}, not an active memory" for j, q in enumerate(session.queries)
             if q.target is not None and q.target not in live)  # fmt: skip
    return [f"{session.id}: {x}" for x in p]


def _read_batch(path: Path) -> Batch:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        batch = Batch.model_validate(json.loads(raw.decode("utf-8")))
    except (ValueError, ValidationError) as exc:
        first = str(exc).splitlines()
        raise CorpusError(f"{path} is not a valid realistic-session batch: {' '.join(first[:3])}") from exc
    problems = [x for s in batch.sessions for x in _problems(s)]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise CorpusError(f"{path}: {problems[0]}{more}")
    return batch


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def json_strings(directory: Path, *, min_chars: int = 8) -> list[str]:
    """Every string of at least `min_chars` characters in the `*.json` files below `directory`
    (files in path order, strings in document order; ids, notes and queries included): bulk text
    that holds no real secret, for redaction's benchmark and its judge's negatives."""
    found: list[str] = []
    for path in sorted(directory.rglob("*.json")):
        _strings(json.loads(path.read_text(encoding="utf-8")), min_chars, found)
    return found


def _strings(node: object, min_chars: int, out: list[str]) -> None:
    if isinstance(node, str) and len(node) >= min_chars:
        out.append(node)
    elif isinstance(node, dict):
        for value in node.values():
            _strings(value, min_chars, out)
    elif isinstance(node, list):
        for value in node:
            _strings(value, min_chars, out)


def load_realistic(directory: Path) -> RealisticPart:
    """Read the part in `directory`: through its manifest (sha256 checked), or every `*.json` below it."""
    if not directory.is_dir():
        raise CorpusError(f"{directory} is not a folder of realistic sessions")
    manifest_path = directory / MANIFEST
    files: list[tuple[Path, str | None]] = []
    if manifest_path.is_file():
        try:
            manifest = Manifest.model_validate(json.loads(manifest_path.read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError) as exc:
            raise CorpusError(f"{manifest_path} is not a valid manifest: {str(exc).splitlines()[0]}") from exc
        for entry in manifest.files:
            path = directory / entry.file
            if not path.is_file():
                raise CorpusError(f"{manifest_path} lists {entry.file}, which does not exist")
            if sha256_of(path) != entry.sha256:
                raise CorpusError(f"{entry.file} does not match its sha256 in {manifest_path}")
            files.append((path, entry.author))
    else:
        files = [(path, None) for path in sorted(directory.rglob("*.json"))]
    if not files:
        raise CorpusError(f"{directory} holds no realistic-session batch files")
    sessions: list[Session] = []
    authors: dict[str, str] = {}
    for path, author in files:
        batch = _read_batch(path)
        if author is not None and batch.author != author:
            raise CorpusError(f"{path} is by {batch.author!r}, but the manifest says {author!r}")
        for session in batch.sessions:
            if session.id in authors:
                raise CorpusError(f"{path}: session id {session.id!r} appears twice in the part")
            authors[session.id] = batch.author
            sessions.append(session)
    return RealisticPart(source=str(directory), sessions=tuple(sessions), authors=authors)


def find_checkout_part(*starts: Path) -> Path | None:
    """The `eval/realistic` folder of the checkout holding one of `starts` (walking up), if any."""
    return find_checkout_folder(CHECKOUT_DIR, *starts)


#: Folders of `eval/realistic/` beside the manifest's dev part that the sentence reader learns from too
#: (every `*.json` below each): `test/` and `measured/` (the held-out parts of earlier rounds, each
#: measured once before it became training material). The other models read the manifest only.
TRAINING_FOLDERS = ("test", "measured")


def training_parts(directory: Path) -> dict[str, RealisticPart]:
    """What the sentence reader learns from: the manifest's dev part and each of TRAINING_FOLDERS that
    exists. An author in two of them is refused (their sessions would be one training group)."""
    parts = {"dev": load_realistic(directory)}
    for name in TRAINING_FOLDERS:
        if (directory / name).is_dir():
            parts[name] = load_realistic(directory / name)
    seen: dict[str, str] = {}
    for name, part in parts.items():
        for author in part.author_names:
            if seen.setdefault(author, name) != name:
                raise CorpusError(f"author {author!r} is in both {seen[author]}/ and {name}/ of {directory}")
    return parts


def training_digests(directory: Path) -> dict[str, str]:
    """The sha256 of what `training_parts` reads, per part (`realistic/manifest.json`, `realistic/<folder>`)."""
    digests = {"realistic/" + MANIFEST: sha256_of(directory / MANIFEST)}
    for name in TRAINING_FOLDERS:
        if (directory / name).is_dir():
            files = sorted((directory / name).rglob("*.json"))
            joined = "".join(f"{p.relative_to(directory)} {sha256_of(p)}\n" for p in files)
            digests[f"realistic/{name}"] = hashlib.sha256(joined.encode("utf-8")).hexdigest()
    return digests
