"""CSRF protection for every console form: same-origin check plus a per-session token.

A POST is refused when the browser says it is cross-site (`Sec-Fetch-Site`), when its `Origin`
is not this server, or when its `csrf` field does not equal the session's token. The session
cookie is also SameSite=Strict, so a cross-site form carries no session in the first place.
"""

from __future__ import annotations

import hmac
from urllib.parse import parse_qsl

from starlette.requests import Request

from autopatch_j.cloud.errors import Forbidden, InvalidInput

MAX_FORM_BYTES = 64 * 1024
FORM_TYPE = "application/x-www-form-urlencoded"
_SAME = frozenset({"same-origin", "none"})


class CrossSiteRequest(Forbidden):
    """Cross-site form posts are refused: reload the page and submit the form again."""


def check_origin(request: Request) -> None:
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in _SAME:
        raise CrossSiteRequest()
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        raise CrossSiteRequest()


def check_token(expected: str, given: str | None) -> None:
    if not given or not hmac.compare_digest(expected.encode(), given.encode()):
        raise CrossSiteRequest()


async def read_form(request: Request) -> dict[str, str]:
    """The urlencoded body as a dict (last value wins); 415/413-style InvalidInput otherwise."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != FORM_TYPE:
        raise InvalidInput(f"console forms must be sent as {FORM_TYPE}.")
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise InvalidInput(f"the form is larger than {MAX_FORM_BYTES} bytes.")
    try:
        return dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidInput("the form is not valid UTF-8 urlencoded data.") from exc
