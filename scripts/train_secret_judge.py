"""Train the secret judge (`autopatch_j/cloud/secret_judge.py`) and write its weights.

    python scripts/train_secret_judge.py [--out FILE] [--hold-out sN] [--estimate [--folds sN,…]] [--snapshot-bulk]

Examples: every judge candidate and every span a key-word rule finds (`redaction.findings`) in the
tuning sets `eval/secrets/s*/secrets.json.gz`, both halves of `eval/secrets/measured/s13` and of
`eval/secrets/measured/s14` (each half an author of its own) and the whole of
`eval/secrets/measured/s15`, `s17`, `eval/secrets/heldout/s18` … `s43` (`HALVES`) — a secret when it
overlaps one of the case's `must_not_contain` pieces, no secret when it is in a look-alike or
overlaps nothing a rule finds — and, as bulk text with no secret, the candidates that no rule
touches in the paragraphs of the package's source and `docs/` and the strings of the realistic
sessions of `eval/realistic/dev` (they carry some fake credentials; what a rule finds there is left
out rather than guessed). Those texts are frozen in `eval/secrets/bulk/negatives.json.gz`
(`--snapshot-bulk` writes it again from the checkout), so the weights depend only on
`eval/secrets/`: editing the source, the docs or the realistic sessions changes nothing until
someone snapshots and retrains.

Deterministic: examples in a fixed order, every third bulk candidate, L2 logistic regression
(lbfgs). The threshold and the veto are chosen on out-of-fold scores — leave one author out over
the training authors — as the pair with the best worst-form recall, then the most secrets caught,
that keeps every training author's look-alike false positives within `FP_TARGET` (or within the
rules' own count where the rules alone already exceed it; see `choose`). Only a pair under which
the judge written passes every committed case file (`CASE_FILES`, `tests/cloud/data/redaction_*.json`:
each look-alike comes back unchanged, each secret's pieces go and its public part stays, as text
and inside a JSON tool result, ASCII-escaped or not) is eligible (`passes_case_files`); the case
files are inputs of the fit, recorded in its fingerprint. `--hold-out sN[,sM]`
leaves those authors out entirely (for the leave-one-author-out estimate); `--estimate` prints, for
each author, recall per form and false positives of the rules alone and of the rules with a judge
trained without that author.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import refit_inputs  # noqa: E402  (before the package: it watches what the run reads)

from autopatch_j.cloud.redaction import Finding, findings, redact  # noqa: E402
from autopatch_j.cloud.secret_judge import SecretJudge, context_features, features, judged, reading  # noqa: E402
from autopatch_j.cloud.secret_values import placeholder  # noqa: E402
from autopatch_j.quality.realistic import json_strings  # noqa: E402
from autopatch_j.quality.secret_halves import half  # noqa: E402

AUTHORS = (
    "s1", "s2", "s3", "s4", "s5", "s6", "s8", "s9", "s10", "s11", "s12", "s13A", "s13B", "s14A", "s14B", "s15",
    "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31",
    "s32", "s33", "s34", "s35", "s36", "s37", "s38", "s39", "s40", "s41", "s42", "s43",
)  # fmt: skip
# an author read from a measured set, whole or one half of it (`bench/secret_heldout.py --half`)
HALVES: dict[str, tuple[str, Literal["A", "B"] | None]] = {
    "s13A": ("measured/s13", "A"),
    "s13B": ("measured/s13", "B"),
    "s14A": ("measured/s14", "A"),
    "s14B": ("measured/s14", "B"),
    "s15": ("measured/s15", None),
    "s17": ("measured/s17", None),
    "s18": ("heldout/s18", None),
    "s19": ("heldout/s19", None),
    "s20": ("heldout/s20", None),
    "s21": ("heldout/s21", None),
    "s22": ("heldout/s22", None),
    "s23": ("heldout/s23", None),
    "s24": ("heldout/s24", None),
    "s25": ("heldout/s25", None),
    "s26": ("heldout/s26", None),
    "s27": ("heldout/s27", None),
    "s28": ("heldout/s28", None),
    "s29": ("heldout/s29", None),
    "s30": ("heldout/s30", None),
    "s31": ("heldout/s31", None),
    "s32": ("heldout/s32", None),
    "s33": ("heldout/s33", None),
    "s34": ("heldout/s34", None),
    "s35": ("heldout/s35", None),
    "s36": ("heldout/s36", None),
    "s37": ("heldout/s37", None),
    "s38": ("heldout/s38", None),
    "s39": ("heldout/s39", None),
    "s40": ("heldout/s40", None),
    "s41": ("heldout/s41", None),
    "s42": ("heldout/s42", None),
    "s43": ("heldout/s43", None),
}
FORMS = ("plain", "json_escaped", "url_encoded", "wrapped", "quoted", "zh_labelled")
FP_BUDGET = 0.005
MIN_COUNT = 3
BULK_EVERY = 3
C = 0.5
# a candidate is a secret only when the judge finds it more likely than not (balanced classes)
THRESHOLDS = [round(0.50 + 0.025 * i, 3) for i in range(20)] + [0.98, 0.985, 0.99, 0.995]
VETOES = [0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2]
WEIGHTS = ROOT / "src" / "autopatch_j" / "cloud" / "secret_judge_weights.json"


@dataclass
class Text:
    """A text of a set with its findings, the features and label of each judged one."""

    author: str
    text: str
    form: str | None  # None: a look-alike or bulk text
    pieces: list[str]
    found: list[Finding]
    examples: list[tuple[int, dict[str, float], int]] = field(default_factory=list)  # finding, features, label
    # what the judge reads of each finding a set's text scores (`reading`), whatever the weights
    reads: dict[int, float | dict[str, float]] = field(default_factory=dict)


def _overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in spans)


def _piece_spans(text: str, pieces: list[str]) -> list[tuple[int, int]]:
    out = []
    for piece in pieces:
        at = text.find(piece)
        while at != -1:
            out.append((at, at + len(piece)))
            at = text.find(piece, at + 1)
    return out


def _feature(found: Finding, context: dict[str, float] | None = None) -> dict[str, float]:
    start, end = found.at
    out = features(found.view, start, end, found.context_start, context)
    out[f"src:{found.kind}"] = 1.0
    return out


def _label(item: Text, bulk: bool, every: int = BULK_EVERY) -> None:
    """The examples of `item`'s findings; for a set's text (not `bulk`) also what the judge reads of
    each (`Text.reads`), from the same reading of its context."""
    secret = _piece_spans(item.text, item.pieces)
    ruled = [(f.start, f.end) for f in item.found if f.kind != "token"]
    structured = [(f.start, f.end) for f in item.found if f.kind == "rule"]
    for number, found in enumerate(item.found):
        if found.kind == "rule":
            continue
        context = None
        if not bulk:
            start, end = found.at
            context = context_features(found.view, start, end, found.context_start)
            item.reads[number] = reading(
                found.view, start, end, found.context_start, source=found.kind, context=context
            )
        span = (found.start, found.end)
        if bulk:
            if found.kind == "keyword" or _overlaps(span, ruled):
                continue  # a fake credential of the sessions, or something no one labelled
            if number % every:
                continue
            label = 0
        elif _overlaps(span, secret):
            label = 1
        elif found.kind == "token" and _overlaps(span, structured):
            continue  # a rule of structure decides it (a PEM body, a prefixed token), not the judge
        else:
            label = 0
        feats = _feature(found, context)
        start, end = found.at
        if found.kind == "token" and (not judged(feats) or placeholder(found.view, found.view[start:end], start)):
            continue  # the judge never accepts it (see `judged`)
        item.examples.append((number, feats, label))


def load_sets() -> dict[str, list[Text]]:
    sets: dict[str, list[Text]] = {}
    for author in AUTHORS:
        where, which = HALVES.get(author, (author, None))
        doc = json.loads(gzip.decompress((ROOT / "eval" / "secrets" / where / "secrets.json.gz").read_bytes()))
        if which is not None:
            doc = half(doc, which)
        texts = [Text(author, c["text"], c["form"], c["must_not_contain"], findings(c["text"])) for c in doc["secrets"]]
        texts += [Text(author, c["text"], None, [], findings(c["text"])) for c in doc["lookalikes"]]
        for item in texts:
            _label(item, bulk=False)
        sets[author] = texts
    return sets


BULK = ROOT / "eval" / "secrets" / "bulk" / "negatives.json.gz"


def _bulk_sources() -> dict[str, list[str]]:
    project: list[str] = []
    for path in sorted((ROOT / "src" / "autopatch_j").rglob("*.py")) + sorted((ROOT / "docs").rglob("*.md")):
        project += [block for block in path.read_text(encoding="utf-8").split("\n\n") if block.strip()]
    return {"project": project, "realistic_dev": json_strings(ROOT / "eval" / "realistic" / "dev")}


def snapshot_bulk() -> dict[str, int]:
    """Freeze, in `BULK`, the texts of the package's source and `docs/` (paragraphs) and of the
    realistic sessions of `eval/realistic/dev` (strings) that give the judge an example, so that
    later edits there do not change the weights. Returns how many of each were kept."""
    kept: dict[str, list[str]] = {}
    for name, texts in _bulk_sources().items():
        kept[name] = []
        for text in texts:
            item = Text("bulk", text, None, [], findings(text))
            _label(item, bulk=True, every=1)
            if item.examples:
                kept[name].append(text)
    BULK.parent.mkdir(parents=True, exist_ok=True)
    BULK.write_bytes(gzip.compress(json.dumps(kept, ensure_ascii=False, indent=0).encode(), mtime=0))
    return {name: len(texts) for name, texts in kept.items()}


def load_bulk() -> list[Text]:
    frozen: dict[str, list[str]] = json.loads(gzip.decompress(BULK.read_bytes()))
    texts = [Text("bulk", text, None, [], findings(text)) for name in sorted(frozen) for text in frozen[name]]
    for item in texts:
        _label(item, bulk=True)
    return texts


@dataclass
class Examples:
    """Every example of the sets' authors (in `AUTHORS` order) and then of the bulk texts, as one
    sparse matrix over every feature name (sorted), built once: a training run takes its rows and
    the columns of the features it keeps, the matrix `DictVectorizer(sort=True)` would build from
    those rows."""

    names: list[str]
    matrix: Any  # scipy CSR, one row per example, sorted indices
    present: Any  # the same with 1.0 for every feature an example holds (a zero value included)
    labels: Any  # numpy int array
    rows: dict[str, tuple[int, int]]  # an author's (or `bulk`'s) first row and the row after its last


def examples(sets: dict[str, list[Text]], bulk: list[Text]) -> Examples:
    import numpy as np
    from scipy import sparse

    groups = [(author, sets[author]) for author in sets] + [("bulk", bulk)]
    feats = [f for _author, texts in groups for item in texts for _n, f, _label in item.examples]
    names = sorted({name for f in feats for name in f})
    column = {name: number for number, name in enumerate(names)}
    indices: list[int] = []
    values: list[float] = []
    indptr = [0]
    for f in feats:
        indices += [column[name] for name in f]
        values += f.values()
        indptr.append(len(indices))
    matrix = sparse.csr_matrix((np.array(values, dtype=np.float64), indices, indptr), shape=(len(feats), len(names)))
    present = sparse.csr_matrix((np.ones(len(values)), indices, indptr), shape=matrix.shape)
    matrix.sort_indices()
    present.sort_indices()
    labels = np.array([label for _a, texts in groups for item in texts for *_rest, label in item.examples])
    rows, at = {}, 0
    for author, texts in groups:
        size = sum(len(item.examples) for item in texts)
        rows[author] = (at, at + size)
        at += size
    return Examples(names, matrix, present, labels, rows)


def train(data: Examples, authors: list[str]) -> dict[str, float]:
    """Logistic weights over the examples of `authors` and the bulk texts (features seen fewer than
    `MIN_COUNT` times are dropped; look-alikes and secrets weigh as much as all bulk examples
    together)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    spans = [data.rows[author] for author in authors] + [data.rows["bulk"]]
    picked = np.concatenate([np.arange(start, end) for start, end in spans])
    counts = np.asarray(data.present[picked].sum(axis=0)).ravel()
    keep = np.flatnonzero(counts >= MIN_COUNT)
    matrix = data.matrix[picked][:, keep]
    matrix.sort_indices()
    bulk = data.rows["bulk"][1] - data.rows["bulk"][0]
    sets = len(picked) - bulk
    weight = np.ones(len(picked))
    if bulk:
        weight[len(picked) - bulk :] = sets / bulk
    model = LogisticRegression(C=C, class_weight="balanced", max_iter=5000, solver="lbfgs", fit_intercept=False)
    model.fit(matrix, data.labels[picked].tolist(), sample_weight=weight.tolist())
    return {data.names[number]: float(w) for number, w in zip(keep, model.coef_[0], strict=True)}


def scores(weights: dict[str, float], item: Text) -> dict[int, float]:
    """`SecretJudge.score` of each finding of a set's text that is not a rule's, from `Text.reads`."""
    judge = SecretJudge(weights, 0.5, 0.0)
    return {number: read if isinstance(read, float) else judge.weighed(read) for number, read in item.reads.items()}


def caught(item: Text, scored: dict[int, float] | None, threshold: float, veto: float) -> bool:
    """Whether the redaction these findings decide leaves none of the case's pieces (a look-alike:
    whether it leaves the text unchanged)."""
    spans = []
    for number, found in enumerate(item.found):
        if found.kind == "rule":
            spans.append((found.start, found.end))
        elif scored is not None:
            limit = veto if found.kind == "keyword" else threshold
            if scored[number] >= limit and scored[number] > 0.0:
                spans.append((found.start, found.end))
        elif found.kind == "keyword":
            spans.append((found.start, found.end))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    out, pos = [], 0
    for start, end in merged:
        out += [item.text[pos:start], "[REDACTED]"]
        pos = end
    result = "".join(out) + item.text[pos:]
    if item.form is None:
        return result != item.text  # a false positive
    return not any(piece in result for piece in item.pieces)


def figures(
    texts: list[Text], scored: list[dict[int, float]] | None, threshold: float = 1.0, veto: float = 0.0
) -> dict[str, Any]:
    per_form: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    fp = looks = 0
    for number, item in enumerate(texts):
        hit = caught(item, None if scored is None else scored[number], threshold, veto)
        if item.form is None:
            looks += 1
            fp += hit
        else:
            per_form[item.form][0] += hit
            per_form[item.form][1] += 1
    worst = min(c / t for c, t in per_form.values())
    return {"per_form": {f: tuple(per_form[f]) for f in FORMS}, "worst": worst, "fp": (fp, looks)}


def _cut(scores: list[float], limit: float) -> int:
    """How many of `scores` a limit lets through (`>= limit` and above 0): the redaction of a text
    depends on the limit only through this number, the same spans whichever limit gives it."""
    return sum(1 for score in scores if score >= limit and score > 0.0)


def caught_grid(item: Text, scored: dict[int, float]) -> list[list[bool]]:
    """`caught` for every pair of `THRESHOLDS` and `VETOES` (rows and columns), each distinct
    redaction worked out once."""
    tokens = [scored[n] for n, found in enumerate(item.found) if found.kind == "token"]
    keywords = [scored[n] for n, found in enumerate(item.found) if found.kind == "keyword"]
    done: dict[tuple[int, int], bool] = {}
    grid = []
    for threshold in THRESHOLDS:
        row, through = [], _cut(tokens, threshold)
        for veto in VETOES:
            key = (through, _cut(keywords, veto))
            if key not in done:
                done[key] = caught(item, scored, threshold, veto)
            row.append(done[key])
        grid.append(row)
    return grid


_TRAINED: dict[frozenset[str], dict[str, float]] = {}


def train_without(data: Examples, authors: list[str], *held: str) -> dict[str, float]:
    """`train` on `authors` less `held`, kept for the run: the out-of-fold model without a pair of
    authors is the same whichever of the two the estimate holds out (the same rows in the same
    order), so each is trained once."""
    key = frozenset(held) | frozenset(set(AUTHORS) - set(authors))
    if key not in _TRAINED:
        _TRAINED[key] = train(data, [a for a in authors if a not in held])
    return _TRAINED[key]


def choose(sets: dict[str, list[Text]], authors: list[str], data: Examples) -> list[tuple[float, float]]:
    """Threshold and veto pairs ranked on out-of-fold scores over `authors`, best first: among the
    pairs that keep each author's false positives within `FP_TARGET` of its look-alikes (or within
    the rules' own count, when that is more), the best worst-form recall, then the most secrets
    caught, then fewer false positives, the higher threshold and veto. Empty when no pair keeps
    the false positives within the budget."""
    import numpy as np

    texts: list[Text] = []
    grids = []
    for held in authors:
        weights = train_without(data, authors, held)
        texts += sets[held]
        grids += [caught_grid(item, scores(weights, item)) for item in sets[held]]
    base = figures(texts, None)["fp"][0]
    hits = np.array(grids, dtype=np.int64)  # text, threshold, veto
    looks = np.array([item.form is None for item in texts])
    forms = [(form, np.array([item.form == form for item in texts])) for form in FORMS]
    forms = [(form, where) for form, where in forms if where.any()]
    fps = hits[looks].sum(axis=0)
    per_form = [(hits[where].sum(axis=0), int(where.sum())) for _form, where in forms]
    ranked: list[tuple[tuple[float, ...], float, float]] = []
    for i, threshold in enumerate(THRESHOLDS):
        for j, veto in enumerate(VETOES):
            fp = int(fps[i, j])
            if fp > base + FP_BUDGET * int(looks.sum()):
                continue
            worst = min(int(c[i, j]) / t for c, t in per_form)
            caught_all = sum(int(c[i, j]) for c, _t in per_form)
            ranked.append(((worst, caught_all, -fp, threshold, veto), threshold, veto))
    ranked.sort(reverse=True)
    return [(threshold, veto) for _key, threshold, veto in ranked]


# the committed case files (`tests/cloud/test_redaction_case_files.py` reads the same ones; a test
# keeps the two lists equal)
CASE_FILES = (
    "slots", "sinks", "tool_output", "placements", "credential_shapes", "device_configs", "protocols", "handover",
    "fleet", "ward", "storefront", "live_ops", "grid_ops", "meter_ops", "ramp_ops", "campus_refs", "public_halves",
    "ledger_labels", "ledger_counts", "ledger_json", "course_links", "tool_envelopes",
    "rotation_tables", "install_banners", "dairy_ops", "ferry_ops", "courier_ops", "vault_ops", "clinic_refs",
    "water_ops",
)  # fmt: skip
CASES = ROOT / "tests" / "cloud" / "data"


@dataclass(frozen=True)
class CaseCheck:
    """One check of a case file: `text` must come back as it is (`pieces` empty: a look-alike) or
    without any of `pieces` and with `survives` in it."""

    name: str
    text: str
    pieces: tuple[str, ...] = ()
    survives: str = ""


def case_checks() -> list[CaseCheck]:
    """Every check `test_redaction_case_files.py` makes of the case files' redaction: each secret as
    text, then inside a JSON tool result ASCII-escaped and not; each look-alike as text."""
    out: list[CaseCheck] = []
    for name in CASE_FILES:
        doc = json.loads((CASES / f"redaction_{name}.json").read_text(encoding="utf-8"))
        for case in doc["secrets"]:
            label = f"{name}: {case['name']}"
            out.append(CaseCheck(label, case["text"], tuple(case["pieces"]), case["survives"]))
            for ascii_only in (True, False):
                wrapped = json.dumps({"type": "tool_result", "content": case["text"]}, ensure_ascii=ascii_only)
                pieces = tuple(json.dumps(piece, ensure_ascii=ascii_only)[1:-1] for piece in case["pieces"])
                out.append(CaseCheck(f"{label} (JSON, ascii {ascii_only})", wrapped, pieces))
        out += [CaseCheck(f"{name}: {case['name']}", case["text"]) for case in doc["lookalikes"]]
    return out


def case_failures(judge: SecretJudge, checks: list[CaseCheck]) -> list[str]:
    """The names of the `checks` the judge fails, as shipped (its weights rounded as written)."""
    shipped = SecretJudge.from_json(judge.to_json())
    failed = []
    for check in checks:
        out = redact(check.text, judge=shipped)
        if not check.pieces:
            ok = out == check.text
        else:
            ok = not any(piece in out for piece in check.pieces) and check.survives in out
            ok = ok and (not check.survives or redact(out, judge=shipped) == out)
        if not ok:
            failed.append(check.name)
    return failed


def build(sets: dict[str, list[Text]], authors: list[str], data: Examples, *, strict: bool = True) -> SecretJudge:
    """The judge trained on `authors` with the best-ranked pair of `choose` under which it passes
    every case file (`case_failures`). With none such: an error when `strict` (the shipped fit),
    else the best-ranked pair with a note on stderr (a fold of `--estimate`)."""
    weights = train_without(data, authors)
    ranked = choose(sets, authors, data) or [(THRESHOLDS[-1], VETOES[0])]
    checks = case_checks()
    first: list[str] = []
    for threshold, veto in ranked:
        judge = SecretJudge(weights, threshold, veto)
        failed = case_failures(judge, checks)
        if not failed:
            return judge
        first = first or failed
    note = f"no threshold and veto passes every case file; under the best-ranked pair: {'; '.join(first)}"
    if strict:
        raise SystemExit(note)
    print(note, file=sys.stderr)
    return SecretJudge(weights, *ranked[0])


def _row(name: str, result: dict[str, Any]) -> str:
    cells = " | ".join(f"{c}/{t}" for c, t in result["per_form"].values())
    fp, looks = result["fp"]
    return f"| {name} | {cells} | {result['worst']:.3f} | {fp}/{looks} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=WEIGHTS, help="where to write the weights JSON")
    parser.add_argument("--hold-out", help="train without these authors (comma-separated: s35 or s35,s36)")
    parser.add_argument("--estimate", action="store_true", help="print the leave-one-author-out table")
    parser.add_argument("--snapshot-bulk", action="store_true", help="freeze the bulk texts (see above)")
    parser.add_argument("--folds", help="with --estimate: only these authors (comma-separated), in this order")
    args = parser.parse_args()
    if args.snapshot_bulk:
        print(f"wrote {BULK}: {snapshot_bulk()}")
        return 0
    sets = load_sets()
    data = examples(sets, load_bulk())
    if args.estimate:
        print("| fold | " + " | ".join(FORMS) + " | worst | false positives |")
        for held in args.folds.split(",") if args.folds else AUTHORS:
            judge = build(sets, [a for a in AUTHORS if a != held], data, strict=False)
            scored = [scores(judge.weights, item) for item in sets[held]]
            print(_row(f"{held} rules alone", figures(sets[held], None)))
            print(
                _row(
                    f"{held} + judge (t={judge.threshold}, veto={judge.veto})",
                    figures(sets[held], scored, judge.threshold, judge.veto),
                )
            )
            sys.stdout.flush()
        return 0
    held = set(args.hold_out.split(",")) if args.hold_out else set()
    if held - set(AUTHORS):
        parser.error(f"--hold-out: not an author: {', '.join(sorted(held - set(AUTHORS)))}")
    authors = [a for a in AUTHORS if a not in held]
    judge = build(sets, authors, data)
    args.out.write_text(judge.to_json(), encoding="utf-8")
    refit_inputs.record(args.out)
    print(f"wrote {args.out}: {len(judge.weights)} weights, threshold {judge.threshold}, veto {judge.veto}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
