"""`autopatch-j cloud …`: init, users, quotas, the API server and workers.

FastAPI, SQLAlchemy and uvicorn are imported inside the commands only, so `autopatch-j --help`
stays fast. They are the `cloud` extra: without it every `cloud` command (not `--help`) exits 5 with
the one sentence that names the command installing it.

`--db` defaults to `AUTOPATCH_CLOUD_DB`, then to a SQLite file in the user data dir.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from autopatch_j.cloud import CloudSettings

cloud_app = typer.Typer(help="Cloud control plane: init, users, API server and workers.", no_args_is_help=True)
user_app = typer.Typer(help="Manage control-plane users.", no_args_is_help=True)
quota_app = typer.Typer(help="Manage monthly USD quotas.", no_args_is_help=True)
token_app = typer.Typer(help="Rotate or revoke a user's API token.", no_args_is_help=True)
cloud_app.add_typer(user_app, name="user")
user_app.add_typer(token_app, name="token")
cloud_app.add_typer(quota_app, name="quota")


#: what the `cloud` extra installs (pyproject.toml), by import name
CLOUD_EXTRA_MODULES = ("fastapi", "uvicorn", "sqlalchemy", "alembic", "psycopg", "jinja2")


@cloud_app.callback()
def require_cloud_extra() -> None:
    """Refuse every cloud command, in one sentence, when the `cloud` extra is not installed."""
    import importlib.util

    from autopatch_j.app.errors import MissingExtra

    missing = [name for name in CLOUD_EXTRA_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingExtra(command="cloud", extra="cloud", missing=missing)


def register(app: typer.Typer) -> None:
    """Add the `cloud` command group to the root application."""
    app.add_typer(cloud_app, name="cloud")


DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="Database URL (sqlite:///path or postgresql+psycopg://…). "
        "Default: $AUTOPATCH_CLOUD_DB, then a SQLite file in the user data directory.",
        show_default=False,
    ),
]


def _settings(db: str | None, **options: Any) -> CloudSettings:
    """The settings, read once here from the options and the process environment."""
    import os

    from autopatch_j.cloud import read_cloud_settings

    return read_cloud_settings(os.environ, db=db, **options)


def _ready_engine(settings: CloudSettings) -> Any:
    """An engine on a migrated database (so every command works on a fresh file)."""
    from autopatch_j.cloud import check_connection, make_engine, migrate

    engine = make_engine(settings.db)
    check_connection(engine)
    migrate(engine)
    return engine


@cloud_app.command("init")
def init(db: DbOption = None) -> None:
    """Create the cloud database or migrate it to the newest schema."""
    from autopatch_j.cloud import current_revision

    settings = _settings(db)
    engine = _ready_engine(settings)
    try:
        typer.echo(f"cloud database ready at revision {current_revision(engine)}: {engine.url.render_as_string()}")
    finally:
        engine.dispose()


@user_app.command("add")
def user_add(
    name: Annotated[str, typer.Argument(help="Unique user name.")],
    admin: Annotated[bool, typer.Option("--admin", help="Make the user a site admin (may set quotas).")] = False,
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help='Print {"id", "token"} as JSON.')] = False,
) -> None:
    """Create a user and print its API token (shown once; only its hash is stored)."""
    from autopatch_j.cloud import create_user, write_tx
    from autopatch_j.runtime import utc_now

    engine = _ready_engine(_settings(db))
    try:
        with write_tx(engine) as conn:
            created = create_user(conn, name=name, is_admin=admin, now=utc_now())
    finally:
        engine.dispose()
    if as_json:
        typer.echo(json.dumps({"id": created.user.id, "token": created.token}))
    else:
        typer.echo(f"user {created.user.name!r} created with id {created.user.id}")
        typer.echo(f"token (shown once): {created.token}")


@token_app.command("rotate")
def token_rotate(
    name: Annotated[str, typer.Argument(help="The user's name.")],
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help='Print {"id", "token"} as JSON.')] = False,
) -> None:
    """Give the user a new API token (shown once); the old one and their console sessions end now."""
    from autopatch_j.cloud import rotate_token, user_by_name, write_tx
    from autopatch_j.runtime import utc_now

    engine = _ready_engine(_settings(db))
    try:
        with write_tx(engine) as conn:
            user = user_by_name(conn, name)
            token = rotate_token(conn, user_id=user.id, now=utc_now())
    finally:
        engine.dispose()
    if as_json:
        typer.echo(json.dumps({"id": user.id, "token": token}))
    else:
        typer.echo(f"user {user.name!r}: token rotated; the old token and console sessions no longer work")
        typer.echo(f"token (shown once): {token}")


@token_app.command("revoke")
def token_revoke(name: Annotated[str, typer.Argument(help="The user's name.")], db: DbOption = None) -> None:
    """Leave the user without a working token; their console sessions end now."""
    from autopatch_j.cloud import revoke_token, user_by_name, write_tx
    from autopatch_j.runtime import utc_now

    engine = _ready_engine(_settings(db))
    try:
        with write_tx(engine) as conn:
            user = user_by_name(conn, name)
            revoke_token(conn, user_id=user.id, now=utc_now())
    finally:
        engine.dispose()
    typer.echo(f"user {user.name!r}: token revoked; rotate it to give the user a new one")


@quota_app.command("set")
def quota_set(
    user_id: Annotated[int, typer.Argument(help="The user's id.")],
    limit: Annotated[str, typer.Argument(help="Monthly limit in USD, or 'unlimited'.", metavar="USD|unlimited")],
    db: DbOption = None,
) -> None:
    """Set a user's monthly USD limit (without a row the default is $10)."""
    from autopatch_j.cloud import InvalidInput, set_quota, write_tx
    from autopatch_j.runtime import utc_now

    if limit.strip().lower() == "unlimited":
        amount: float | None = None
    else:
        try:
            amount = float(limit)
        except ValueError as exc:
            raise InvalidInput(f"the limit must be a number of USD or 'unlimited', not {limit!r}.") from exc
        if amount != amount or amount in (float("inf"), float("-inf")):
            raise InvalidInput("the limit must be a finite number of USD.")
    engine = _ready_engine(_settings(db))
    try:
        with write_tx(engine) as conn:
            set_quota(conn, actor_id=None, user_id=user_id, monthly_limit_usd=amount, now=utc_now())
    finally:
        engine.dispose()
    typer.echo(f"user {user_id}: monthly limit {'unlimited' if amount is None else f'${amount:.2f}'}")


@cloud_app.command("serve")
def serve(
    db: DbOption = None,
    host: Annotated[
        str | None, typer.Option(help="Address to listen on. Default: $AUTOPATCH_CLOUD_HOST or 127.0.0.1.")
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on. Default: $AUTOPATCH_CLOUD_PORT or 8000.")] = None,
    workers: Annotated[
        int,
        typer.Option(
            help="Worker processes sharing the port (about one per core; see docs/cloud.md for sizing).",
        ),
    ] = 1,
) -> None:
    """Run the HTTP API (OpenAPI at /openapi.json) with uvicorn."""
    from autopatch_j.cloud import check_workers
    from autopatch_j.cloud import serve as run_server

    overrides = {key: value for key, value in {"db": db, "host": host, "port": port}.items() if value is not None}
    settings = _settings(db, host=host, port=port)
    check_workers(settings, workers)
    engine = _ready_engine(settings)
    try:
        run_server(settings, engine=engine, overrides=overrides, workers=workers)
    finally:
        engine.dispose()


@cloud_app.command("worker")
def worker(
    db: DbOption = None,
    executor: Annotated[
        str | None,
        typer.Option(
            help="scripted (deterministic demo), command (runs $AUTOPATCH_CLOUD_COMMAND) or llm "
            "(OpenAI-compatible). Default: $AUTOPATCH_CLOUD_EXECUTOR or scripted."
        ),
    ] = None,
    once: Annotated[
        bool, typer.Option("--once", help="Process until the queue is empty, run the memory sweep, exit.")
    ] = False,
) -> None:
    """Claim and run queued tasks, then sweep for automatic memories, in a loop."""
    import logging
    import signal
    import threading

    from autopatch_j.cloud import ModelMemory, Worker, make_executor, signer

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    settings = _settings(db, executor=executor)
    runner = make_executor(settings.executor, settings=settings)
    engine = _ready_engine(settings)
    loop_worker = Worker(
        engine=engine,
        executor=runner,
        worker_id=settings.worker_id,
        lease_seconds=settings.lease_seconds,
        max_attempts=settings.max_attempts,
        sweep_batch=settings.sweep_batch,
        sweep_pass_seconds=settings.sweep_pass_seconds,
        signature=signer(),
        memory_model=ModelMemory.from_settings(settings),  # C-40
    )

    def report(ran: int, sweep: Any) -> None:
        if ran or sweep.extracted:
            typer.echo(f"ran {ran} task(s); memories extracted from tasks {sweep.extracted or '[]'}")

    stop = threading.Event()
    # SIGTERM (a supervisor's stop) stops the running executor, gives its task back to the queue and exits.
    previous = signal.signal(signal.SIGTERM, lambda _signo, _frame: stop.set())
    typer.echo(f"worker {loop_worker.worker_id} started (executor {runner.name})")
    try:
        total = loop_worker.run_loop(once=once, stop=stop, poll_seconds=settings.poll_seconds, on_loop=report)
    except KeyboardInterrupt:
        total = -1
    finally:
        signal.signal(signal.SIGTERM, previous)
        engine.dispose()
    if loop_worker.code_changed:
        typer.echo("worker code changed on disk: exiting so the supervisor restarts the worker on the new code")
    if total >= 0:
        typer.echo(f"worker done: {total} task(s) run")
