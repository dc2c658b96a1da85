"""The REST service (``agent-memory serve``): FastAPI over :class:`~agent_memory.AsyncMemory`,
with API keys bound to tenants and user scopes. Needs ``pip install agent-memory[service]``."""

from .app import app_from_environment, create_app, openapi
from .auth import Authenticator, parse_scope_header
from .keys import ApiKey, CreatedKey, KeyStore, Scope
from .settings import ServiceSettings

__all__ = ["ApiKey", "Authenticator", "CreatedKey", "KeyStore", "Scope", "ServiceSettings",
           "app_from_environment", "create_app", "openapi", "parse_scope_header"]
