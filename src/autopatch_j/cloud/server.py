"""Running the API under uvicorn: one process, or N worker processes sharing one listening socket.

With one process the CLI builds the app itself (on the engine it migrated). With `workers > 1`
uvicorn's supervisor binds the socket, spawns the workers and restarts one that dies; each worker
builds its own app and engine through `app_from_environment`, from the same settings mechanism as
the CLI (`CloudSettings`: environment, then the command's options, passed down in one variable).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from autopatch_j.cloud.errors import ConfigError

if TYPE_CHECKING:
    from fastapi import FastAPI
    from sqlalchemy.engine import Engine

    from autopatch_j.cloud.settings import CloudSettings

OVERRIDES_ENV = "AUTOPATCH_CLOUD_SERVE_OVERRIDES"
MAX_WORKERS = 64


def uvicorn_options() -> dict[str, Any]:
    """The server options of `cloud serve` (the API benchmark serves its bare endpoint with the same).

    No access log (a line per request costs more than the request); uvloop and httptools when
    installed (`auto`), asyncio and h11 otherwise.
    """
    return {"log_level": "info", "access_log": False, "loop": "auto", "http": "auto"}


def check_workers(settings: CloudSettings, workers: int) -> None:
    """Refuse worker counts that cannot work: each worker opens the database on its own."""
    if not 1 <= workers <= MAX_WORKERS:
        raise ConfigError(f"--workers must be between 1 and {MAX_WORKERS}.")
    if workers > 1 and settings.db.startswith("sqlite") and _in_memory(settings.db):
        raise ConfigError("an in-memory SQLite database cannot be shared by several workers; use a file.")


def _in_memory(url: str) -> bool:
    import sqlalchemy as sa

    database = sa.engine.make_url(url).database
    return not database or database == ":memory:" or "mode=memory" in url


def serve(settings: CloudSettings, *, engine: Engine, overrides: dict[str, Any], workers: int = 1) -> None:
    """Serve until interrupted; `engine` is the CLI's migrated engine (used when `workers == 1`)."""
    import uvicorn

    if workers == 1:
        uvicorn.run(_build(settings, engine=engine), host=settings.host, port=settings.port, **uvicorn_options())
        return
    engine.dispose()  # the workers open their own; the parent only supervises
    os.environ[OVERRIDES_ENV] = json.dumps(overrides)
    uvicorn.run(
        f"{__name__}:app_from_environment",
        factory=True,
        workers=workers,
        host=settings.host,
        port=settings.port,
        **uvicorn_options(),
    )


def app_from_environment() -> FastAPI:
    """A worker's app: the settings from the environment plus the command's options."""
    from autopatch_j.cloud.settings import read_cloud_settings

    overrides = json.loads(os.environ.get(OVERRIDES_ENV, "{}"))
    return _build(read_cloud_settings(os.environ, **overrides), engine=None)


def _build(settings: CloudSettings, *, engine: Engine | None) -> FastAPI:
    from autopatch_j.cloud.app import create_app
    from autopatch_j.cloud.model_memory import ModelMemory

    return create_app(settings=settings, engine=engine, memory_model=ModelMemory.from_settings(settings))
