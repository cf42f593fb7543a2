"""seats.seen_event: the last event a seat's person has seen of the game, so that coming
back she is told what happened since ("while you were away", app/services/catchup.py);
null until she first opens the game's page.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27 22:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("seen_event", sa.Integer(), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("seen_event")
