"""resources/read: match the URI to a contract, check its variables, run the handler.

Nothing runs in tmux before the URI has matched a resource and its variables
have passed that resource's JSON Schema. Failures are JSON-RPC errors: an
unknown resource or target, and a URI whose variables break the contract, are
-32602 (invalid params), as the SDK answers them (it lists -32002, the older
"resource not found", as retired); the message says which it is and names the
URI and the part that is wrong, and ``data.uri`` carries the URI.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable
from typing import Any, NoReturn

import mcp.types as types
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ValidationError

from .errors import InvalidArgument, NotFound, ToolError
from .seam import HandlerSet
from .surfaces import Resource
from .uritemplate import BadUri
from .validation import json_path

log = logging.getLogger(__name__)


def _fail(code: int, message: str, uri: str, **data: Any) -> NoReturn:
    log.info("resources/read %s: %s", uri, message)
    raise MCPError(code=code, message=message, data={"uri": uri, **data})


def match(
    resources: Iterable[Resource], uri: str, doing: str = "read"
) -> tuple[Resource, dict[str, str]]:
    """The resource ``uri`` names and its variables; raises -32602 naming what is wrong
    (``doing``: what was asked of it, for "Nothing was read.")."""
    served = list(resources)
    for resource in served:
        try:
            variables = resource.template.match(uri, resource.accepts)
        except BadUri as exc:
            _fail(
                types.INVALID_PARAMS,
                f"Invalid resource URI {uri}: {exc.message}. Nothing was {doing}.",
                uri,
                field=exc.field,
            )
        if variables is not None:
            return resource, variables
    shapes = ", ".join(resource.entry.uri for resource in served) or "none"
    _fail(
        types.INVALID_PARAMS,
        f"Resource not found: no resource of this server has the URI {uri}. "
        f"The resources it serves: {shapes}.",
        uri,
    )


def checked_variables(
    resource: Resource, variables: dict[str, str], uri: str, doing: str = "read"
) -> BaseModel:
    """The URI's variables as the resource's model, once they pass its JSON Schema; raises
    -32602 naming what is wrong."""
    problems = (
        [] if resource.variables.accepts(variables) else resource.variables.problems(variables)
    )
    if problems:
        again = "read it again" if doing == "read" else "try again"
        _fail(
            types.INVALID_PARAMS,
            f"Invalid resource URI {uri} ({resource.entry.uri}): "
            + "; ".join(problems)
            + f". Nothing was {doing}; fix the URI and {again}.",
            uri,
        )
    try:
        params: BaseModel = resource.variables_model.model_validate(variables, strict=True)
    except ValidationError as exc:
        fields = "; ".join(f"`{json_path(e['loc'])}`: {e['msg']}" for e in exc.errors())
        _fail(
            types.INVALID_PARAMS, f"Invalid resource URI {uri}: {fields}. Nothing was {doing}.", uri
        )
    return params


async def admitted(resource: Resource, handlers: HandlerSet, params: BaseModel, uri: str) -> None:
    """Refuse (-32602, naming the rule) a URI outside the configuration file's scope."""
    if resource.guard is None:
        return
    variables = params.model_dump(mode="json", by_alias=True)
    refusal = await resource.guard.admit_read(handlers, uri, variables)
    if refusal is not None:
        _fail(types.INVALID_PARAMS, refusal, uri)


async def read_resource(
    resources: Iterable[Resource], handlers: HandlerSet, uri: str
) -> types.ReadResourceResult:
    started = time.perf_counter()
    resource, variables = match(resources, uri)
    name = resource.entry.name
    params = checked_variables(resource, variables, uri)
    await admitted(resource, handlers, params, uri)

    try:
        answer = await handlers.resource(resource.entry.method)(params)
    except NotFound as exc:
        _fail(types.INVALID_PARAMS, f"Resource not found: {exc.message}", uri)
    except InvalidArgument as exc:
        _fail(types.INVALID_PARAMS, exc.message, uri, field=exc.field)
    except ToolError as exc:
        _fail(types.INTERNAL_ERROR, exc.message, uri)
    except MCPError:
        raise
    except Exception as exc:  # a bug: say so, keep the server up
        log.exception("reading %s failed", uri)
        _fail(
            types.INTERNAL_ERROR,
            f"Reading {uri} failed inside the server ({type(exc).__name__}: {exc}).",
            uri,
        )

    text = _text(resource, answer, uri)
    if log.isEnabledFor(logging.DEBUG):
        log.debug("read %s (%s) in %.1f ms", uri, name, (time.perf_counter() - started) * 1000)
    return types.ReadResourceResult(
        contents=[
            types.TextResourceContents(uri=uri, mime_type=resource.entry.mime_type, text=text)
        ]
    )


def _text(resource: Resource, answer: Any, uri: str) -> str:
    """The answer as sent: a JSON resource's result checked against its schema, or the text."""
    model = resource.result_model
    if model is None:
        if not isinstance(answer, str):
            log.error("%s answered %r, not text", resource.entry.method, type(answer))
            _fail(
                types.INTERNAL_ERROR, f"Reading {uri} produced no text; this is a server bug.", uri
            )
        return answer
    if not isinstance(answer, BaseModel) or not isinstance(answer, model):
        log.error("%s answered %r, not %s", resource.entry.method, type(answer), model.__name__)
        _fail(
            types.INTERNAL_ERROR,
            f"Reading {uri} produced a result of the wrong type; this is a server bug.",
            uri,
        )
    value = answer.model_dump(mode="json", by_alias=True)
    broken = [] if resource.result.accepts(value) else resource.result.problems(value)
    if broken:
        log.error("%s result breaks its schema: %s", uri, broken)
        _fail(
            types.INTERNAL_ERROR,
            f"Reading {uri} produced a result that breaks its schema ({'; '.join(broken)}); "
            "this is a server bug.",
            uri,
        )
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
