"""Updates as patches: what changed in a socket's fields since the version it holds.

A Four Empires seat's update is 35-55 KB, and a move changes a few areas, a player's
counters and the prompts. A socket that asked for patches (``"patches": true`` in its
hello) and holds the fields of the version the hub pushed it last gets only what changed:
``"patch": [op, …]``, each op ``[path, value]``: set the value at that path of the fields
it holds, in order (docs/realtime.md, "Patches").

Values are compared by their encoding. A version's fields are kept as their *leaves*:
each key's encoded value, or, for a non-empty object, each of its keys' encoded values,
or, for a non-empty list of objects (the players), each item's (two levels; ``view`` is
one level deeper, as its own root). A path names an object's key by its string and a
list's item by its index. The next version's patch is
made against the previous one's *print* (the hashes of its leaves: a few KB a game, where
its bytes would be most of a game's memory). A container whose keys changed (in set or in
order) is sent whole, so a patched object always has the key order of a fresh one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

OPTS = orjson.OPT_NON_STR_KEYS

#: encoded leaves of one object: key -> value, key -> {subkey -> value}, key -> [value]
Leaves = dict[Any, "bytes | dict[Any, bytes] | list[bytes]"]
#: the same with each encoded value replaced by its hash
Print = dict[Any, "int | dict[Any, int] | list[int]"]

_KEYS: dict[Any, bytes] = {}  # a key's encoding: area ids, view fields … a bounded set


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


def leaves(obj: dict[Any, Any]) -> Leaves:
    out: Leaves = {}
    for k, v in obj.items():
        if type(v) is dict and v:
            out[k] = {sk: dumps(sv) for sk, sv in v.items()}
        elif type(v) is list and v and all(type(item) is dict for item in v):
            out[k] = [dumps(item) for item in v]
        else:
            out[k] = dumps(v)
    return out


def group(obj: dict[Any, Any]) -> dict[Any, bytes]:
    """One level only: each key's encoded value (an object that is itself a leaf)."""
    return {k: dumps(v) for k, v in obj.items()}


def assemble(parts: Mapping[Any, bytes | Mapping[Any, bytes] | list[bytes]]) -> bytes:
    """The object's JSON from its leaves: byte for byte ``dumps`` of the object."""
    items = []
    for k, v in parts.items():
        if isinstance(v, list):
            items.append(key(k) + b":[" + b",".join(v) + b"]")
        elif isinstance(v, Mapping):
            items.append(
                key(k) + b":{" + b",".join(key(sk) + b":" + sv for sk, sv in v.items()) + b"}"
            )
        else:
            items.append(key(k) + b":" + v)
    return b"{" + b",".join(items) + b"}"


def fingerprint(parts: Mapping[Any, bytes | Mapping[Any, bytes] | list[bytes]]) -> Print:
    out: Print = {}
    for k, v in parts.items():
        if isinstance(v, list):
            out[k] = [hash(item) for item in v]
        elif isinstance(v, Mapping):
            out[k] = {sk: hash(sv) for sk, sv in v.items()}
        else:
            out[k] = hash(v)
    return out


def entry(
    path: bytes, k: Any, was: Any, now: Any, value: bytes | dict[Any, bytes] | list[bytes]
) -> list[bytes]:
    """The ops for one key of an object at `path` (encoded, with a trailing comma): its
    print was `was` and is `now`, its leaves `value`."""
    if isinstance(value, list):
        if isinstance(was, list) and len(was) == len(now):
            prefix = b"[[" + path + key(k) + b","
            return [
                prefix + str(i).encode() + b"]," + item + b"]"
                for i, item in enumerate(value)
                if was[i] != now[i]
            ]
        if was == now:
            return []
        return [b"[[" + path + key(k) + b"],[" + b",".join(value) + b"]]"]
    if isinstance(value, dict):
        if isinstance(was, dict) and tuple(was) == tuple(now):
            prefix = b"[[" + path + key(k) + b","
            return [
                prefix + key(sk) + b"]," + sv + b"]"
                for sk, sv in value.items()
                if was[sk] != now[sk]
            ]
        if was == now:
            return []
        return [b"[[" + path + key(k) + b"]," + assemble(value) + b"]"]
    if was == now:
        return []
    return [b"[[" + path + key(k) + b"]," + value + b"]"]


def ops(path: bytes, old: Print | None, now: Print, new: Leaves) -> list[bytes] | None:
    """The ops that take an object printed `old` to the one printed `now` with leaves
    `new`; `path` is the encoded path of the object itself with a trailing comma
    (``b'"view",'``), or ``b""`` for the root. None when the object's keys changed: it
    must be sent whole."""
    if old is None or tuple(old) != tuple(now):
        return None
    out: list[bytes] = []
    for k, v in new.items():
        was, is_ = old[k], now[k]
        if was != is_:
            out += entry(path, k, was, is_, v)
    return out


def apply(fields: dict[str, Any], patch: list[list[Any]]) -> dict[str, Any]:
    """A patch applied to a copy of `fields` (the reference client: live.js does the
    same; the bench and the tests use this one). Containers on a patched path are
    copied, so `fields` itself is left as it was."""
    root = dict(fields)
    copied = {id(root)}
    for path, value in patch:
        obj = root
        for step in path[:-1]:
            child = obj[step]
            if id(child) not in copied:
                child = list(child) if type(child) is list else dict(child)
                obj[step] = child
                copied.add(id(child))
            obj = child
        obj[path[-1]] = value
    return root
