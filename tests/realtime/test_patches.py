"""Updates as patches (app/realtime/patch.py, docs/realtime.md "Patches"): a socket that
asks for them and holds the version pushed last gets only what changed, and applying it
gives exactly the fields a whole update carries, key order included."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from sqlalchemy.orm import Session, sessionmaker

from app import engine
from app.realtime import patch
from app.realtime.hub import Hub
from app.realtime.render import Rendered
from app.realtime.source import ServiceSource
from app.services import gamelog
from app.store.db import make_engine, make_sessionmaker
from tests.games import two_person_game

from .conftest import make_table
from .test_fanout_memory import first_legal_move
from .test_ws_protocol import is_snapshot, pick
from .wsclient import PER_MESSAGE

POWERS = ["rome", "parthia", "kushan", "han", "xiongnu", "satavahana"]


def _fields(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k not in PER_MESSAGE}


def _frame(state: dict[str, Any], version: int, **fields: Any) -> gamelog.Frame:
    seats = [{"index": i, "standin": None} for i in range(len(state["players"]))]
    return gamelog.Frame(
        game_id=1,
        version=version,
        state=state,
        fields={"game_id": 1, "status": "active", "seats": seats, "public": True, **fields},
        deadlines={},
        undo_seat=fields.pop("undo_seat", None),
        first_event=0,
        last_event=0,
        events=[],
    )


def test_a_patch_applied_gives_the_whole_update_of_every_seat() -> None:
    """Along a six-power game, skipping versions as a busy socket does, with the game's
    own fields changing shape too (an outcome appears, a seat gets a stand-in): every
    seat's and a spectator's patch, applied to what it held, is the whole update's
    fields, in the same key order at every level."""
    state = engine.new_game("four_empires", POWERS, 3)
    rng = random.Random(12)
    held: dict[int | None, dict[str, Any]] = {}
    base = None
    patched = smaller = 0
    for version in range(1, 160):
        seat = engine.pending(state)[0]["seat"]
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
        if rng.random() < 0.2:
            continue  # a version no socket was pushed
        extra: dict[str, Any] = {}
        if version > 120:
            extra["outcome"] = {"winner": version % 6, "scores": list(range(version % 4))}
        if version % 7 == 0:
            extra["seats"] = [
                {"index": i, "standin": "heuristic" if i == version % 6 else None} for i in range(6)
            ]
        rendered = Rendered(_frame(state, version, **extra), [], None)
        for who in (None, *range(6)):
            whole = orjson.loads(rendered.text(who, 0)[0])
            assert whole["version"] == version and "patch" not in whole
            want = _fields(whole)
            if base is not None:
                text = rendered.text(who, 0, base)[0]
                message = orjson.loads(text)
                assert message["version"] == version
                if "patch" in message:
                    assert message["base"] == base.version
                    # the message's own version is the fields' (no op says it again)
                    got = {**patch.apply(held[who], message["patch"]), "version": version}
                    assert got == want
                    assert list(got) == list(want) and list(got["view"]) == list(want["view"])
                    patched += 1
                    smaller += len(text) * 5 < len(rendered.text(who, 0)[0])
                else:  # the shared fields changed their keys: whole, and still right
                    assert _fields(message) == want
            held[who] = want
        base = rendered.base({None, *range(6)})
    assert patched > 500 and smaller > 0.8 * patched, (patched, smaller)


def test_patches_alone_build_only_what_changed_and_still_give_the_whole_update(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As a server's sockets are pushed once they all take patches: no whole message is
    made, so a dear public part whose inputs did not change is not built
    (``engine.public_inputs``) and a list of legal actions offered a few versions ago is
    not packed again (``Base.packs``). Each patch applied is still, byte for byte, the
    whole update a separate rendering of the same version gives. The map's records a
    move did not write are not even encoded again to see that (``Base.known``)."""
    packed = 0
    pack = patch.pack_actions

    def counted(actions: list[Any]) -> Any:
        nonlocal packed
        packed += bool(actions)
        return pack(actions)

    monkeypatch.setattr(patch, "pack_actions", counted)
    state = engine.new_game("four_empires", POWERS, 5)
    rng = random.Random(21)
    cheap = ("pass", "draw", "dismiss", "end_turn", "decline", "choose_slot")
    held: dict[int | None, dict[str, Any]] = {}
    base = None
    skipped = legal_ops = carried = hashed = 0
    for version in range(1, 220):
        seat = engine.pending(state)[0]["seat"]
        legal = engine.legal_actions(state, seat)
        easy = [a for a in legal if a["type"] in cheap or a.get("move") in cheap]
        state, _ = engine.apply(state, seat, rng.choice(easy if easy else legal))
        engine.freeze(state)
        rendered = Rendered(_frame(state, version), [], None, base)
        wholes = Rendered(_frame(state, version), [], None)
        if base is not None:  # the map's records a move did not write: hashed before
            carried += sum(base.known.get(k) is v for k, v in rendered._known.items())
            hashed += len(rendered._known)
        for who in (None, *range(6)):
            want = _fields(orjson.loads(wholes.text(who, 0)[0]))
            if base is None:
                held[who] = want
                continue
            message = orjson.loads(rendered.text(who, 0, base)[0])
            assert "patch" in message, version
            legal_ops += any(op[0] == ["legal_actions"] and op[1] for op in message["patch"])
            got = {**patch.apply(held[who], message["patch"]), "version": version}
            assert orjson.dumps(got) == orjson.dumps(want), (version, who)
            held[who] = want
        skipped += base is not None and "areas" not in rendered._parts
        base = rendered.base({None, *range(6)}) if base is not None else wholes.base(set(held))
    assert skipped > 150, skipped  # the map was left unbuilt on most versions
    assert carried > 0.8 * hashed, (carried, hashed)  # and its records mostly not encoded
    # a list offered a few versions before was not packed again
    assert 0 < packed < 0.9 * legal_ops, (packed, legal_ops)


def test_packed_legal_actions_unpack_to_the_engines_list_exactly() -> None:
    """Along six-power games, every seat's legal actions packed (``pack_actions``, what a
    patch sends), through JSON and unpacked, are ``engine.legal_actions`` byte for byte:
    the same actions in the same order, each with its keys in order; every container in
    them is its own; and the packed form of a list of endeavours is a tenth of it."""
    checked = packed_smaller = 0
    for seed in (3, 8):
        state = engine.new_game("four_empires", POWERS, seed)
        rng = random.Random(seed)
        for _ in range(150):
            prompts = engine.pending(state)
            if not prompts:
                break
            for seat in range(6):
                legal = engine.legal_actions(state, seat)
                packed = patch.pack_actions(legal)
                if not legal:
                    continue
                assert packed is not None
                sent = orjson.dumps(packed)
                back = patch.unpack_actions(orjson.loads(sent))
                assert orjson.dumps(back) == orjson.dumps(legal)
                containers = [id(v) for a in back for v in a.values() if type(v) in (dict, list)]
                assert len(containers) == len(set(containers))
                checked += 1
                if sum(a["type"] == "endeavour" for a in legal) > 50:
                    packed_smaller += len(sent) * 10 < len(orjson.dumps(legal))
            seat = prompts[0]["seat"]
            state, _ = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat)))
    assert checked > 200 and packed_smaller > 0, (checked, packed_smaller)


def test_ops_of_every_kind_apply_as_documented() -> None:
    """A merge, a splice, packed actions and the prompts said once, on a copy."""
    fields = {
        "clock": {"seats": {"0": {"deadline": "d0"}, "1": {"deadline": None}}},
        "prompts": [],
        "view": {"prompts": [], "me": {"deck": [1, 2, 3, 4]}, "p": {"a": 1, "b": 2, "c": 3}},
        "legal_actions": [],
    }
    legal = [{"type": "draw"}, {"type": "tax", "area": "x", "amount": 1}]
    ops = [
        [["prompts"], [{"seat": 0, "kind": "turn"}], "prompts"],
        [["view", "me", "deck"], [9], [1, 2]],
        [["view", "p"], {"c": 5, "a": 4}, "merge"],
        [["legal_actions"], patch.pack_actions(legal), "actions"],
    ]
    out = patch.apply(fields, orjson.loads(orjson.dumps(ops)))
    assert out["prompts"] == [{"seat": 0, "kind": "turn", "deadline": "d0"}]
    assert out["view"]["prompts"] == [{"seat": 0, "kind": "turn"}]
    assert out["view"]["me"]["deck"] == [1, 9, 4]
    assert list(out["view"]["p"].items()) == [("a", 4), ("b", 2), ("c", 5)]
    assert out["legal_actions"] == legal
    assert fields["view"]["me"]["deck"] == [1, 2, 3, 4] and fields["view"]["p"]["a"] == 1


def test_apply_copies_what_it_changes_and_leaves_the_rest_shared() -> None:
    fields = {"view": {"areas": {"a": {"owner": 1}, "b": {"owner": 2}}, "players": [{"x": 1}]}}
    out = patch.apply(
        fields, [[["view", "areas", "a"], {"owner": 3}], [["view", "players", 0], {"x": 2}]]
    )
    assert out["view"]["areas"]["a"] == {"owner": 3} and out["view"]["players"] == [{"x": 2}]
    assert fields["view"]["areas"]["a"] == {"owner": 1} and fields["view"]["players"] == [{"x": 1}]
    assert out["view"]["areas"]["b"] is fields["view"]["areas"]["b"]


@pytest.fixture
def factory(migrated_url: str) -> Iterator[sessionmaker[Session]]:
    eng = make_engine(migrated_url)
    yield make_sessionmaker(eng)
    eng.dispose()


class FakeSocket:
    def __init__(self) -> None:
        self.texts: list[str] = []


def test_the_hub_patches_only_a_socket_that_holds_the_last_push_from_memory(
    factory: sessionmaker[Session],
) -> None:
    """Two sockets per seat, one taking patches: after a hello (answered from the
    database) every update is whole for the one and a patch for the other, the first one
    made against the fields the hello's answer carried; applied, it is what the other one
    got whole."""
    gid, users = two_person_game(factory)
    source = ServiceSource(factory)

    async def scenario() -> None:
        hub = Hub(source)
        hub.bind(asyncio.get_running_loop())
        pairs = []
        held: dict[int, dict[str, Any]] = {}
        for uid in users.values():
            whole, patched = hub.connection(gid, uid), hub.connection(gid, uid)
            patched.patches = True
            for conn in (whole, patched):
                hub.join(conn, None)
                state = orjson.loads(await asyncio.wait_for(conn.queue.get(), 10))
                assert state["type"] == "state"
                held[id(conn)] = _fields(state)
            pairs.append((whole, patched))
        kinds: list[str] = []
        for _ in range(8):
            result = first_legal_move(factory, gid, users)
            hub.notify(gid, result.version, 0.0)
            for whole, patched in pairs:
                full = orjson.loads(await asyncio.wait_for(whole.queue.get(), 10))
                got = orjson.loads(await asyncio.wait_for(patched.queue.get(), 10))
                assert full["version"] == got["version"] == result.version
                if "patch" in got:
                    kinds.append("patch")
                    rest = {k: v for k, v in got.items() if k not in ("patch", "base")}
                    got = {**patch.apply(held[id(patched)], got["patch"]), **rest}
                else:
                    kinds.append("whole")
                assert _fields(got) | {"version": 0} == _fields(full) | {"version": 0}
                held[id(patched)] = _fields(got)
        assert set(kinds) == {"patch"}, kinds
        await hub.close()

    asyncio.run(scenario())


def test_a_patching_client_sees_what_a_whole_client_sees_over_a_live_game(
    live_server_any: Any, new_player: Any, sockets: Any
) -> None:
    """Over real sockets on both databases: each seat has a socket taking patches and
    one taking whole updates; after every move the two hold the same fields."""
    server = live_server_any
    table = make_table(server, new_player)
    whole, patched = {}, {}
    for player, seat in zip(table.players, table.seats, strict=True):
        whole[seat] = sockets(server, table.game_id, player)
        patched[seat] = sockets(server, table.game_id, player, patches=True)
        whole[seat].wait_for(is_snapshot)
        patched[seat].wait_for(is_snapshot)
    for _ in range(25):
        current = whole[table.seats[0]].state
        assert current is not None
        if current["status"] != "active":
            break
        seat = int(current["prompts"][0]["seat"])
        ack = whole[seat].act(pick(whole[seat].state), expected_version=current["version"])
        assert ack["type"] == "ack", ack
        for s in table.seats:
            a = whole[s].wait_version(ack["version"])
            b = patched[s].wait_version(ack["version"])
            assert _fields(a) == _fields(b)
    assert all(p.patched >= 20 and p.unpatchable == 0 for p in patched.values())
    raw = [t for t in patched[table.seats[0]].raw if '"patch"' in t]
    whole_raw = [t for t in whole[table.seats[0]].raw if t.startswith('{"type":"update"')]
    assert sum(map(len, raw)) * 3 < sum(map(len, whole_raw))
