"""The web console (C-42): server-rendered pages over the API's own service functions, at /console."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from starlette.staticfiles import StaticFiles

from autopatch_j.cloud.console.session import DbSessions
from autopatch_j.cloud.errors import CloudError
from autopatch_j.runtime import UtcClock

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from autopatch_j.cloud.quotas import QuotaLookup

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # "no-referrer" makes Chromium send `Origin: null` on posts
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


def create_console(*, engine: Engine, clock: UtcClock, quotas: QuotaLookup) -> FastAPI:
    """The console as its own ASGI app; the API's app factory mounts it at /console."""
    from autopatch_j.cloud.api.errors import describe, message, status_for
    from autopatch_j.cloud.console import routes, routes_tasks
    from autopatch_j.cloud.console.deps import NotSignedIn
    from autopatch_j.cloud.console.render import page

    console = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    console.state.engine = engine
    console.state.clock = clock
    console.state.quotas = quotas
    console.state.sessions = DbSessions(engine, clock=clock)
    console.include_router(routes.router)
    console.include_router(routes_tasks.router)
    console.mount("/static", StaticFiles(packages=[("autopatch_j.cloud.console", "static")]), name="static")

    async def on_not_signed_in(request: Request, _exc: Exception) -> Response:
        return RedirectResponse(str(request.scope.get("root_path") or "") + "/sign-in", status_code=303)

    async def on_cloud_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, CloudError)
        return page(request, "error.html", status_code=status_for(exc), message=message(exc), user=None)

    async def on_validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return page(request, "error.html", status_code=422, message=describe(exc), user=None)

    console.add_exception_handler(NotSignedIn, on_not_signed_in)
    console.add_exception_handler(CloudError, on_cloud_error)
    console.add_exception_handler(RequestValidationError, on_validation_error)

    @console.middleware("http")
    async def security_headers(request: Request, call_next):  # type: ignore[no-untyped-def]
        response: Response = await call_next(request)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    return console
