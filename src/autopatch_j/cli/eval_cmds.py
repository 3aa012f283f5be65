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
from pathlib import Path
from typing import IO, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from autopatch_j.app.context import AppContext
from autopatch_j.app.render import emit_json, say
from autopatch_j.cli.invocation import app_context

LIVE_SWITCH = "AUTOPATCH_LIVE_EVAL"


LIVE_PARTIAL_FILE = Path(".autopatch-j") / "eval-live.partial.jsonl"
DEFAULT_SEED = 6  # fixed, so CI runs are reproducible; every report prints the seed it used


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


DEFAULT_PARTS = "dev,test"


def _parts(app: AppContext, raw: str) -> list[str] | None:
    """The parts named by `--part` ("dev", "test", "generated", comma-separated, or "all")."""
    from autopatch_j.quality import PARTS, bundled_part_exists

    names = list(PARTS) if raw.strip() == "all" else [p.strip() for p in raw.split(",") if p.strip()]
    unknown = [p for p in names if p not in PARTS]
    if not names or unknown:
        say(app.err_console, f"error: --part takes {', '.join(PARTS)} (comma-separated) or all, not {raw!r}.")
        return None
    if raw == DEFAULT_PARTS:  # the default runs the test part only when this build bundles it
        names = [p for p in names if p == "dev" or bundled_part_exists(p)]
    elif raw.strip() == "all":
        names = [p for p in names if p != "test" or bundled_part_exists(p)]
    missing = [p for p in names if p != "generated" and not bundled_part_exists(p)]
    if missing:
        say(app.err_console, f"error: this build has no {missing[0]} part (its held-out file is not bundled yet).")
        return None
    return list(dict.fromkeys(names))


def run_eval(
    app: AppContext,
    *,
    mode: str,
    corpus_file: Path | None,
    seed: int | None,
    as_json: bool,
    retry_rounds: int | None = None,
    part: str = DEFAULT_PARTS,
    sample: int | None = None,
    partial: Path | None = None,
) -> int:
    """Run the evaluation and render it; returns the exit code (1 when an invariant breaks)."""
    from autopatch_j.quality import BUNDLED, MODES, NOT_FOUND, find_corpus_dir, use_corpus_dir

    if mode not in MODES:
        say(app.err_console, f"error: --mode must be one of {', '.join(MODES)}, not {mode!r}.")
        return 2
    if sample is not None and sample < 1:
        say(app.err_console, f"error: --sample must be a positive number of cases, not {sample}.")
        return 2
    folder = corpus_file if corpus_file is not None and (corpus_file / BUNDLED).is_file() else None
    if part.strip() == "realistic" or (corpus_file is not None and corpus_file.is_dir() and folder is None):
        from autopatch_j.cli.eval_realistic import run_realistic

        return run_realistic(
            app,
            directory=corpus_file,
            mode=mode,
            as_json=as_json,
            sample=sample,
            seed=_seed(app, seed),
            provider=_live_provider(app) if mode == "live" else None,
        )
    if corpus_file is not None and folder is None:
        return _run_corpora(app, mode, corpus_file, seed, as_json, retry_rounds, part, sample, partial)
    folder = folder or find_corpus_dir(app.root, Path(__file__).parent)
    if folder is None:  # an installed package outside a checkout: the wheel carries no corpus
        say(app.err_console, f"error: {NOT_FOUND}.")
        return 2
    with use_corpus_dir(folder):
        return _run_corpora(app, mode, None, seed, as_json, retry_rounds, part, sample, partial)


def _run_corpora(
    app: AppContext,
    mode: str,
    corpus_file: Path | None,
    seed: int | None,
    as_json: bool,
    retry_rounds: int | None,
    part: str,
    sample: int | None,
    partial: Path | None,
) -> int:
    """The dev/test/generated parts (from `corpus_dir()`) or one corpus file, evaluated and rendered."""
    from autopatch_j.quality import DEFAULT_RETRY_ROUNDS, Corpus, load_corpus, load_part, stratified_sample
    from autopatch_j.quality import evaluate_corpus as evaluate

    if corpus_file is not None:
        named: list[str] = ["file"]
    else:
        chosen_parts = _parts(app, part)
        if chosen_parts is None:
            return 2
        named = chosen_parts
    provider = _live_provider(app) if mode == "live" else None
    corpora: dict[str, Corpus] = {
        name: load_corpus(corpus_file) if name == "file" else load_part(name) for name in named
    }
    chosen = _seed(app, seed)
    rounds = retry_rounds if retry_rounds is not None else DEFAULT_RETRY_ROUNDS
    totals = {name: len(corpus.cases) for name, corpus in corpora.items()}
    if sample is not None:
        corpora = {name: stratified_sample(corpus, sample, seed=chosen) for name, corpus in corpora.items()}
    if partial is None and mode == "live":
        partial = app.root / LIVE_PARTIAL_FILE
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
            if name != "file":
                reports[name]["files"] = _by_file(name, reports[name]["cases"])
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


def _by_file(part: str, cases: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Cases and passes per file of a part made of several files (dev: corpus.json + the retired test)."""
    from autopatch_j.quality import part_case_ids

    return {
        name: {"cases": len(mine), "passed": sum(c["passed"] for c in mine)}
        for name, ids in part_case_ids(part).items()
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
        code = run_eval(
            app_context(ctx),
            mode=mode,
            corpus_file=corpus,
            seed=seed,
            as_json=as_json,
            retry_rounds=retry_rounds,
            part=part,
            sample=sample,
            partial=partial,
        )
        if code:
            raise typer.Exit(code)
