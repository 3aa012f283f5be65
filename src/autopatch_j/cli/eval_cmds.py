"""`autopatch-j eval [--json] [--part P] [--corpus FILE|DIR] [--mode offline|canned|live] [--seed N] [--sample N]
[--partial FILE]` (M-81 … M-83).

Runs the quality corpus through the real pipeline in scratch projects (never the current project's
Memory) and prints per-category precision/recall and the five invariants of M-82, for each part
separately: `dev` (tuned on), `test` (held out, never tuned on) and `generated` (the
paraphrase set). The corpora are read from the checkout's `eval/corpus/` (found from the project
root or the package's own location) or from `--corpus DIR`; the installed package carries none.
`--part realistic` (with `--corpus DIR` or from a checkout's `eval/realistic/`) runs the realistic
multi-turn sessions and scores memories, not cases (`cli/eval_realistic.py`).
Exit code 1 when any invariant breaks in any part — CI runs the offline and canned
modes. The live mode calls the configured
OpenAI-compatible model for extraction and consolidation, and only when `AUTOPATCH_LIVE_EVAL=1`
(M-83); it never runs in default CI.

For slow models: a progress line per finished case on stderr (unless `--json`);
`--partial FILE` appends one JSON line per finished case as it goes (flushed), then a final summary
line — the live mode writes `.autopatch-j/eval-live.partial.jsonl` by default — so a time cap still
leaves figures; `--sample N` runs a stratified sample of N cases (spread over the categories,
chosen by the seed).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from autopatch_j.app.context import AppContext
from autopatch_j.app.render import emit_json, say
from autopatch_j.cli.invocation import app_context

if TYPE_CHECKING:
    from autopatch_j.quality import CorpusFolder

LIVE_SWITCH = "AUTOPATCH_LIVE_EVAL"


LIVE_PARTIAL_FILE = Path(".autopatch-j") / "eval-live.partial.jsonl"
DEFAULT_SEED = 6  # fixed, so CI runs are reproducible; every report prints the seed it used


DEFAULT_PARTS = "dev,test"


@dataclass(frozen=True, slots=True)
class EvalOptions:
    """One `eval` invocation's options, as given on the command line."""

    mode: str = "offline"
    corpus: Path | None = None  # --corpus: a corpus file, a folder of the corpora, or of realistic sessions
    seed: int | None = None  # None: AUTOPATCH_EVAL_SEED, else DEFAULT_SEED
    as_json: bool = False
    retry_rounds: int | None = None
    part: str = DEFAULT_PARTS
    sample: int | None = None
    partial: Path | None = None


def _seed(app: AppContext, seed: int | None) -> int:
    if seed is not None:
        return seed
    return DEFAULT_SEED if app.switches.eval_seed is None else app.switches.eval_seed


def _live_provider(app: AppContext) -> Any:
    from autopatch_j.llm.openai_provider import OpenAIProvider

    if not app.switches.live_eval:
        say(app.err_console, f"error: the live evaluation calls a real model; set {LIVE_SWITCH}=1 to run it.")
        raise typer.Exit(2)
    settings = app.llm_settings()
    if settings is None:
        say(
            app.err_console,
            "error: no LLM is configured; set AUTOPATCH_LLM_BASE_URL, AUTOPATCH_LLM_MODEL (and AUTOPATCH_LLM_API_KEY).",
        )
        raise typer.Exit(5)
    return OpenAIProvider(settings=settings)


def _parts(app: AppContext, raw: str, folder: CorpusFolder) -> list[str] | None:
    """The parts named by `--part` ("dev", "test", "generated", comma-separated, or "all")."""
    from autopatch_j.quality import PART_FILES, PARTS

    names = list(PARTS) if raw.strip() == "all" else [p.strip() for p in raw.split(",") if p.strip()]
    unknown = [p for p in names if p not in PARTS]
    if not names or unknown:
        say(app.err_console, f"error: --part takes {', '.join(PARTS)} (comma-separated) or all, not {raw!r}.")
        return None
    if raw == DEFAULT_PARTS:  # the default runs the test part only when the folder has it
        names = [p for p in names if p == "dev" or folder.has_part(p)]
    elif raw.strip() == "all":
        names = [p for p in names if p != "test" or folder.has_part(p)]
    missing = [p for p in names if p != "generated" and not folder.has_part(p)]
    if missing:
        files = ", ".join(PART_FILES[missing[0]])
        say(app.err_console, f"error: {folder.path} has no {missing[0]} part ({files} is missing).")
        return None
    return list(dict.fromkeys(names))


def run_eval(app: AppContext, options: EvalOptions) -> int:
    """Run the evaluation and render it; returns the exit code (1 when an invariant breaks)."""
    from autopatch_j.quality import DEV_FILE, MODES, NOT_FOUND, CorpusFolder, find_corpus_dir

    if options.mode not in MODES:
        say(app.err_console, f"error: --mode must be one of {', '.join(MODES)}, not {options.mode!r}.")
        return 2
    if options.sample is not None and options.sample < 1:
        say(app.err_console, f"error: --sample must be a positive number of cases, not {options.sample}.")
        return 2
    given = options.corpus
    folder = given if given is not None and (given / DEV_FILE).is_file() else None
    if options.part.strip() == "realistic" or (given is not None and given.is_dir() and folder is None):
        from autopatch_j.cli.eval_realistic import run_realistic

        return run_realistic(
            app,
            directory=given,
            mode=options.mode,
            as_json=options.as_json,
            sample=options.sample,
            seed=_seed(app, options.seed),
            provider=_live_provider(app) if options.mode == "live" else None,
        )
    if given is not None and folder is None:
        return _run_corpora(app, options, None, corpus_file=given)
    folder = folder or find_corpus_dir(app.root, Path(__file__).parent)
    if folder is None:  # an installed package outside a checkout: the wheel carries no corpus
        say(app.err_console, f"error: {NOT_FOUND}.")
        return 2
    return _run_corpora(app, options, CorpusFolder(folder))


def _run_corpora(
    app: AppContext, options: EvalOptions, folder: CorpusFolder | None, *, corpus_file: Path | None = None
) -> int:
    """The dev/test/generated parts of `folder`, or the one `corpus_file`, evaluated and rendered."""
    from autopatch_j.quality import DEFAULT_RETRY_ROUNDS, Corpus, load_corpus, load_part, stratified_sample
    from autopatch_j.quality import evaluate_corpus as evaluate

    mode = options.mode
    corpora: dict[str, Corpus]
    if folder is None:
        corpora = {"file": load_corpus(corpus_file)}
    else:
        named = _parts(app, options.part, folder)
        if named is None:
            return 2
        corpora = {name: load_part(name, folder) for name in named}
    provider = _live_provider(app) if mode == "live" else None
    chosen = _seed(app, options.seed)
    rounds = options.retry_rounds if options.retry_rounds is not None else DEFAULT_RETRY_ROUNDS
    totals = {name: len(corpus.cases) for name, corpus in corpora.items()}
    if options.sample is not None:
        corpora = {name: stratified_sample(corpus, options.sample, seed=chosen) for name, corpus in corpora.items()}
    partial = options.partial
    if partial is None and mode == "live":
        partial = app.root / LIVE_PARTIAL_FILE
    as_json = options.as_json
    if not as_json and partial is not None:
        say(app.err_console, f"eval: partial results are written to {partial} as cases finish")
    reports: dict[str, dict[str, Any]] = {}
    ok = True
    with _PartialResults(partial, app, quiet=as_json, total=sum(len(c.cases) for c in corpora.values())) as progress:
        for name, corpus in corpora.items():
            if not as_json:
                sampled = f" (a stratified sample of {totals[name]})" if len(corpus.cases) < totals[name] else ""
                say(
                    app.err_console,
                    f"eval {name}: {len(corpus.cases)} cases{sampled}, corpus {corpus.version}, mode {mode}, "
                    f"seed {chosen}",
                )
            progress.part = name
            report = evaluate(
                corpus,
                mode=mode,  # type: ignore[arg-type]
                seed=chosen,
                live_provider=provider,
                retry_rounds=rounds,
                on_case=progress.case_done,
            )
            reports[name] = {"part": name, **report.to_dict()}
            if folder is not None:
                reports[name]["files"] = _by_file(folder, name, reports[name]["cases"])
            progress.finish(reports[name])
            ok = ok and report.invariants_ok
    payload = {"mode": mode, "seed": chosen, "invariants_ok": ok, "parts": reports}
    if as_json:
        emit_json(app.console, payload)
    else:
        for name, report_dict in reports.items():
            say(app.console, f"== part {name} ==", "bold")
            _render(app, report_dict)
        if len(reports) > 1 or any(len(r.get("files", {})) > 1 for r in reports.values()):
            say(app.console, "summary: " + "; ".join(_summary(n, r) for n, r in reports.items()), "bold")
    return 0 if ok else 1


def _by_file(folder: CorpusFolder, part: str, cases: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Cases and passes per file of a part made of several files (dev: corpus.json + the retired test)."""
    return {
        name: {"cases": len(mine), "passed": sum(c["passed"] for c in mine)}
        for name, ids in folder.part_case_ids(part).items()
        for mine in [[c for c in cases if c["id"] in ids]]
    }


def _summary(name: str, report: dict[str, Any]) -> str:
    t = report["totals"]
    files = report.get("files", {})
    split = "; ".join(f"{f} {n['passed']}/{n['cases']}" for f, n in files.items()) if len(files) > 1 else ""
    split = f" ({split})" if split else ""
    return (
        f"{name} {t['passed']}/{t['cases']} passed{split}, precision {_fmt(t['precision'])}, recall {_fmt(t['recall'])}"
    )


class _PartialResults:
    """Progress on stderr and, with a file, one flushed JSON line per finished case, then a summary."""

    def __init__(self, path: Path | None, app: AppContext, *, quiet: bool, total: int) -> None:
        self._path = path
        self._app = app
        self._quiet = quiet
        self._total = total
        self._done = 0
        self._passed = 0
        self._started = time.monotonic()
        self._file: IO[str] | None = None
        self.part = ""

    def __enter__(self) -> _PartialResults:
        if self._path is not None:
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self._path.open("w", encoding="utf-8")
            except OSError as exc:
                say(self._app.err_console, f"error: cannot write {self._path}: {exc.strerror or exc}.")
                raise typer.Exit(2) from exc
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()

    def _write(self, record: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
            self._file.flush()

    def case_done(self, score: Any) -> None:
        self._done += 1
        self._passed += int(score.passed)
        elapsed = round(time.monotonic() - self._started, 1)
        self._write(
            {"part": self.part, "case": score.to_dict(), "done": self._done, "of": self._total, "elapsed_s": elapsed}
        )
        if not self._quiet:
            verdict = "passed" if score.passed else "FAILED"
            say(
                self._app.err_console,
                f"[{self._done}/{self._total}] {score.id} ({score.category}) {verdict} · "
                f"{self._passed} passed so far · {elapsed} s",
                "dim",
            )

    def finish(self, payload: dict[str, Any]) -> None:
        summary = {k: payload[k] for k in ("mode", "seed", "invariants", "invariants_ok", "totals", "elapsed_s")}
        self._write({"final": True, "part": self.part, **summary})


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _render(app: AppContext, payload: dict[str, Any]) -> None:
    c = app.console
    table = Table(
        "category", "cases", "passed", "precision", "recall", "query P", "query R", "fp", "fn", highlight=False
    )
    for name, f in payload["categories"].items():
        table.add_row(
            *(
                Text(str(v))
                for v in (
                    name,
                    f["cases"],
                    f["passed"],
                    _fmt(f["precision"]),
                    _fmt(f["recall"]),
                    _fmt(f["query_precision"]),
                    _fmt(f["query_recall"]),
                    f["fp"],
                    f["fn"],
                )
            )
        )
    c.print(table)
    t = payload["totals"]
    say(
        c,
        f"total: {t['passed']}/{t['cases']} cases passed; "
        f"precision {_fmt(t['precision'])}, recall {_fmt(t['recall'])}, "
        f"query precision {_fmt(t['query_precision'])}, query recall {_fmt(t['query_recall'])}",
    )
    ok = payload["invariants_ok"]
    say(
        c,
        "invariants: " + ", ".join(f"{k}={v}" for k, v in payload["invariants"].items()),
        "green" if ok else "bold red",
    )
    for case in payload["cases"]:
        if not case["passed"]:
            say(c, f"  {case['id']} ({case['category']}): " + "; ".join(case["notes"][:4]), "yellow")
    say(c, f"mode {payload['mode']}, seed {payload['seed']}, {payload['elapsed_s']} s")


def register(app: typer.Typer) -> None:
    """Add the top-level `eval` command."""

    @app.command("eval")
    def eval_command(
        ctx: typer.Context,
        as_json: Annotated[bool, typer.Option("--json", help="Print the whole report as stable JSON.")] = False,
        corpus: Annotated[
            Path | None,
            typer.Option(
                "--corpus",
                help="A corpus JSON file, a folder of the corpora (default: the checkout's eval/corpus/), "
                "or a folder of realistic sessions.",
            ),
        ] = None,
        mode: Annotated[
            str,
            typer.Option(
                "--mode",
                help="offline (rules extractor), canned (scripted model), or live (the configured model; "
                f"needs {LIVE_SWITCH}=1).",
            ),
        ] = "offline",
        seed: Annotated[
            int | None, typer.Option("--seed", help="Seed of the randomized choices (default: AUTOPATCH_EVAL_SEED).")
        ] = None,
        retry_rounds: Annotated[
            int | None,
            typer.Option(
                "--retry-rounds", help="Drains per step for failing jobs (default 6; fewer for a slow live model)."
            ),
        ] = None,
        part: Annotated[
            str,
            typer.Option(
                "--part",
                help="Corpus parts, each reported separately: dev, test, generated (comma-separated) or all "
                "(default: dev,test — test when present), or realistic (the checkout's eval/realistic/ "
                "sessions, scored per memory). Ignored with --corpus FILE.",
            ),
        ] = DEFAULT_PARTS,
        sample: Annotated[
            int | None,
            typer.Option("--sample", help="Run a stratified sample of N cases (spread over the categories)."),
        ] = None,
        partial: Annotated[
            Path | None,
            typer.Option(
                "--partial",
                help="Append one JSON line per finished case to FILE as it goes "
                f"(live mode default: {LIVE_PARTIAL_FILE}).",
            ),
        ] = None,
    ) -> None:
        """Measure Memory quality on the zh/en corpus: precision/recall per category and the invariants.

        The live mode calls the configured model and runs only with AUTOPATCH_LIVE_EVAL=1; it shows
        progress per case and writes partial results as it goes.
        """
        options = EvalOptions(
            mode=mode,
            corpus=corpus,
            seed=seed,
            as_json=as_json,
            retry_rounds=retry_rounds,
            part=part,
            sample=sample,
            partial=partial,
        )
        code = run_eval(app_context(ctx), options)
        if code:
            raise typer.Exit(code)
