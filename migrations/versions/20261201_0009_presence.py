"""Presence: which people have an open socket on each game, across processes
(app/services/presence.py). One row per (game, person, process); a process refreshes
its rows while their sockets stay open and marks them left when the last one closes.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 16:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "presence",
        sa.Column(
            "game_id", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("origin", sa.String(length=32), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("left_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("game_id", "user_id", "origin"),
    )
    op.create_index("ix_presence_origin", "presence", ["origin"])


def downgrade() -> None:
    op.drop_index("ix_presence_origin", table_name="presence")
    op.drop_table("presence")
