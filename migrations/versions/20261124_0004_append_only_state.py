"""Append-only write path: games.state is the latest snapshot (at games.state_seq),
undo decided at submit (actions.can_undo, games.undo_seat), games.server_turn for the
bot worker.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 08:20:00

Before this revision ``games.state`` was rewritten on every action; from now on it is
written every few actions (a snapshot) and the current state is that snapshot plus the
actions after ``state_seq``. Upgrading keeps every game as it is (its state is then at
``last_action``). Downgrading replays the actions after each game's snapshot so the
old code finds the current state in ``games.state`` again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("state_seq", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.add_column(sa.Column("undo_seat", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("server_turn", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.create_index("ix_games_server_turn", ["server_turn"], unique=False)
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("can_undo", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    # The state of every game was current: it is the snapshot at its last action. Active
    # games are handed to the bot worker once, which clears the flag where no bot is due.
    op.execute("UPDATE games SET state_seq = last_action")
    op.execute("UPDATE games SET server_turn = true WHERE status = 'active'")


def _current_state(conn: Any, game: Any) -> str:
    """The state after every action of `game`: its snapshot, then the log after it."""
    from app import engine

    state = engine.loads(game.state)
    rows = conn.execute(
        sa.text("SELECT seat, action FROM actions WHERE game_id = :g AND seq > :s ORDER BY seq"),
        {"g": game.id, "s": game.state_seq},
    )
    for seat, action in rows:
        if isinstance(action, str):  # SQLite hands JSON back as text
            import json

            action = json.loads(action)
        state, _ = engine.apply(state, int(seat), action)
    return engine.dumps(state)


def downgrade() -> None:
    conn = op.get_bind()
    behind = conn.execute(
        sa.text(
            "SELECT id, state, state_seq FROM games "
            "WHERE state IS NOT NULL AND state_seq < last_action"
        )
    ).all()
    for game in behind:
        conn.execute(
            sa.text("UPDATE games SET state = :state WHERE id = :id"),
            {"state": _current_state(conn, game), "id": game.id},
        )
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.drop_column("can_undo")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_server_turn")
        batch_op.drop_column("server_turn")
        batch_op.drop_column("undo_seat")
        batch_op.drop_column("state_seq")
