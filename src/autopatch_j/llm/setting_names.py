"""The names and defaults of the LLM settings, shared by the reader (`llm.sources`) and the frozen
value it becomes (`llm.config`): the `AUTOPATCH_LLM_` prefix, the request-bound defaults and floors."""

from __future__ import annotations

from autopatch_j.llm.provider import MAIN_DEADLINE_S, MAIN_MAX_OUTPUT_TOKENS

ENV_PREFIX = "AUTOPATCH_LLM_"
DEFAULT_MAX_OUTPUT_TOKENS = MAIN_MAX_OUTPUT_TOKENS  # the main answer's cap: a model cannot fill its context
DEFAULT_DEADLINE_SECONDS = MAIN_DEADLINE_S  # the main answer's overall deadline, whatever the gaps between events
MIN_CONTEXT_TOKENS = 1024


def env_name(key: str) -> str:
    """The environment variable of a settings key: `model` -> `AUTOPATCH_LLM_MODEL`."""
    return ENV_PREFIX + key.upper()
