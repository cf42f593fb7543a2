"""Updates built from memory: what the process that committed a change already holds
(``gamelog.Frame``) becomes each socket's ``update`` message, without a database read.

Per version, the public part is built and encoded ONCE: the game's fields, the
prompts with their deadlines and the spectator view of the board. Each seat then adds
only its own part: its private view (``view.me``: hand, deck, holdings …), its legal
actions, whether it may undo, and the events it may see. The seat's ``view`` is the
public view with ``me`` spliced in, byte for byte what ``engine.view(state, seat)``
gives (a test holds the two equal). A message carries exactly the events of the
versions up to its own ``version``, so a push is never torn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from app import engine
from app.realtime import patch

OPTS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=OPTS, default=str)


def private_part(state: dict[str, Any], seat: int) -> Any:
    """``engine.view(state, seat)["me"]``, built alone (``engine.private_view``) to be
    spliced into the public view encoded once per version (the parity test holds the
    spliced view equal to ``engine.view``)."""
    return engine.private_view(state, seat)


#: what a version's input objects hashed to, by id: (the object, its hash); the object
#: is kept so that its id cannot be another's while the entry lives
Known = dict[int, tuple[Any, int]]


@dataclass
class SeatPrint:
    """What a seat's pushes of one version carried, as prints (``patch.printed``)."""

    seat: int
    me: patch.Print  # the print of its private view (``view.me``), or None (a spectator)
    legal: int
    undo: int
    #: the hash of what its private view was made from (``engine.private_inputs``), or
    #: None (a spectator, or not known: a hello's answer)
    inputs: int | None = None


@dataclass
class Base:
    """One version's pushes as prints: what the next version's patches are made
    against, for a socket that holds this version from a push from memory."""

    version: int
    common: patch.Split
    public: patch.Split | None  # None: no view object (a game without a state)
    seats: dict[int | None, SeatPrint]
    #: the legal-action ops of the game's recent versions, by the hash of the list's
    #: encoding (``Rendered._legal_op``): a seat is often offered a list it was offered
    #: a few versions ago (a draw, a redraw, the same slots), and packing one is the
    #: dearest part of a push. At most ``PACKS_KEPT``, the newest last.
    packs: dict[int, bytes] = field(default_factory=dict)
    #: the hash of what each public part dear to build was made from in this version
    #: (``engine.public_inputs``): a part whose inputs hash the same next version keeps
    #: this print and is not built again (empty: not known, a hello's answer)
    inputs: dict[str, int] = field(default_factory=dict)
    #: what the input objects of those hashes hashed to, one by one (``_inputs_hashed``):
    #: the next version's objects that are these very ones are not encoded again
    known: Known = field(default_factory=dict)


#: the legal-action ops a game's `Base` keeps (each at most ~2 KB packed)
PACKS_KEPT = 8


def _bare(prompts: list[dict[str, Any]], public: dict[str, Any], clock: Any) -> bytes | None:
    """The prompts without their deadlines, encoded, if a patch may say them once: they
    are the view's ``prompts``, and each deadline is its seat's in ``clock.seats``."""
    bare = [{k: v for k, v in p.items() if k != "deadline"} for p in prompts]
    seats = clock.get("seats") if type(clock) is dict else None
    if type(public) is not dict or public.get("prompts") != bare or type(seats) is not dict:
        return None
    for p in prompts:
        mine = seats.get(str(p["seat"]))
        if type(mine) is not dict or "deadline" not in mine or mine["deadline"] != p["deadline"]:
            return None
        if list(p)[-1] != "deadline":
            return None
    return dumps(bare)


def _inputs_hashed(
    inputs: dict[str, tuple[Any, ...]], before: Known | None = None
) -> tuple[dict[str, int], Known]:
    """Each part's inputs as one hash, each input object encoded once (the map's records
    are inputs of two parts, and their encoding most of the cost), and what each object
    hashed to. An object of the version before (`before`) is that very object again
    when a move did not change it: a record of the map a move did not write is shared
    by the two positions and never changed in place (docs/engine-contract.md, "In
    place"), so its hash is carried over without encoding it again."""
    known: Known = {}

    def hashed(obj: Any) -> int:
        ident = id(obj)
        got = known.get(ident)
        if got is None:
            was = before.get(ident) if before is not None else None
            if was is not None and was[0] is obj:
                got = known[ident] = was
            else:
                try:
                    encoded = orjson.dumps(obj)  # plain first: several times faster
                except TypeError:  # a key that is not a string
                    encoded = orjson.dumps(obj, option=OPTS)
                got = known[ident] = (obj, hash(encoded))
        return got[1]

    parts = {name: hash(tuple([hashed(obj) for obj in objs])) for name, objs in inputs.items()}
    return parts, known


def _part(root: patch.Split | None, name: str) -> patch.Print:
    """The print of a root's key `name`, or None."""
    return None if root is None else root.part(name)


def me_print(mine: Any, encoded: bytes) -> patch.Print:
    """A seat's private view's print: one level down, since ``me`` is itself a key of
    the view (the public view's print is made apart, once per version)."""
    if type(mine) is dict and mine:
        return patch.printed_root(mine, patch.DEPTH - 1, encoded)
    return hash(encoded)


#: the fields of a message that are the seat's own; the others are the shared part's
OWN = ("seat", "view", "legal_actions", "can_undo")


#: plain JSON only: a value either encoder would write otherwise (a datetime, a subclass
#: of str or int, a dataclass) raises instead
_PLAIN = OPTS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS


def held(fields: dict[str, Any]) -> Base | None:
    """The prints of the fields a socket holds from a whole message (a hello's answer),
    so that the next push from memory can be a patch against them; None when they cannot
    be split as an update's are. Only for plain JSON values, whose decoded form is
    themselves whichever encoder wrote the message: then a patch against these prints
    is right by construction."""
    version, seat, view = fields.get("version"), fields.get("seat"), fields.get("view")
    if type(version) is not int or not all(k in fields for k in OWN):
        return None
    try:
        orjson.dumps(fields, option=_PLAIN)
    except TypeError:
        return None
    common = patch.printed_root({k: v for k, v in fields.items() if k not in OWN})
    public: patch.Print | None = None
    me: patch.Print = None
    if type(view) is dict:
        if seat is not None:
            if not view or list(view)[-1] != "me":
                return None
            mine = view["me"]
            me = (
                patch.printed_root(mine, patch.DEPTH - 1)
                if type(mine) is dict and mine
                else hash(dumps(mine))
            )
            view = {k: v for k, v in view.items() if k != "me"}
        public = patch.printed_parts_root(view)
    elif seat is not None:
        return None
    prints = SeatPrint(
        hash(dumps(seat)),
        me,
        hash(dumps(fields["legal_actions"])),
        hash(dumps(fields["can_undo"])),
    )
    return Base(version, common, public, {seat: prints})


@dataclass
class _Seat:
    """One seat's own parts of this version."""

    seat: bytes
    #: the hash of what its private view is made from (None: a spectator, or no state)
    inputs: int | None
    legal: bytes
    undo: bytes
    actions: list[Any]  # its legal actions (packed for a patch only when they changed)
    #: its private view and its encoding, once built (only when a message or a print
    #: needs them: a seat whose inputs did not change keeps its base's print)
    me: Any = None
    me_encoded: bytes | None = None
    legal_op: bytes | None = None  # the op that sets its legal actions, once made
    #: its prints against the base they were made from (None: made without one)
    printed: dict[int | None, tuple[list[bytes] | None, patch.Print]] = field(default_factory=dict)


@dataclass
class Rendered:
    """One version's update, encoded: the shared parts once, each seat's on demand,
    in full or as a patch against the previous version's `Base` (``patch.py``).

    The patch against a base and this version's prints are made in one pass
    (``patch.delta``): a part whose encoding is the one the base printed is passed
    over whole, so a move costs about the parts it changed, not the view."""

    frame: Any  # gamelog.Frame
    recent: list[tuple[Any, ...]]
    committed_at: float | None
    #: the base of the version before, if any: the public inputs it hashed carry over
    previous: Base | None = None
    _shared: dict[str, Any] = field(default_factory=dict)
    _shared_encoded: bytes = b"{}"
    #: whether there is a view object (False: a game without a state)
    _has_view: bool = False
    #: the public view's parts built so far, by key (``engine.public_parts``): every
    #: part but the dear ones at once, a dear one when its inputs changed or a whole
    #: view is asked for
    _parts: dict[str, Any] = field(default_factory=dict)
    #: the hash of each dear part's inputs (``engine.public_inputs``)
    _part_inputs: dict[str, int] = field(default_factory=dict)
    #: what each of those input objects hashed to (``_inputs_hashed``)
    _known: Known = field(default_factory=dict)
    _public: dict[str, Any] | None = None  # the whole public view, once asked for
    _public_encoded: bytes | None = None
    #: the prompts without their deadlines, encoded, when they are the view's and each
    #: deadline is its seat's in ``clock.seats``: a patch then says them once
    #: (``patch.prompts``) instead of twice with each deadline twice
    _bare: bytes | None = None
    _seats: dict[int | None, _Seat] = field(default_factory=dict)
    #: base version (None: none) -> the shared ops and the public view's, and their prints
    _shared_ops: dict[
        int | None,
        tuple[list[bytes] | None, patch.Split, list[bytes] | None, patch.Split | None],
    ] = field(default_factory=dict)
    _texts: dict[tuple[int | None, int, int], tuple[str, int]] = field(default_factory=dict)
    #: the base the last patch was made against: the next version's prints are made
    #: from it (a part unchanged since keeps its print object)
    _guide: Base | None = None
    #: what the seats' private views are made from (``engine.private_inputs``): the
    #: hash of every seat's part, and each seat's own (made on first need)
    _every: int | None = None
    _own: list[Any] = field(default_factory=list)
    #: the legal-action ops used by this version, by the hash of the list's encoding
    _packs: dict[int, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        frame = self.frame
        state = frame.state
        deadlines = frame.deadlines or {}
        active = frame.fields.get("status") == "active"
        prompts = (
            [{**p, "deadline": deadlines.get(str(p["seat"]))} for p in engine.pending(state)]
            if active and state is not None
            else []
        )
        self._shared = {**frame.fields, "version": frame.version, "prompts": prompts}
        self._shared_encoded = dumps(self._shared)
        if state is not None:
            self._has_view = True
            before = self.previous.known if self.previous is not None else None
            self._part_inputs, self._known = _inputs_hashed(engine.public_inputs(state), before)
            cheap = tuple(k for k in engine.PUBLIC_KEYS if k not in self._part_inputs)
            self._parts = engine.public_parts(state, cheap)
            self._bare = _bare(prompts, self._parts, frame.fields.get("clock"))

    def _build(self, names: list[str]) -> None:
        """The dear public parts `names` built, if not yet."""
        missing = tuple(k for k in names if k not in self._parts)
        if missing:
            self._parts.update(engine.public_parts(self.frame.state, missing))

    def _whole_public(self) -> dict[str, Any]:
        """The whole public view, ``engine.view(state, None)`` (built once asked for)."""
        if self._public is None:
            self._build(list(self._part_inputs))
            self._public = {k: self._parts[k] for k in engine.PUBLIC_KEYS}
        return self._public

    @property
    def public_view(self) -> bytes:
        """The spectator's view, encoded (once per version, when first asked for)."""
        if self._public_encoded is None:
            self._public_encoded = dumps(self._whole_public()) if self._has_view else b"null"
        return self._public_encoded

    def covers(self, since: int) -> bool:
        """Whether the events after `since` up to this version are all in memory."""
        if since == self.frame.last_event:
            return True
        if not self.recent or since > self.frame.last_event:
            return False
        return bool(self.recent[0][0] <= since + 1)

    def _seat(self, seat: int | None) -> _Seat:
        if seat in self._seats:
            return self._seats[seat]

        frame = self.frame
        state = frame.state
        inputs: int | None = None
        legal: list[Any] = []
        if seat is not None and state is not None:
            inputs = self._inputs(seat)
            mine = next((s for s in frame.fields.get("seats", []) if s["index"] == seat), None)
            if frame.fields.get("status") == "active" and mine and not mine.get("standin"):
                legal = engine.legal_actions(state, seat)
        undo = b"true" if seat is not None and seat == frame.undo_seat else b"false"
        made = self._seats[seat] = _Seat(dumps(seat), inputs, dumps(legal), undo, legal)
        return made

    def _inputs(self, seat: int) -> int:
        """The hash of what `seat`'s private view is made from: every seat's part hashed
        once per version, and the seat's own."""
        if self._every is None:
            shared, self._own = engine.private_inputs(self.frame.state)
            self._every = hash(dumps(shared))
        return hash((self._every, hash(dumps(self._own[seat]))))

    def _private(self, seat: int | None, mine: _Seat) -> bytes:
        """The seat's private view, encoded (built on first need)."""
        if mine.me_encoded is None:
            if seat is not None and self.frame.state is not None:
                mine.me = private_part(self.frame.state, seat)
            mine.me_encoded = dumps(mine.me)
        return mine.me_encoded

    def _view(self, seat: int | None) -> bytes:
        """The seat's whole view: the public one with its own part spliced in."""
        mine = self._seat(seat)
        if mine.inputs is None or not self._has_view:
            return self.public_view
        return self.public_view[:-1] + b',"me":' + self._private(seat, mine) + b"}"

    def _whole(self, seat: int | None) -> bytes:
        """The fields of a whole update, without braces."""
        mine = self._seat(seat)
        return (
            self._shared_encoded[1:-1]
            + b',"seat":'
            + mine.seat
            + b',"view":'
            + self._view(seat)
            + b',"legal_actions":'
            + mine.legal
            + b',"can_undo":'
            + mine.undo
        )

    def _shared_parts(
        self, base: Base | None
    ) -> tuple[list[bytes] | None, patch.Split, list[bytes] | None, patch.Split | None]:
        """The ops of the shared fields and of the public view from `base`, and their
        prints (once per version and base); None for ops whose part's keys changed."""
        version = None if base is None else base.version
        got = self._shared_ops.get(version)
        if got is None:
            once = self._bare is not None and base is not None and base.public is not None
            skip = ("version", "prompts") if once else ("version",)
            common, common_print = patch.ops(
                [],
                None if base is None else base.common,
                self._shared,
                self._shared_encoded,
                skip=skip,
                any_order=True,
            )
            public: list[bytes] | None = None
            public_print: patch.Split | None = None
            if self._has_view:
                public, public_print = self._public_ops(base, ("prompts",) if once else ())
            if once and common is not None and self._bare is not None and base is not None:
                was = (_part(base.common, "prompts"), _part(base.public, "prompts"))
                now = (_part(common_print, "prompts"), _part(public_print, "prompts"))
                if was != now:
                    common.append(patch.prompts(self._bare))
            got = self._shared_ops[version] = (common, common_print, public, public_print)
        return got

    def _public_ops(
        self, base: Base | None, skip: tuple[str, ...]
    ) -> tuple[list[bytes] | None, patch.Split]:
        """The public view's ops from `base` and its print. A dear part whose inputs
        hash as the base's is neither built nor encoded: it keeps the base's print.
        None for the ops when there is no base view or its keys changed."""
        old = None if base is None else base.public
        if old is not None and base is not None:
            was = base.inputs
            self._build([k for k, h in self._part_inputs.items() if was.get(k) != h])
            parts = self._parts
            obj = {k: parts.get(k, patch.SAME) for k in engine.PUBLIC_KEYS}
            ops, made = patch.parts_root([b'"view"'], old, obj, skip=skip)
            if made is not None:
                return ops, made
        return None, patch.printed_parts_root(self._whole_public())

    def _me(
        self, seat: int | None, mine: _Seat, was: SeatPrint | None, version: int | None
    ) -> tuple[list[bytes] | None, patch.Print]:
        """The ops of a seat's private view from its print in `was` (of the base of
        `version`), and its print; once per seat and base. Inputs unchanged since the
        base: no ops, and the base's print, without building the view."""
        got = mine.printed.get(version)
        if got is None:
            if mine.inputs is None:
                got = ([], None)
            elif was is not None and was.inputs == mine.inputs:
                got = ([], was.me)
            else:
                encoded = self._private(seat, mine)
                me = mine.me
                if was is None or version is None:
                    got = (None, me_print(me, encoded))
                elif type(me) is dict and me:
                    got = patch.ops(
                        [b'"view"', b'"me"'],
                        was.me if type(was.me) is patch.Split else None,
                        me,
                        encoded,
                        depth=patch.DEPTH - 1,
                    )
                    if got[0] is None:  # its keys changed: the whole of it
                        got = ([b'[["view","me"],' + encoded + b"]"], got[1])
                else:
                    now = hash(encoded)
                    ops = [] if was.me == now else [b'[["view","me"],' + encoded + b"]"]
                    got = (ops, now)
            mine.printed[version] = got
        return got

    def _patch(self, seat: int | None, base: Base) -> list[bytes] | None:
        """The ops from `base` to this version for `seat`, None if they cannot say it."""
        self._guide = base
        was = base.seats.get(seat)
        common, _cp, public, _pp = self._shared_parts(base)
        if was is None or common is None:
            return None
        mine = self._seat(seat)
        out = list(common)
        if was.seat != hash(mine.seat):
            out.append(b'[["seat"],' + mine.seat + b"]")
        if public is None:  # the public view's keys changed, or there is no view
            out.append(b'[["view"],' + self._view(seat) + b"]")
        else:
            out += public
            if mine.inputs is not None:
                me_ops, _print = self._me(seat, mine, was, base.version)
                out += me_ops or []
        if was.legal != hash(mine.legal):
            out.append(self._legal_op(mine))
        if was.undo != hash(mine.undo):
            out.append(b'[["can_undo"],' + mine.undo + b"]")
        return out

    def _legal_op(self, mine: _Seat) -> bytes:
        """The op that sets the seat's legal actions: packed (``patch.pack_actions``)
        when that is shorter, which a list of endeavours is ten times over (once per
        seat and version, whatever the sockets; a list the game's recent versions
        offered is not packed again: ``Base.packs``)."""
        if mine.legal_op is None:
            key = hash(mine.legal)
            op = self._packs.get(key)
            if op is None and self._guide is not None:
                op = self._guide.packs.get(key)
            if op is None:
                whole = b'[["legal_actions"],' + mine.legal + b"]"
                packed = patch.pack_actions(mine.actions)
                op = whole if packed is None else patch.packed([b'"legal_actions"'], dumps(packed))
                op = op if len(op) < len(whole) else whole
            self._packs[key] = mine.legal_op = op
        return mine.legal_op

    def base(self, seats: set[int | None], guide: Base | None = None) -> Base:
        """This version as the next one's patches are made against: the prints of the
        shared part and of `seats`' own parts, made from `guide` (by default the base
        the last patch was made against) where it has them."""
        guide = guide if guide is not None else self._guide
        _c, common_print, _p, public_print = self._shared_parts(guide)
        prints: dict[int | None, SeatPrint] = {}
        for seat in seats:
            mine = self._seat(seat)
            was = guide.seats.get(seat) if guide is not None else None
            if guide is None or was is None:
                _ops, mine_print = self._me(seat, mine, None, None)
            else:
                _ops, mine_print = self._me(seat, mine, was, guide.version)
            prints[seat] = SeatPrint(
                hash(mine.seat), mine_print, hash(mine.legal), hash(mine.undo), mine.inputs
            )
        packs = dict(guide.packs) if guide is not None else {}
        for key, op in self._packs.items():
            packs.pop(key, None)
            packs[key] = op  # the newest last
        while len(packs) > PACKS_KEPT:
            del packs[next(iter(packs))]
        return Base(
            self.frame.version,
            common_print,
            public_print,
            prints,
            packs,
            self._part_inputs,
            self._known,
        )

    def text(self, seat: int | None, since: int, base: Base | None = None) -> tuple[str, int]:
        """The update for a socket of `seat` that has the events up to `since`:
        (the message, its last_seq). With `base` (the version the socket holds, pushed
        from memory), a patch against it when one can say the change."""
        ops = self._patch(seat, base) if base is not None else None
        key = (seat, since, -1 if ops is None or base is None else base.version)
        if key in self._texts:
            return self._texts[key]
        events = [
            {**payload, "seq": seq, "action_seq": action_seq}
            for seq, action_seq, to, payload in self.recent
            if since < seq <= self.frame.last_event
            and (to is None or (seat is not None and seat in to))
        ]
        last = max([since, *(e["seq"] for e in events)])
        body = b'{"type":"update","events":' + dumps(events)
        if ops is None or base is None:
            body += b"," + self._whole(seat)
        else:
            body += (
                b',"base":'
                + dumps(base.version)
                + b',"version":'
                + dumps(self.frame.version)
                + b',"patch":['
                + b",".join(ops)
                + b"]"
            )
        body += b',"last_seq":' + dumps(last)
        if self.committed_at is not None:
            body += b',"committed_at":' + dumps(self.committed_at)
        out = (body + b"}").decode(), last
        self._texts[key] = out
        return out
