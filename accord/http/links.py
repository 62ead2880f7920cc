"""Link codes over HTTP (interfaces A4): a person's own credential makes a one-time code that
hands it on to a browser or a Telegram chat. The credential is checked before the body."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from accord.app.links import Links
from accord.core.strict import Strict
from accord.http.auth import ApiKey
from accord.http.strict import StrictRoute

router = APIRouter(route_class=StrictRoute, tags=["links"])


class LinkRequest(Strict):
    """No members: the credential is what the code hands on."""


def _links(request: Request) -> Links:
    links: Links = request.app.state.links
    return links


def person(request: Request, key: ApiKey) -> str:
    """A room's owner token, a principal's owner key or a buyer's session token."""
    return _links(request).check(key)


Person = Annotated[str, Depends(person)]


@router.post("/v1/links", status_code=201, summary="A one-time link that hands on your credential")
def mint(body: LinkRequest, request: Request, token: Person) -> dict[str, Any]:
    return _links(request).mint(token)
