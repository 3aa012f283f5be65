"""Session fixtures of the quality tests: the whole-part eval runs (tests/quality/eval_runs.py)."""

from tests.quality.eval_runs import canned, offline, offline_parts

__all__ = ["canned", "offline", "offline_parts"]
