"""The OpenAPI document, exact: every operation's success bodies and every refusal it can
answer, with the one error body, from `operations.OPERATIONS`; security only where a
credential is asked for; and none of FastAPI's 422 `HTTPValidationError`, which Accord never
answers (a malformed request is a 400 `invalid_request`)."""

import copy
from collections.abc import Sequence
from typing import Any, Final

from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute, RouteContext
from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import models_json_schema
from starlette.routing import BaseRoute

from accord.core.refusals import RefusalCode
from accord.core.statuses import STATUS_BY_CODE
from accord.http import operations

REF: Final = "#/components/schemas/{model}"
_FASTAPI_VALIDATION: Final = ("HTTPValidationError", "ValidationError")


class Refusal(BaseModel):
    """A refusal: a stable code, a message that says what to do, and the code's details
    (`fields` for an invalid request, `retry_after` seconds, `allowed` key kinds…)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    code: RefusalCode
    message: str = Field(min_length=1)


class ErrorBody(BaseModel):
    """Every refusal's body, whatever the status."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    error: Refusal


def document(
    *,
    title: str,
    version: str,
    routes: Sequence[BaseRoute | RouteContext],
    summary: str | None = None,
    description: str | None = None,
    servers: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """FastAPI's document for `routes` (paths, parameters, request bodies, security), with
    every operation's responses replaced by the table's."""
    doc = get_openapi(
        title=title,
        version=version,
        summary=summary,
        description=description,
        routes=routes,
        servers=servers,
    )
    schemas: dict[str, Any] = doc.setdefault("components", {}).setdefault("schemas", {})
    for name in _FASTAPI_VALIDATION:
        schemas.pop(name, None)
    models: dict[str, type[BaseModel]] = {ErrorBody.__name__: ErrorBody}
    for key, route in operations.api_routes(routes):
        if not route.include_in_schema:
            continue
        operation = operations.OPERATIONS.get(key)
        if operation is None:
            raise KeyError(f"{key} has no row in accord.http.operations.OPERATIONS")
        method, path = key.split(" ", 1)
        entry = doc["paths"][path][method.lower()]
        entry["responses"] = _responses(route, operation, entry.get("responses", {}))
        models |= {m.__name__: m for m in operation.answers.values() if m is not None}
    _add_schemas(schemas, list(models.values()))
    return doc


def _responses(
    route: APIRoute, operation: operations.Operation, generated: dict[str, Any]
) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for status, model in sorted(operation.answers.items()):
        given = copy.deepcopy(generated.get(str(status), {"description": "Success"}))
        if model is not None:
            schema = {"$ref": REF.format(model=model.__name__)}
            given["content"] = {"application/json": {"schema": schema}}
        responses[str(status)] = given
    by_status: dict[int, list[RefusalCode]] = {}
    for code in sorted(operations.refusals(route, operation)):
        by_status.setdefault(STATUS_BY_CODE[code], []).append(code)
    for status, codes in sorted(by_status.items()):
        responses[str(status)] = _refusal_response(codes)
    return responses


def _refusal_response(codes: list[RefusalCode]) -> dict[str, Any]:
    listed = ", ".join(f"`{code}`" for code in codes)
    examples = {
        str(code): {"value": {"error": {"code": str(code), "message": _EXAMPLE_MESSAGE}}}
        for code in codes
    }
    return {
        "description": f"Refused: {listed}.",
        "content": {
            "application/json": {
                "schema": {"$ref": REF.format(model=ErrorBody.__name__)},
                "examples": examples,
            }
        },
    }


_EXAMPLE_MESSAGE: Final = "What was refused, and what to do instead."


def _add_schemas(schemas: dict[str, Any], models: list[type[BaseModel]]) -> None:
    """The models' serialization schemas, under their own names; a name FastAPI already
    gave a different schema is a clash to resolve by renaming a model."""
    _, generated = models_json_schema(
        [(model, "serialization") for model in models], ref_template=REF
    )
    for name, schema in generated.get("$defs", {}).items():
        if name in schemas and schemas[name] != schema:
            raise ValueError(f"two schemas are named {name}; rename one of the models")
        schemas.setdefault(name, schema)
