"""Map the cloud's exceptions to HTTP answers; validation errors become one clear 422 sentence."""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Route

from autopatch_j.cloud.errors import (
    CloudError,
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    QuotaExhausted,
    QuotaLookupError,
    StorageError,
    Unauthorized,
)

STATUS: tuple[tuple[type[CloudError], int], ...] = (
    (Unauthorized, 401),
    (Forbidden, 403),
    (NotFound, 404),
    (Conflict, 409),
    (InvalidInput, 422),
    (QuotaExhausted, 429),
    (StorageError, 503),
    (QuotaLookupError, 503),
)


def message(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or (type(exc).__doc__ or type(exc).__name__).strip().splitlines()[0]


def status_for(exc: CloudError) -> int:
    for exc_type, status in STATUS:
        if isinstance(exc, exc_type):
            return status
    return 500


# pydantic names the branch of a union in `loc` (`idle_seconds.constrained-int`, `….none`): not a field
_UNION_BRANCH = re.compile(r"^(none|int|float|str|bool|constrained-[\w-]+|[\w-]+\[.*\])$")


def describe(exc: RequestValidationError) -> str:
    """One message per field: the branches of an optional field's union collapse into the field's own
    error (a value that is not None always fails the None branch too; saying so helps nobody)."""
    found: dict[str, str] = {}
    for error in sorted(exc.errors(), key=lambda e: e.get("type") == "none_required"):
        loc = [str(item) for item in error.get("loc", ()) if item != "body" and not _UNION_BRANCH.match(str(item))]
        where = ".".join(loc) or "body"
        found.setdefault(where, f"{where}: {error.get('msg', 'invalid')}")
    return "invalid request — " + "; ".join(list(found.values())[:5]) + "."


def _walk(routes: list[Any]) -> list[Route]:
    """The routes, descending into included routers (newer FastAPI keeps each as one entry)."""
    found: list[Route] = []
    for route in routes:
        if isinstance(route, Route):
            found.append(route)
        elif hasattr(route, "original_router"):  # fastapi.routing._IncludedRouter, included without a prefix
            found.extend(_walk(route.original_router.routes))
    return found


def install(app: FastAPI) -> None:
    async def on_cloud_error(_request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, CloudError)
        status = status_for(exc)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse({"detail": message(exc)}, status_code=status, headers=headers)

    async def on_validation_error(_request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return JSONResponse({"detail": describe(exc)}, status_code=422)

    async def on_http_error(request: Request, exc: Exception) -> JSONResponse:
        """Starlette's answers (404, 405 …) with their usual body; a 405 names in `Allow` every
        method of every route on the path (Starlette names only the first route's)."""
        assert isinstance(exc, HTTPException)
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            path = request.scope.get("path", "")
            allowed = {
                method
                for route in _walk(request.app.router.routes)
                if route.methods and route.path_regex.fullmatch(path)
                for method in route.methods
            }
            if allowed:
                headers = {k: v for k, v in headers.items() if k.lower() != "allow"}
                headers["Allow"] = ", ".join(sorted(allowed))
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=headers)

    app.add_exception_handler(HTTPException, on_http_error)
    app.add_exception_handler(CloudError, on_cloud_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
