"""Persistence: SQLAlchemy 2.0 models, the engine/session factory and the `db` command.

Alembic (``migrations/``) owns the schema; the app never calls ``create_all``.
"""
