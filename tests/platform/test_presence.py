"""The table knows who is here (issue 40; app/services/presence.py): a person whose
sockets are all closed is shown gone after a moment, and on the live pace, once gone for
a minute while her seat owes a decision, her standing orders and a stand-in play for her;
her first socket back gives her the seat at once; a brief drop changes nothing; a
socket held by another process, or a process that stopped refreshing, counts as it
should. Real services on SQLite and PostgreSQL, the registry written by each "process"
(an origin) as app/realtime/presence.py writes it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.services import (
    absence,
    clocks,
    gamelog,
    presence,
    tablevotes,
)
from app.services.errors import Conflict
from app.store.db import make_engine, make_sessionmaker
from app.store.models import Event, Game
from tests.games import three_friends


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


def load(factory: sessionmaker[Session], gid: int) -> tuple[Game, dict[str, Any]]:
    with factory() as db:
        game = db.get(Game, gid)
        assert game is not None
        state = gamelog.load_state(game, db)
        _ = [s.user for s in game.seats]
        db.expunge_all()
        return game, state


def seat_of(game: Game, index: int) -> Any:
    return next(s for s in game.seats if s.index == index)


def said(factory: sessionmaker[Session], gid: int) -> list[str]:
    with factory() as db:
        rows = db.scalars(select(Event).where(Event.game_id == gid).order_by(Event.seq))
        return [e.payload["text"] for e in rows]


def call(factory: sessionmaker[Session], change: Any, *args: Any, **kw: Any) -> Any:
    with factory() as db:
        return change(db, *args, **kw)


def test_a_closed_tab_is_shown_gone_then_a_stand_in_plays_and_coming_back_returns_it(
    factory: sessionmaker[Session],
) -> None:
    gid, users = three_friends(factory)
    game, state = load(factory, gid)
    owing = min(p["seat"] for p in engine.pending(state) if p["seat"] in users)
    t0 = datetime.now().astimezone()
    for user in users.values():
        call(factory, presence.arrived, gid, user, "p1", t0)
    # She closes her tab; a moment later nothing shows (a reload looks the same).
    left = t0 + timedelta(seconds=5)
    call(factory, presence.departed, gid, users[owing], "p1", left)
    assert presence.sweep(factory, left + timedelta(seconds=presence.SHOW_AFTER_S - 1)) == []
    assert load(factory, gid)[0].version == game.version
    # Gone for longer: the table is shown it, the version moves, nobody stands in yet.
    shown = left + timedelta(seconds=presence.SHOW_AFTER_S + 1)
    assert presence.sweep(factory, shown) == [gid]
    game2, _ = load(factory, gid)
    assert game2.version == game.version + 1
    assert game2.clocks["gone"] == {str(owing): left.isoformat()}
    assert clocks.view(game2)["gone"] == {str(owing): left.isoformat()}  # type: ignore[index]
    assert not seat_of(game2, owing).standin
    assert presence.sweep(factory, shown + timedelta(seconds=5)) == []  # said once
    # A minute gone while her seat owes a decision: her orders and a stand-in play (the
    # others' process keeps refreshing their rows: they are here).
    late = left + timedelta(seconds=presence.GONE_AFTER_S + 1)
    call(factory, presence.refresh, "p1", late - timedelta(seconds=5))
    assert presence.sweep(factory, late) == [gid]
    game3, _ = load(factory, gid)
    assert seat_of(game3, owing).standin and game3.clocks["away"][str(owing)]["why"] == "gone"
    assert any(
        t.endswith(
            "left the table: their standing orders and a Standard bot play for "
            "them at once, until they are back (opening the game takes the seat "
            "back). The result will say how many decisions the bot made."
        )
        for t in said(factory, gid)
    )
    # She opens the game again: the seat is hers at once, "gone" is cleared, all told.
    call(factory, presence.arrived, gid, users[owing], "p2", late + timedelta(seconds=30))
    game4, _ = load(factory, gid)
    assert not seat_of(game4, owing).standin
    assert str(owing) not in game4.clocks["gone"] and str(owing) not in game4.clocks["away"]
    assert game4.version > game3.version
    assert "takes the seat back from the bot" in said(factory, gid)[-1]


def test_a_brief_drop_changes_nothing(factory: sessionmaker[Session]) -> None:
    gid, users = three_friends(factory)
    game, _ = load(factory, gid)
    t0 = datetime.now().astimezone()
    user = users[0]
    call(factory, presence.arrived, gid, user, "p1", t0)
    call(factory, presence.departed, gid, user, "p1", t0 + timedelta(seconds=1))
    call(factory, presence.arrived, gid, user, "p1", t0 + timedelta(seconds=4))
    for later in (20, 70, 200):  # her process refreshes her row while it holds it
        call(factory, presence.refresh, "p1", t0 + timedelta(seconds=later - 5))
        assert presence.sweep(factory, t0 + timedelta(seconds=later)) == []
    after, _ = load(factory, gid)
    assert after.version == game.version and not (after.clocks or {}).get("gone")


def test_another_process_still_holding_her_socket_keeps_her_present(
    factory: sessionmaker[Session],
) -> None:
    gid, users = three_friends(factory)
    t0 = datetime.now().astimezone()
    user = users[1]
    call(factory, presence.arrived, gid, user, "p1", t0)
    call(factory, presence.arrived, gid, user, "p2", t0)
    call(factory, presence.departed, gid, user, "p1", t0 + timedelta(seconds=1))
    # p2 refreshes its rows while it holds them: she is here.
    call(factory, presence.refresh, "p2", t0 + timedelta(seconds=30))
    assert presence.sweep(factory, t0 + timedelta(seconds=40)) == []
    # p2 stopped refreshing (it died): its row goes stale, and she is gone since it
    # last saw her.
    stale = t0 + timedelta(seconds=30 + presence.STALE_S + presence.SHOW_AFTER_S + 1)
    assert presence.sweep(factory, stale) == [gid]
    game, _ = load(factory, gid)
    assert game.clocks["gone"] == {"1": (t0 + timedelta(seconds=30)).isoformat()}


def test_the_daily_pace_shows_gone_but_keeps_her_bank(factory: sessionmaker[Session]) -> None:
    gid, users = three_friends(factory, pace="daily")
    _, state = load(factory, gid)
    owing = min(p["seat"] for p in engine.pending(state) if p["seat"] in users)
    t0 = datetime.now().astimezone()
    call(factory, presence.arrived, gid, users[owing], "p1", t0)
    call(factory, presence.departed, gid, users[owing], "p1", t0)
    assert presence.sweep(factory, t0 + timedelta(hours=2)) == [gid]
    game, _ = load(factory, gid)
    assert str(owing) in game.clocks["gone"] and not seat_of(game, owing).standin


def test_a_person_shown_gone_with_nothing_more_to_do_is_not_looked_at_again(
    factory: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the table shows her gone on a pace that hands no seat over, the sweep takes
    no lock of her game at each pass (a site's idle daily games would each cost one every
    few seconds, for as long as they last); her return is seen as before."""
    gid, users = three_friends(factory, pace="daily")
    _, state = load(factory, gid)
    owing = min(p["seat"] for p in engine.pending(state) if p["seat"] in users)
    t0 = datetime.now().astimezone()
    call(factory, presence.arrived, gid, users[owing], "p1", t0)
    call(factory, presence.departed, gid, users[owing], "p1", t0)
    judged: list[int] = []
    judge = presence._judge

    def counted(db: Session, game_id: int, *rest: Any) -> bool:
        judged.append(game_id)
        return judge(db, game_id, *rest)

    monkeypatch.setattr(presence, "_judge", counted)
    assert presence.sweep(factory, t0 + timedelta(minutes=1)) == [gid] and judged == [gid]
    for later in (2, 30, 600):
        assert presence.sweep(factory, t0 + timedelta(minutes=later)) == []
    assert judged == [gid]
    call(factory, presence.arrived, gid, users[owing], "p1", t0 + timedelta(hours=1))
    game, _ = load(factory, gid)
    assert str(owing) not in game.clocks["gone"]


def test_the_table_hands_over_only_the_gone_or_the_slow(factory: sessionmaker[Session]) -> None:
    gid, users = three_friends(factory)
    _, state = load(factory, gid)
    owing = min(p["seat"] for p in engine.pending(state) if p["seat"] in users)
    voter = next(s for s in users if s != owing)
    t0 = datetime.now().astimezone()
    with factory() as db, pytest.raises(Conflict) as refused:
        tablevotes.vote(db, gid, users[voter], "skip", seat_index=owing, now=t0)
    assert refused.value.code == "not_absent"
    # She leaves: shown gone, the table may vote at once, well within her minute.
    call(factory, presence.arrived, gid, users[owing], "p1", t0)
    call(factory, presence.departed, gid, users[owing], "p1", t0)
    presence.sweep(factory, t0 + timedelta(seconds=presence.SHOW_AFTER_S + 1))
    with factory() as db:
        tablevotes.vote(
            db, gid, users[voter], "skip", seat_index=owing, now=t0 + timedelta(seconds=12)
        )
    game, _ = load(factory, gid)
    assert game.clocks["votes"] == {f"skip:{owing}": [voter]}


def test_a_stand_in_she_asked_for_stays_when_she_opens_the_game(
    factory: sessionmaker[Session],
) -> None:
    """ "I'm away" is hers to end: opening the game does not end it."""
    gid, users = three_friends(factory)
    t0 = datetime.now().astimezone()
    call(factory, presence.arrived, gid, users[2], "p1", t0)
    call(factory, absence.go_away, gid, users[2])
    call(factory, presence.departed, gid, users[2], "p1", t0)
    call(factory, presence.arrived, gid, users[2], "p1", t0 + timedelta(seconds=2))
    game, _ = load(factory, gid)
    assert seat_of(game, 2).standin and game.clocks["away"]["2"]["why"] == "away"
