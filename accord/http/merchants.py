"""A merchant's own surface over HTTP (spec/arbitrated-rest.md, Endpoints): who am I, the
catalogue, and the policies. The key is checked before the body is looked at."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request

from accord.app.identity import MerchantCaller
from accord.app.merchants import ANY_KEY, SECRET_KEY, Merchants
from accord.http.auth import Bearer
from accord.http.strict import StrictRoute
from accord.protocols.arbitrated.policy import PolicyRequest

router = APIRouter(route_class=StrictRoute, tags=["merchants"])


def _merchants(request: Request) -> Merchants:
    merchants: Merchants = request.app.state.merchants
    return merchants


def any_key(request: Request, token: Bearer) -> MerchantCaller:
    return _merchants(request).authenticate(token, allow=ANY_KEY)


def secret_key(request: Request, token: Bearer) -> MerchantCaller:
    return _merchants(request).authenticate(token, allow=SECRET_KEY)


AnyKey = Annotated[MerchantCaller, Depends(any_key)]
SecretKey = Annotated[MerchantCaller, Depends(secret_key)]
Sku = Annotated[str, Path(description="The SKU the policy prices.")]


@router.get("/v1/me", summary="The tenant, mode and kind of your key")
def me(request: Request, access: AnyKey) -> dict[str, Any]:
    return _merchants(request).me(access)


@router.get("/v1/catalogue", summary="Your active SKUs, as buyers see them")
def catalogue(request: Request, access: AnyKey) -> dict[str, Any]:
    return _merchants(request).catalogue(access)


@router.get("/v1/policies", summary="Your policies in your key's mode (secret key)")
def list_policies(request: Request, access: SecretKey) -> dict[str, Any]:
    return _merchants(request).list_policies(access)


@router.put("/v1/policies/{sku}", summary="Store the policy for a SKU (secret key)")
def put_policy(
    sku: Sku, body: PolicyRequest, request: Request, access: SecretKey
) -> dict[str, Any]:
    return _merchants(request).put_policy(access, sku, body)
