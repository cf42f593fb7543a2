"""Player stats (rating with openskill, games rated and won, last seen) and
games.result_notes (stand-in counts and rating changes of a finished game).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 08:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "result_notes",
                sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
                nullable=True,
            )
        )
    op.create_table(
        "player_stats",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_player_stats_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_player_stats")),
    )
    with op.batch_alter_table("player_stats", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_player_stats_last_seen_at"), ["last_seen_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("player_stats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_stats_last_seen_at"))
    op.drop_table("player_stats")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("result_notes")
