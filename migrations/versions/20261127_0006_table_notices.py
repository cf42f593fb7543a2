"""Table notices: a game's webhook (the friends' chat channel) and a person's choice to
hear when a stand-in played for them.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27 21:45:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("webhook_url", sa.String(length=500), nullable=True))
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("notify_standin", sa.Boolean(), server_default=sa.true(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("notify_standin")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("webhook_url")
