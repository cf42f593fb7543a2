"""The JSON columns are encoded and decoded by orjson (app/store/db.py); text the standard
library's encoder wrote before (``NaN``, ``Infinity``) still reads back."""

from __future__ import annotations

import math
from pathlib import Path

from sqlalchemy import Column, Integer, MetaData, Table, insert, select, text

from app.store.db import json_value, make_engine
from app.store.types import JSONType


def test_orjson_reads_what_it_can_and_the_standard_library_the_rest() -> None:
    assert json_value('{"a": [1, 2.5, "é", null, true]}') == {"a": [1, 2.5, "é", None, True]}
    assert json_value(b'{"a": 1}') == {"a": 1}
    old = json_value('{"score": NaN, "cap": Infinity}')
    assert math.isnan(old["score"]) and old["cap"] == math.inf


def test_a_json_column_round_trips_on_sqlite_old_text_included(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'json.sqlite3'}")
    table = Table(
        "docs", MetaData(), Column("id", Integer, primary_key=True), Column("doc", JSONType)
    )
    try:
        table.metadata.create_all(engine)
        with engine.begin() as conn:
            conn.execute(insert(table), [{"id": 1, "doc": {"k": [1, {"n": None}], "s": "ü"}}])
            # As json.dumps wrote it before the columns were encoded by orjson.
            conn.execute(text("INSERT INTO docs (id, doc) VALUES (2, '{\"x\": NaN}')"))
        with engine.connect() as conn:
            rows = {r.id: r.doc for r in conn.execute(select(table.c.id, table.c.doc))}
        assert rows[1] == {"k": [1, {"n": None}], "s": "ü"}
        assert math.isnan(rows[2]["x"])
    finally:
        engine.dispose()
