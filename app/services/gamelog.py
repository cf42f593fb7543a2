"""The game row and its append-only log: locking, recording actions and events,
saving the state and snapshots."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from app.services.errors import Conflict, NotFound
from app.store.models import Action, Event, Game, Snapshot

#: a snapshot of the state every this many actions (and at the start)
SNAPSHOT_EVERY = 25


def lock_game(db: Session, game_id: int) -> Game:
    """Load the game row for writing, serialising writers of this game.

    PostgreSQL: ``SELECT … FOR UPDATE`` (other writers of this game wait).
    SQLite: ``BEGIN IMMEDIATE`` takes the database's write lock before anything is
    read, so the version we check is the latest one (the busy timeout makes the
    others wait). Must come before any other write of the transaction.
    """
    conn = db.connection()
    query = (
        select(Game)
        .where(Game.id == game_id)
        .options(selectinload(Game.seats))
        .execution_options(populate_existing=True)
    )
    if conn.dialect.name == "sqlite":
        raw: Any = conn.connection.dbapi_connection
        if not raw.in_transaction:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        query = query.with_for_update(of=Game)
    game = db.scalar(query)
    if game is None:
        raise NotFound(f"There is no game {game_id}.")
    return game


def load_state(game: Game) -> dict[str, Any]:
    from app import engine
    from app.engine.errors import ContentMismatch

    if game.state is None:
        raise NotFound("This game has not started yet.")
    try:
        state: dict[str, Any] = engine.loads(game.state)
    except ContentMismatch as exc:
        raise Conflict(
            "This game was saved with another version of the game's content "
            "and cannot continue on this server.",
            code="content_mismatch",
        ) from exc
    return state


def save_state(db: Session, game: Game, state: dict[str, Any], snapshot: bool = False) -> None:
    from app import engine

    game.state = engine.dumps(state)
    if snapshot or (game.last_action and game.last_action % SNAPSHOT_EVERY == 0):
        exists = db.scalar(
            select(Snapshot.id).where(
                Snapshot.game_id == game.id, Snapshot.action_seq == game.last_action
            )
        )
        if exists is None:
            db.add(
                Snapshot(
                    game_id=game.id,
                    action_seq=game.last_action,
                    version=game.version,
                    state=game.state,
                    state_hash=engine.state_hash(state),
                )
            )


def record(
    db: Session,
    game: Game,
    seat: int,
    action: dict[str, Any],
    events: list[dict[str, Any]],
    source: str,
    user_id: int | None = None,
    idempotency_key: str | None = None,
) -> Action:
    """Append one action and its events; bumps the game's version."""
    game.last_action += 1
    game.version += 1
    first = game.last_event
    for event in events:
        game.last_event += 1
        to = event.get("to")
        db.add(
            Event(
                game_id=game.id,
                seq=game.last_event,
                action_seq=game.last_action,
                visible_to=list(to) if to is not None else None,
                payload=dict(event),
            )
        )
    row = Action(
        game_id=game.id,
        seq=game.last_action,
        seat=seat,
        action=dict(action),
        source=source,
        user_id=user_id,
        idempotency_key=idempotency_key,
        version=game.version,
        first_event=first,
        last_event=game.last_event,
    )
    db.add(row)
    return row


def visible(visible_to: list[int] | None, seat: int | None) -> bool:
    return visible_to is None or (seat is not None and seat in visible_to)


def event_json(row: Event) -> dict[str, Any]:
    return {**row.payload, "seq": row.seq, "action_seq": row.action_seq}


def events_between(
    db: Session, game_id: int, seat: int | None, after: int, upto: int | None = None
) -> list[dict[str, Any]]:
    query = select(Event).where(Event.game_id == game_id, Event.seq > after)
    if upto is not None:
        query = query.where(Event.seq <= upto)
    rows = db.scalars(query.order_by(Event.seq)).all()
    return [event_json(r) for r in rows if visible(r.visible_to, seat)]
