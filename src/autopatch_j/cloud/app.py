"""The FastAPI app factory: nothing is built at import time; the engine comes from the settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import FastAPI

from autopatch_j.cloud.db import make_engine
from autopatch_j.cloud.quotas import DbQuotas, QuotaLookup
from autopatch_j.runtime import UtcClock, utc_now

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from autopatch_j.cloud.model_memory import ModelMemory
    from autopatch_j.cloud.settings import CloudSettings


def create_app(
    *,
    settings: CloudSettings,
    engine: Engine | None = None,
    clock: UtcClock = utc_now,
    quotas: QuotaLookup | None = None,
    memory_model: ModelMemory | None = None,
) -> FastAPI:
    """Build the API; pass `engine` to share one (tests), otherwise it is made from `settings.db`."""
    from autopatch_j.cloud.api import (
        errors,
        routes_admin,
        routes_conversations,  # C-43
        routes_projects,
        routes_tasks,
        routes_users,
    )
    from autopatch_j.cloud.api.body_limit import BodyLimit
    from autopatch_j.cloud.api.reads import Reads

    owned = engine is None
    the_engine = engine if engine is not None else make_engine(settings.db)
    reads = Reads(the_engine)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        reads.close()
        if owned:
            the_engine.dispose()

    app = FastAPI(
        title="autopatch-j cloud",
        version="1",
        description="Control plane for coding-agent tasks with automatic memory.",
        lifespan=lifespan,
    )
    app.state.engine = the_engine
    app.state.reads = reads
    app.state.clock = clock
    app.state.quotas = quotas or DbQuotas()
    app.state.settings = settings
    app.state.memory_model = memory_model  # C-40; the CLI builds it with ModelMemory.from_settings
    errors.install(app)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)  # outermost of ours: before auth
    app.include_router(routes_users.health_router)
    # routes_tasks first: requests are matched route by route, and `GET /tasks/{id}` is the hottest
    for module in (routes_tasks, routes_users, routes_projects, routes_admin, routes_conversations):
        app.include_router(module.router)
    from autopatch_j.cloud.console import create_console

    app.mount("/console", create_console(engine=the_engine, clock=clock, quotas=app.state.quotas))
    return app
