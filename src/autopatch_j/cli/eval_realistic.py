"""`autopatch-j eval --part realistic [--corpus DIR]`: memory-level figures on realistic sessions.

The part is read from the checkout's `eval/realistic/` (found by walking up from the project root
and from the installed package) or from `--corpus DIR`; the wheel carries none of it. Scoring is
`quality/realistic_eval.py`; the exit code is 1 when an active memory contradicts another or a
memory the user took back (the part's invariant).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from autopatch_j.app.context import AppContext
from autopatch_j.app.render import emit_json, say

PART = "realistic"


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def run_realistic(
    app: AppContext,
    *,
    directory: Path | None,
    mode: str,
    as_json: bool,
    sample: int | None,
    seed: int,
    provider: Any = None,
) -> int:
    """Run the realistic part and render it; returns the exit code."""
    from autopatch_j.memory.errors import InvalidInputError
    from autopatch_j.quality import (
        SessionScore,
        evaluate_realistic,
        find_checkout_part,
        load_realistic,
        sample_sessions,
    )

    if mode not in ("offline", "live"):
        say(app.err_console, f"error: the realistic part runs in the offline or live mode, not {mode!r}.")
        return 2
    if directory is None:
        directory = find_checkout_part(app.root, Path(__file__).parent)
        if directory is None:
            say(
                app.err_console,
                "error: no realistic part found; run from a checkout (eval/realistic/) or pass --corpus DIR.",
            )
            return 2
    try:
        part = load_realistic(directory)
    except InvalidInputError as exc:
        say(app.err_console, f"error: {exc}.".replace("..", "."))
        return 2
    total = len(part.sessions)
    if sample is not None:
        part = sample_sessions(part, sample, seed=seed)
    if not as_json:
        sampled = f" (a sample of {total})" if len(part.sessions) < total else ""
        say(app.err_console, f"eval realistic: {len(part.sessions)} sessions{sampled} from {directory}, mode {mode}")
    done = [0]

    def progress(score: SessionScore) -> None:
        done[0] += 1
        if not as_json:
            say(
                app.err_console,
                f"[{done[0]}/{len(part.sessions)}] {score.id}: {score.right}/{score.stored_active} right, "
                f"{score.found}/{score.gold_active} found",
                "dim",
            )

    if mode == "live":
        from autopatch_j.memory.extractor import LLMExtractor

        report = evaluate_realistic(
            part, extractor_factory=lambda: LLMExtractor(provider=provider), mode=mode, on_session=progress
        )
    else:
        report = evaluate_realistic(part, mode=mode, on_session=progress)
    payload = report.to_dict()
    if as_json:
        emit_json(app.console, {"mode": mode, "invariants_ok": report.invariants_ok, "parts": {PART: payload}})
    else:
        _render(app, payload)
    return 0 if report.invariants_ok else 1


def _render(app: AppContext, payload: dict[str, Any]) -> None:
    c = app.console
    say(c, "== part realistic ==", "bold")
    for name, f in [*payload["authors"].items(), ("total", payload["totals"])]:
        say(
            c,
            f"{name}: {f['sessions']} sessions; precision {_fmt(f['precision'])} ({f['right']}/{f['stored_active']}), "
            f"recall {_fmt(f['recall'])} ({f['found']}/{f['gold_active']}); pasted {f['pasted']}, "
            f"from not-memories {sum(f['from_not_memories'].values())}, duplicates {f['duplicates']}; "
            f"stale {f['stale']}, subject conflicts {f['subject_conflicts']} + {f['store_subject_conflicts']} stored; "
            f"query recall {_fmt(f['query_recall'])}, query false hits {f['query_false_hits']}",
        )
    t = payload["totals"]
    say(
        c,
        f"total: precision {_fmt(t['precision'])} ({t['right']}/{t['stored_active']}), recall {_fmt(t['recall'])} "
        f"({t['found']}/{t['gold_active']}), memories from pasted material {t['pasted']}, "
        f"contradictions {t['contradictions']}",
    )
    say(
        c,
        f"invariants: contradictions={payload['invariants']['contradictions']}",
        "green" if payload["invariants_ok"] else "bold red",
    )
    for session in payload["sessions"]:
        if session["notes"]:
            say(c, f"  {session['id']}: " + "; ".join(session["notes"][:6]), "yellow")
    say(c, f"mode {payload['mode']}, {payload['elapsed_s']} s")
