"""The game row's hot-path columns are declared once (``app/store/games.py``, issue 39):
the read, ``GameRow``, the columns a change writes back, PostgreSQL's digest and the
one-statement write are all built from ``GAME_ROW`` and ``SEAT_ROW``, so they cannot
disagree (a column the digest missed would let the held write overwrite a change it
never saw; one the held write missed would be lost)."""

from __future__ import annotations

import dataclasses
import re

from app.services import changes
from app.services.rows import GameRow, SeatRow
from app.store import games
from app.store.models import Game, Seat, table


def test_the_read_fills_every_field_of_the_hot_path_row() -> None:
    fields = [f.name for f in dataclasses.fields(GameRow)]
    assert fields == [*games.GAME_KEYS, "seats", "state_text", "prior"]
    seat_fields = [f.name for f in dataclasses.fields(SeatRow)]
    assert seat_fields == [column for column, _ in games.SEAT_ROW] + ["user"]


def test_every_declared_column_is_a_column_of_its_table() -> None:
    game_columns, seat_columns = set(table(Game).c.keys()), set(table(Seat).c.keys())
    for hot in games.GAME_ROW:
        assert (hot.of or hot.name) in game_columns, hot
        assert not (hot.of and (hot.written or hot.held)), hot  # read only: derived
    assert {column for column, _ in games.SEAT_ROW} <= seat_columns


def test_the_writes_set_declared_columns_only() -> None:
    assert set(games.HELD_FIELDS) <= set(games.ROW_FIELDS) <= set(games.GAME_KEYS)
    # a plain move leaves these alone: a snapshot or the end takes the ordinary write
    assert set(games.ROW_FIELDS) - set(games.HELD_FIELDS) == {
        "state_seq",
        "outcome",
        "finished_at",
    }


def test_the_digest_covers_what_the_read_reads() -> None:
    named = re.findall(r'games\."(\w+)"', games.ROW_DIGEST)
    assert named == [h.of or h.name for h in games.GAME_ROW if h.name != "id"]
    seat_named = re.findall(r'\bs\."(\w+)"', games.ROW_DIGEST.split("ORDER BY")[0])
    assert seat_named == [column for column, _ in games.SEAT_ROW]
    assert "u.username" in games.ROW_DIGEST


def test_the_held_write_sets_the_held_columns_and_says_so_to_others() -> None:
    update = games._HELD_WRITE.split("UPDATE games SET")[1].split("WHERE")[0]
    assert re.findall(r"(\w+) = %\(\1\)s", update) == list(games.HELD_FIELDS)
    row = GameRow(**dict.fromkeys(games.GAME_KEYS), seats=[])
    assert list(changes.row_change(row, "d", [])["row"]) == list(games.HELD_FIELDS)
