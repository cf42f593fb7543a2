"""Updates as patches: what changed in a socket's fields since the version it holds.

A Four Empires seat's update is 35-55 KB, and a move changes a few areas, a player's
counters and the prompts. A socket that asked for patches (``"patches": true`` in its
hello) and holds the fields of the version the hub pushed it last gets only what changed:
``"patch": [op, …]``, applied in order (docs/realtime.md, "Patches"):

- ``[path, value]`` sets the value at that path of the fields it holds;
- ``[path, items, [start, removed]]`` splices the list at `path`: `removed` items from
  `start` give way to `items` (a card drawn from a 20-card deck is one op, not the deck);
- ``[path, packed, "actions"]`` sets the list of actions `packed` stands for
  (``pack_actions``: a seat's hundred endeavours are one small trie);
- ``[path, {key: value, …}, "merge"]`` sets those keys of the object at `path`;
- ``[["prompts"], prompts, "prompts"]`` says the prompts once, without deadlines: the
  view's ``prompts`` are them, the top-level ones them each with its seat's deadline
  from ``clock.seats`` (never the prompts twice, nor a deadline twice).

The message's own ``version`` is the fields' (no op says it again).

A path names an object's key by its string and a list's item by its index.

Values are compared by their encoding. A version's fields are kept as a *tree* of
encoded parts: a value whose encoding is longer than ``SPLIT`` bytes (and which is an
object, or a list of objects or lists) is kept as its items' parts, down to ``DEPTH``
levels; anything else is one leaf, its encoding. A change is then sent at the deepest
part that changed: a player's talents, not the player. The next version's patch is made
against the previous one's *print* (the tree with each leaf's encoding replaced by its
hash: a few KB a game, where its bytes would be most of a game's memory). An object
whose keys changed (in set or in order) is sent whole, so a patched object always has
the key order of a fresh one.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

import orjson

OPTS = orjson.OPT_NON_STR_KEYS

#: a container encoded longer than this is kept as its items (an op's path costs ~30
#: bytes: below this a whole area or prompt is cheaper than its changed keys' paths)
SPLIT = 256
#: a container of more items than this is split whatever its size
MANY = 32
#: levels below a root (the fields, the view, ``view.me``) that may be split
DEPTH = 4

#: a part's print: a leaf's hash, or a split container's `Split`
Print = Any  # int | Split
#: a root's print (the fields, the view, ``view.me``: objects split at their first level
#: whatever their size)
Root = "Split"

_KEYS: dict[Any, bytes] = {}  # a key's encoding: area ids, view fields … a bounded set


class Split:
    """The print of a container kept as its items: the hash of its whole encoding, and
    its items' prints, in order (an object's with its keys, a tuple shared by every
    print of that key set: ``keyset``). Two prints are equal when their whole
    encodings are: a part whose encoding did not change is not looked into again, and
    its print is the previous version's own object.

    A sequence, not a dict by key, and of bare 8-byte hashes where every item is a
    leaf (``parts_of``): a game's prints are kept between its versions, and a map of a
    hundred areas is then 0.9 KB where a dict of a hundred hashes was 8 KB."""

    __slots__ = ("keys", "parts", "whole")

    def __init__(self, whole: int, parts: Sequence[Print], keys: tuple[Any, ...] | None) -> None:
        self.whole = whole
        self.parts = parts
        self.keys = keys  # None: a list's print

    def __eq__(self, other: object) -> bool:
        return type(other) is Split and other.whole == self.whole

    def __hash__(self) -> int:
        return self.whole

    def part(self, name: Any) -> Print:
        """The print of an object's key `name` (None: no such key, or a list)."""
        if self.keys is None or name not in self.keys:
            return None
        return self.parts[self.keys.index(name)]


def parts_of(prints: list[Print]) -> Sequence[Print]:
    """Items' prints as a `Split` keeps them: an array of hashes when every one is a
    leaf's (a hash is a C ``Py_hash_t``: it fits), else a tuple."""
    try:
        return array("q", prints)
    except TypeError:  # a Split among them
        return tuple(prints)


_KEYSETS: dict[tuple[Any, ...], tuple[Any, ...]] = {}


def keyset(keys: tuple[Any, ...]) -> tuple[Any, ...]:
    """One tuple for every print of an object with these keys in this order (an area
    map's hundred ids, a player's fields: the same in every game of a scenario)."""
    got = _KEYSETS.get(keys)
    if got is None:
        if len(_KEYSETS) > 10_000:
            _KEYSETS.clear()
        got = _KEYSETS[keys] = keys
    return got


def dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=OPTS, default=str)


def key(k: Any) -> bytes:
    """A key as JSON names it (``OPT_NON_STR_KEYS`` writes ``1`` as ``"1"``)."""
    got = _KEYS.get(k)
    if got is None:
        if len(_KEYS) > 50_000:
            _KEYS.clear()
        got = _KEYS[k] = orjson.dumps(k if type(k) is str else str(k))
    return got


def _split(value: Any, encoded: bytes, depth: int) -> bool:
    """Whether `value` (encoded `encoded`) is kept as its items at this depth: a
    container longer than ``SPLIT`` bytes or of more than ``MANY`` items, that is an
    object or a list of objects or lists."""
    if depth <= 0:
        return False
    kind = type(value)
    if kind is dict:
        if not value:
            return False
    elif kind is list:
        if not value or not all(type(item) in (dict, list) for item in value):
            return False
    else:
        return False
    return len(value) > MANY or len(encoded) > SPLIT


def printed(value: Any, depth: int = DEPTH, encoded: bytes | None = None) -> Print:
    """`value`'s print, from its encoding at each level (each ``dumps`` is one call in
    C: no tree of encoded parts is built)."""
    if encoded is None:
        encoded = dumps(value)
    if not _split(value, encoded, depth):
        return hash(encoded)
    if type(value) is dict:
        return Split(
            hash(encoded),
            parts_of([printed(v, depth - 1) for v in value.values()]),
            keyset(tuple(value)),
        )
    return Split(hash(encoded), parts_of([printed(item, depth - 1) for item in value]), None)


def printed_root(obj: dict[Any, Any], depth: int = DEPTH, encoded: bytes | None = None) -> Split:
    """A root object's print: split at its first level, each key's value at `depth`."""
    if encoded is None:
        encoded = dumps(obj)
    return Split(
        hash(encoded), parts_of([printed(v, depth) for v in obj.values()]), keyset(tuple(obj))
    )


#: an item of an object left as it was (``parts_root``): not built, not looked into
SAME: Any = object()


def parts_whole(keys: tuple[Any, ...], parts: Sequence[Print]) -> int:
    """A root's `whole` made from its items' prints rather than its encoding (a root
    printed by ``printed_parts_root`` or ``parts_root``): equal for equal encodings, and
    known without encoding an item that did not change."""
    return hash((keys, tuple([p.whole if type(p) is Split else p for p in parts])))


def printed_parts_root(obj: dict[Any, Any], depth: int = DEPTH) -> Split:
    """A root object's print whose `whole` is its parts' (``parts_whole``)."""
    keys = keyset(tuple(obj))
    parts = parts_of([printed(v, depth) for v in obj.values()])
    return Split(parts_whole(keys, parts), parts, keys)


def parts_root(
    path: list[bytes],
    old: Split,
    obj: dict[Any, Any],
    depth: int = DEPTH,
    skip: tuple[Any, ...] = (),
) -> tuple[list[bytes] | None, Split | None]:
    """``ops`` for a root printed by parts (``printed_parts_root``), where an item may be
    `SAME`: the same as in `old`, neither built nor encoded. (None, None) when the keys
    changed: the caller builds every item and sends the root whole."""
    keys = tuple(obj)
    if old.keys != keys:
        return None, None
    out, parts = _members(path, old.parts, obj, depth, skip)
    return out, Split(parts_whole(old.keys, parts), parts, old.keys)


def _op(path: list[bytes], value: bytes, how: bytes = b"") -> bytes:
    return b"[[" + b",".join(path) + b"]," + value + how + b"]"


def delta(
    path: list[bytes], was: Print, value: Any, depth: int, encoded: bytes | None = None
) -> tuple[list[bytes], Print]:
    """The ops that take the part printed `was` at `path` (its encoded steps) to `value`,
    at the deepest parts that changed, and `value`'s print. Only what changed is
    looked into: an item whose encoding is the one printed is passed over whole."""
    if encoded is None:
        encoded = dumps(value)
    if not _split(value, encoded, depth):
        now = hash(encoded)
        return ([] if was == now else [_op(path, encoded)]), now
    whole = hash(encoded)
    if type(was) is not Split:
        return [_op(path, encoded)], printed(value, depth, encoded)
    if was.whole == whole:
        return [], was
    parts = was.parts
    if type(value) is dict:
        if was.keys is not None and was.keys == tuple(value):
            out, now_parts = _members(path, parts, value, depth - 1, ())
            return out, Split(whole, now_parts, was.keys)
    elif was.keys is None:
        if len(parts) == len(value):
            out = []
            items: list[Print] = []
            for i, item in enumerate(value):
                ops_i, p = delta([*path, str(i).encode()], parts[i], item, depth - 1)
                out += ops_i
                items.append(p)
            return out, Split(whole, parts_of(items), None)
        return _splice(path, parts, value, depth - 1, whole)
    return [_op(path, encoded)], printed(value, depth, encoded)


def _members(
    path: list[bytes],
    was: Sequence[Print],
    obj: dict[Any, Any],
    depth: int,
    skip: tuple[Any, ...],
) -> tuple[list[bytes], Sequence[Print]]:
    """The ops for the changed keys of an object whose keys did not change (those in
    `skip` are printed but said otherwise), and the object's items' prints: the keys set
    whole go in one merge op when there are several (a player's talents, draw count and
    hand: one path, not three), the others deeper."""
    out: list[bytes] = []
    whole: list[tuple[bytes, bytes]] = []
    parts: list[Print] = []
    for (k, v), w in zip(obj.items(), was, strict=True):
        if v is SAME:
            parts.append(w)
            continue
        encoded = dumps(v)
        if not _split(v, encoded, depth):
            parts.append(now := hash(encoded))
            if w != now and k not in skip:
                whole.append((key(k), encoded))
        elif type(w) is not Split:
            parts.append(printed(v, depth, encoded))
            if k not in skip:
                whole.append((key(k), encoded))
        else:
            ops_k, p = delta([*path, key(k)], w, v, depth, encoded)
            parts.append(p)
            if k not in skip:
                out += ops_k
    if len(whole) > 1 and path:
        merged = b"{" + b",".join([k + b":" + v for k, v in whole]) + b"}"
        out.append(_op(path, merged, b',"merge"'))
    else:
        out += [_op([*path, k], v) for k, v in whole]
    return out, parts_of(parts)


def _splice(
    path: list[bytes], was: Sequence[Print], value: list[Any], depth: int, whole: int
) -> tuple[list[bytes], Print]:
    """The list at `path` changed length: keep the items it starts and ends with."""
    encoded = [dumps(item) for item in value]
    now = [printed(item, depth, e) for item, e in zip(value, encoded, strict=True)]
    start, most = 0, min(len(was), len(now))
    while start < most and was[start] == now[start]:
        start += 1
    end = 0
    while end < most - start and was[-1 - end] == now[-1 - end]:
        end += 1
    # an item printed equal keeps its previous print (the same object, its parts shared)
    kept = [*was[:start], *now[start : len(now) - end], *(was[len(was) - end :] if end else [])]
    items = b"[" + b",".join(encoded[start : len(now) - end]) + b"]"
    op = _op(
        path,
        items,
        b",[" + str(start).encode() + b"," + str(len(was) - start - end).encode() + b"]",
    )
    return [op], Split(whole, parts_of(kept), None)


def ops(
    path: list[bytes],
    old: Split | None,
    obj: dict[Any, Any],
    encoded: bytes,
    depth: int = DEPTH,
    skip: tuple[Any, ...] = (),
    any_order: bool = False,
) -> tuple[list[bytes] | None, Split]:
    """The ops that take a root object printed `old` to `obj` (encoded `encoded`), but
    for the keys in `skip` (said otherwise: the message's ``version``, the prompts of
    ``prompts``); `path` is the root's own (``[b'"view"']``, or ``[]`` for the fields).
    With `obj`'s print. The ops are None when the root's keys changed: it must be sent
    whole; with `any_order`, only when they changed as a set (the fields of a hello's
    answer come in another order than an update's, and keep it)."""
    whole = hash(encoded)
    if old is None:
        return None, printed_root(obj, depth, encoded)
    if old.whole == whole:
        return [], old
    keys = tuple(obj)
    parts = old.parts
    if old.keys != keys:
        if old.keys is None or not any_order or set(old.keys) != set(keys):
            return None, printed_root(obj, depth, encoded)
        by_key = dict(zip(old.keys, parts, strict=True))
        parts = [by_key[k] for k in keys]
    out, now = _members(path, parts, obj, depth, skip)
    return out, Split(whole, now, keyset(keys))


def prompts(value: bytes) -> bytes:
    """The op that says the prompts once (`value`: without their deadlines): the view's
    ``prompts`` are them, the top-level ones them with each seat's clock deadline."""
    return _op([b'"prompts"'], value, b',"prompts"')


def packed(path: list[bytes], value: bytes) -> bytes:
    """The op that sets `path` to the actions `value` (``pack_actions``) stands for."""
    return _op(path, value, b',"actions"')


# --------------------------------------------------------------------------- actions


def pack_actions(actions: list[Any]) -> dict[str, Any] | None:
    """A list of actions as a trie, or None if it is not a list of non-empty objects.

    ``{"k": [keys, …], "v": [value, …], "t": [[k, node], …]}``: a run of consecutive
    actions with the same keys (``k[k]``) is one trie, each level one key, each value
    its index in ``v``. Each distinct value is there once; a non-empty object or list is
    made of other values: in ``v`` it is ``[k, [i, …]]`` (the index of its keys in
    ``k``, -1 for a list; its items' indices), so the five offers of a turn share their
    templates' parts. A scalar, ``[]`` and ``{}`` are themselves. A level is a list of ``[value,
    child]``, where `value` may be a list of values that share the same child (the
    targets an endeavour may take with the same talents); the last level is a list of
    values, where ``[a, b]`` stands for the values ``a`` to ``b`` (talents 0 to 5). Only
    consecutive actions share a branch, so ``unpack_actions`` gives back the very list,
    in order, each object's keys in order."""
    packer = _Packer()
    value_of = packer.value
    strs, ints = packer.strs, packer.ints
    runs: list[list[Any]] = []
    last: tuple[Any, ...] | None = None
    # The path the last action took: its values, and the trie node at each level of it.
    # An action with the same keys goes down the levels it shares with the last one at
    # once and branches where it differs (an endeavour's talents, then its option). A
    # value is shared only when it is the same plain scalar of the same type: then it has
    # the same index (1 is not True, 0.0 not -0.0); any other value goes by its index.
    prev: tuple[Any, ...] = ()
    nodes: list[list[Any]] = []
    for action in actions:
        if type(action) is not dict or not action:
            return None
        keys = tuple(action)
        values = tuple(action.values())
        n = len(values) - 1
        depth = 0
        if keys != last:
            runs.append([packer.keys(keys), []])
            last = keys
            nodes = [runs[-1][1]]
        else:
            for a, b in zip(values, prev, strict=True):  # the same keys
                if a is b or (a == b and type(a) is type(b) and type(a) in _FAST):
                    depth += 1
                else:
                    break
            depth = min(depth, n)  # the same action again: one more leaf
            del nodes[depth + 1 :]
        node = nodes[depth]
        if depth < n:
            at = value_of(values[depth])
            if node and node[-1][0] == at:
                node = node[-1][1]
            else:
                child: list[Any] = []
                node.append([at, child])
                node = child
            nodes.append(node)
            for value in values[depth + 1 : n]:
                child = []
                node.append([value_of(value), child])
                node = child
                nodes.append(node)
        final = values[n]
        kind = type(final)
        vi = strs.get(final) if kind is str else ints.get(final) if kind is int else None
        node.append(value_of(final) if vi is None else vi)
        prev = values
    sizes = [len(k) for k in packer.keysets]
    trie = [[index, _fold(node, sizes[index] - 1)] for index, node in runs]
    keysets = [list(k) for k in packer.keysets]
    return {"k": keysets, "v": packer.table, "t": trie}


_SCALARS = (int, bool, type(None))  # a float goes by its encoding: 0.0 == -0.0
#: the values whose equality, type for type, is their packed index's
_FAST = frozenset((str, int, bool, type(None)))


class _Packer:
    """The tables of one packed list: its key sets and its distinct values."""

    def __init__(self) -> None:
        self.keysets: dict[tuple[Any, ...], int] = {}
        # A string is its own key, an int (exactly: not a bool) too; a bool or None goes
        # with its type (1 and True are one dict key, two JSON values); a float or a
        # container by its encoding.
        self.strs: dict[str, int] = {}
        self.ints: dict[int, int] = {}
        self.values: dict[Any, int] = {}
        self.table: list[Any] = []  # a value, or [keys' index or -1, items' indices]

    def keys(self, keys: tuple[Any, ...]) -> int:
        return self.keysets.setdefault(keys, len(self.keysets))

    def value(self, value: Any) -> int:
        kind = type(value)
        if kind is str or kind is int:
            own: dict[Any, int] = self.strs if kind is str else self.ints
            got = own.get(value)
            if got is None:
                got = own[value] = len(self.table)
                self.table.append(value)
            return got
        ident: Any = (kind, value) if kind in _SCALARS else dumps(value)
        got = self.values.get(ident)
        if got is not None:
            return got
        if kind is dict and value:
            parts = [self.keys(tuple(value)), [self.value(v) for v in value.values()]]
        elif kind is list and value:
            parts = [-1, [self.value(v) for v in value]]
        else:
            parts = None
        got = self.values[ident] = len(self.table)
        self.table.append(value if parts is None else parts)
        return got


def _fold(node: list[Any], below: int) -> list[Any]:
    """A trie level with `below` levels under it, folded: runs of consecutive values at
    the last level as ``[a, b]``, neighbours with the same child as one ``[[v, …], child]``."""
    if not below:
        out: list[Any] = []
        start = 0
        for i in range(1, len(node) + 1):
            if i == len(node) or node[i] != node[i - 1] + 1:
                if i - start > 2:
                    out.append([node[start], node[i - 1]])
                else:
                    out += node[start:i]
                start = i
        return out
    folded: list[Any] = []
    for vi, child in node:
        child = _fold(child, below - 1)
        if folded and folded[-1][1] == child:
            head = folded[-1][0]
            folded[-1][0] = [*head, vi] if type(head) is list else [head, vi]
        else:
            folded.append([vi, child])
    return folded


def unpack_actions(packed: dict[str, Any]) -> list[dict[str, Any]]:
    """The list of actions `pack_actions` packed (live.js's ``unpackActions`` is the
    same). Every object and list in it is its own, shared with no other action."""
    keysets, table = packed["k"], packed["v"]
    out: list[dict[str, Any]] = []

    def value(vi: int) -> Any:
        got = table[vi]
        if type(got) is dict or got == []:
            return type(got)()  # its own, empty
        if type(got) is not list:
            return got
        keys, items = got
        if keys < 0:
            return [value(i) for i in items]
        return dict(zip(keysets[keys], [value(i) for i in items], strict=True))

    def walk(keys: list[Any], node: list[Any], prefix: list[int]) -> None:
        if len(prefix) == len(keys) - 1:
            for item in node:
                span = range(item[0], item[1] + 1) if type(item) is list else (item,)
                for vi in span:
                    out.append(dict(zip(keys, [value(i) for i in (*prefix, vi)], strict=True)))
            return
        for head, child in node:
            for vi in head if type(head) is list else (head,):
                walk(keys, child, [*prefix, vi])

    for index, node in packed["t"]:
        walk(keysets[index], node, [])
    return out


# --------------------------------------------------------------------------- applying


def apply(fields: dict[str, Any], patch: list[list[Any]]) -> dict[str, Any]:
    """A patch applied to a copy of `fields` (the reference client: live.js does the
    same; the bench and the tests use this one). Containers on a patched path are
    copied, so `fields` itself is left as it was."""
    root = dict(fields)
    copied = {id(root)}
    for op in patch:
        path, value = op[0], op[1]
        how = op[2] if len(op) > 2 else None
        obj = root
        for step in path[:-1]:
            child = obj[step]
            if id(child) not in copied:
                child = list(child) if type(child) is list else dict(child)
                obj[step] = child
                copied.add(id(child))
            obj = child
        last = path[-1]
        if how is None:
            obj[last] = value
        elif how == "merge":
            obj[last] = {**obj[last], **value}
            copied.add(id(obj[last]))
        elif how == "actions":
            obj[last] = unpack_actions(value)
        elif how == "prompts":
            root["view"] = {**root["view"], "prompts": [dict(p) for p in value]}
            copied.add(id(root["view"]))
            seats = root["clock"]["seats"]
            root["prompts"] = [{**p, "deadline": seats[str(p["seat"])]["deadline"]} for p in value]
        else:  # a splice: [start, removed]
            start, removed = how
            items = list(obj[last])
            items[start : start + removed] = value
            obj[last] = items
            copied.add(id(items))
    return root
