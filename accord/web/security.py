"""What keeps a person's page theirs: one cookie per credential (HttpOnly, SameSite=Lax,
Secure on https), a POST only from the server's own pages (Origin, else Sec-Fetch-Site), a
strict Content-Security-Policy, and no caching of a page a credential opened."""

from typing import Final
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import Response

from accord.core.refusals import RefusalCode, refuse

CSP: Final = (
    "default-src 'self'; script-src 'self'; frame-ancestors 'none'; form-action 'self'; "
    "base-uri 'none'"
)
HEADERS: Final = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}
CREDENTIALED: Final = {**HEADERS, "Cache-Control": "no-store"}
COOKIE_PREFIX: Final = "acc_"


def cookie_name(negotiation_id: str) -> str:
    return f"{COOKIE_PREFIX}{negotiation_id}"


def set_credential(response: Response, base_url: str, negotiation_id: str, token: str) -> None:
    response.set_cookie(
        cookie_name(negotiation_id),
        token,
        httponly=True,
        samesite="lax",
        secure=base_url.startswith("https://"),
        path="/",
    )


def forget_all(request: Request, response: Response) -> None:
    for name in request.cookies:
        if name.startswith(COOKIE_PREFIX):
            response.delete_cookie(name, path="/")


def check_origin(request: Request, base_url: str) -> None:
    """A POST comes from this server's own pages, or it is refused (`forbidden`). A page sent
    with `Referrer-Policy: no-referrer` makes a browser send `Origin: null` with its forms:
    then the browser's own `Sec-Fetch-Site` says where the form came from."""
    public = urlsplit(base_url)
    origin = request.headers.get("origin")
    if origin is not None and origin != "null":
        given = urlsplit(origin)
        if (given.scheme, given.netloc) == (public.scheme, public.netloc):
            return
    elif request.headers.get("sec-fetch-site") == "same-origin":
        return
    raise refuse(RefusalCode.FORBIDDEN, "This form was not sent from this server's own page.")
