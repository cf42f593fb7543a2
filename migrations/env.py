"""Alembic environment: the URL is the app's DATABASE_URL unless the caller set one."""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context

from app.store.db import make_engine
from app.store.models import Base

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def database_url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if url:
        return url
    from app.config import Settings

    return Settings().database_url


def run_migrations_offline() -> None:
    context.configure(url=database_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = make_engine(database_url())
    with engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            # SQLite alters a table by copying it and dropping the old one ("batch" mode);
            # with foreign keys on, that DROP would cascade and empty every table that
            # references it (seats, actions, events of `games`). The app turns them on
            # for each connection (app/store/db.py); a migration must run with them off,
            # and the pragma only takes effect outside a transaction.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
