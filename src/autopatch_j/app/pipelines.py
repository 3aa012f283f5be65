"""The project's Memory pipeline for every face: the extractor `AUTOPATCH_MEMORY_EXTRACTOR` chose
(read once into the context) with the configured LLM provider, on the opened Memory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopatch_j.app import providers
from autopatch_j.app.context import AppContext

if TYPE_CHECKING:
    from autopatch_j.memory import Extractor, Pipeline


def extractor_for(app: AppContext) -> Extractor:
    """The extractor chosen by AUTOPATCH_MEMORY_EXTRACTOR (the context's `extractor_mode`) and the LLM configuration."""
    from autopatch_j.memory import ExtractorChoice, choose_extractor

    mode = app.extractor_mode
    if (mode or "").strip().lower() == ExtractorChoice.RULES:
        return choose_extractor(mode=mode, provider=None)

    configured = app.llm_settings() is not None
    provider = providers.provider_factory(app) if configured else None
    return choose_extractor(mode=mode, provider=provider)


def pipeline_for(app: AppContext, extractor: Extractor | None = None) -> Pipeline:
    from autopatch_j.memory import Pipeline

    return Pipeline.for_manager(app.manager(), extractor=extractor or extractor_for(app))
