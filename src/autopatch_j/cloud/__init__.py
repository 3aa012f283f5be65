"""Cloud control plane: API, database, worker and automatic memory.

The public API other packages use (the CLI's `cloud` commands, the error boundary): the settings,
the database engine and transactions, the schema migration, the server and the worker, user and
quota administration, and the errors. Each name is imported on first use, so importing the package
loads neither its modules nor the `cloud` extra's libraries.
"""

from __future__ import annotations

from autopatch_j import lazy_api

TYPE_CHECKING = False  # typing stays unloaded (cold start); mypy knows the name

if TYPE_CHECKING:
    from autopatch_j.cloud.db import check_connection, make_engine, write_tx
    from autopatch_j.cloud.errors import CloudError, ConfigError, InvalidInput, StorageError
    from autopatch_j.cloud.executors import make_executor
    from autopatch_j.cloud.model_memory import ModelMemory
    from autopatch_j.cloud.quotas import set_quota
    from autopatch_j.cloud.schema import current_revision, migrate
    from autopatch_j.cloud.server import check_workers, serve
    from autopatch_j.cloud.settings import CloudSettings, read_cloud_settings
    from autopatch_j.cloud.signature import signer
    from autopatch_j.cloud.users import create_user, revoke_token, rotate_token, user_by_name
    from autopatch_j.cloud.worker import Worker

_EXPORTS = {
    "CloudSettings": "settings",
    "read_cloud_settings": "settings",
    "check_connection": "db",
    "make_engine": "db",
    "write_tx": "db",
    "current_revision": "schema",
    "migrate": "schema",
    "check_workers": "server",
    "serve": "server",
    "Worker": "worker",
    "make_executor": "executors",
    "ModelMemory": "model_memory",
    "set_quota": "quotas",
    "signer": "signature",
    "create_user": "users",
    "revoke_token": "users",
    "rotate_token": "users",
    "user_by_name": "users",
    "CloudError": "errors",
    "ConfigError": "errors",
    "InvalidInput": "errors",
    "StorageError": "errors",
}
__all__ = [
    "CloudError",
    "CloudSettings",
    "ConfigError",
    "InvalidInput",
    "ModelMemory",
    "StorageError",
    "Worker",
    "check_connection",
    "check_workers",
    "create_user",
    "current_revision",
    "make_engine",
    "make_executor",
    "migrate",
    "read_cloud_settings",
    "revoke_token",
    "rotate_token",
    "serve",
    "set_quota",
    "signer",
    "user_by_name",
    "write_tx",
]
__getattr__ = lazy_api(__name__, _EXPORTS)
