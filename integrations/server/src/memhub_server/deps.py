"""Request dependencies: the tenant of the API key, and a client scoped to it."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException

from memhub import MemoryClient
from memhub_server.auth import Authenticator, KeyFileError
from memhub_server.limits import TenantLimits
from memhub_server.logs import route_of
from memhub_server.service import MemoryService

log = logging.getLogger("memhub_server")

_bearer = HTTPBearer(
    auto_error=False, description="an API key (`memhub keys create`) or the local hub's token"
)


async def require_tenant(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> AsyncIterator[str]:
    """The tenant of the request's API key; 401 without a known key, 429 over its limits
    (``memhub_server.limits``: the tenant's place is held until the request is answered)."""
    auth: Authenticator = request.app.state.auth
    try:
        tenant = auth.tenant_for(credentials.credentials) if credentials else None
    except KeyFileError as err:  # the operator's problem: the client learns nothing about the file
        log.error("%s", err)
        raise HTTPException(
            503, "the server's API keys cannot be read: its operator must fix them"
        ) from None
    if tenant is None:
        message = "missing API key" if credentials is None else "unknown API key"
        raise HTTPException(
            401, f"{message}: send 'Authorization: Bearer <key>'", {"WWW-Authenticate": "Bearer"}
        )
    request.state.tenant = tenant  # for the access log and the request metrics
    limits: TenantLimits | None = getattr(request.app.state, "limits", None)
    if limits is None:
        yield tenant
        return
    limits_for = getattr(auth, "limits_for", None)
    key = limits_for(credentials.credentials) if limits_for and credentials else None
    async with limits.admit(tenant, request.method, route_of(request.scope), key):
        yield tenant


Tenant = Annotated[str, Depends(require_tenant)]


def require_admin(
    request: Request,
    tenant: Tenant,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    """An operator's key (``memhub keys create --admin``); 403 for a tenant's own key.

    Store-wide maintenance (``purge`` rewrites every tenant's data and blocks every
    tenant's writes while it runs) is not a tenant's to start on a shared server.
    """
    auth: Authenticator = request.app.state.auth
    if credentials is None or not auth.is_admin(credentials.credentials):
        raise HTTPException(
            403,
            "purge rewrites the whole shared store: it needs an operator's key "
            "(memhub keys create --admin). A tenant erases its users with DELETE "
            "/v1/users/{user_id}.",
        )
    return tenant


Admin = Annotated[str, Depends(require_admin)]


def service(request: Request) -> MemoryService:
    return request.app.state.service


Service = Annotated[MemoryService, Depends(service)]


async def tenant_client(svc: Service, tenant: Tenant) -> MemoryClient:
    """A client scoped to the request's tenant (routes needing more defaults ask ``Service``)."""
    return await svc.client(tenant)


Client = Annotated[MemoryClient, Depends(tenant_client)]
