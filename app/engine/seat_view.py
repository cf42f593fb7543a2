"""`seat_view`: a seat's view for bots, read lazily from the state.

`view` builds the whole allowlisted view (every area, every player, the score,
the deck lists) and bots read a few keys of it per decision. A `SeatView` is a
read-only mapping with the very same keys and values as ``view(state, seat)``,
each built from the same code (`view.PARTS`, `view.ME_PARTS`) only when it is
read, and then kept. ``players`` and ``areas`` are lazy too: one player or one
area is built when it is read. It redacts exactly what `view` redacts, because
it can only ever return what a `view` part returns: other hands, deck order,
the market deck and the RNG have no key here.

A `SeatView` reads the state as it is when a key is first read: read it before
the state moves on (`apply_in_place`), or take a new one. Values are fresh
copies built for the reader; changing them changes nothing in the game.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from app.engine import memo
from app.engine.view import ME_PARTS, PARTS, _check_seat, _public_player, _view_area

State = dict[str, Any]

_MISSING = object()


class _LazyMapping(Mapping[str, Any]):
    """A mapping whose values are built on first read and kept."""

    __slots__ = ("_built",)

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def _build(self, key: str) -> Any:  # pragma: no cover - overridden
        raise KeyError(key)

    def __getitem__(self, key: str) -> Any:
        value = self._built.get(key, _MISSING)
        if value is _MISSING:
            value = self._built[key] = self._build(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        value = self._built.get(key, _MISSING)
        if value is not _MISSING:
            return value
        try:
            return self[key]
        except KeyError:
            return default

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return len(self) == len(other) and all(k in other and self[k] == other[k] for k in self)

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({to_plain(self)!r})"


class _AreasView(_LazyMapping):
    __slots__ = ("_areas",)

    def __init__(self, state: State) -> None:
        super().__init__()
        self._areas: dict[str, Any] = state["areas"]

    def _build(self, key: str) -> Any:
        return _view_area(self._areas[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._areas)

    def __len__(self) -> int:
        return len(self._areas)

    def __contains__(self, key: object) -> bool:
        return key in self._areas


class _PlayersView(Sequence[dict[str, Any]]):
    """The public players, one built when it is read."""

    __slots__ = ("_state", "_built")

    def __init__(self, state: State) -> None:
        self._state = state
        self._built: list[dict[str, Any] | None] = [None] * len(state["players"])

    def __len__(self) -> int:
        return len(self._built)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self._built)
        if not 0 <= index < len(self._built):
            raise IndexError("player index out of range")
        built = self._built[index]
        if built is None:
            built = self._built[index] = _public_player(self._state, index)
        return built

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"_PlayersView({list(self)!r})"


_ME = dict(ME_PARTS)


class _MeView(_LazyMapping):
    __slots__ = ("_state", "_seat")

    def __init__(self, state: State, seat: int) -> None:
        super().__init__()
        self._state = state
        self._seat = seat

    def _build(self, key: str) -> Any:
        with memo.SCOPE:
            return _ME[key](self._state, self._seat)

    def __iter__(self) -> Iterator[str]:
        return iter(_ME)

    def __len__(self) -> int:
        return len(_ME)

    def __contains__(self, key: object) -> bool:
        return key in _ME


_PUBLIC = dict(PARTS)


class SeatView(_LazyMapping):
    """``view(state, seat)``, key by key as it is read (see the module doc)."""

    __slots__ = ("_state", "_seat", "_keys")

    def __init__(self, state: State, seat: int | None) -> None:
        super().__init__()
        self._state = state
        self._seat = seat
        self._keys: tuple[str, ...] = tuple(_PUBLIC) + (("me",) if seat is not None else ())

    def _build(self, key: str) -> Any:
        if key == "players":
            return _PlayersView(self._state)
        if key == "areas":
            return _AreasView(self._state)
        if key == "me" and self._seat is not None:
            return _MeView(self._state, self._seat)
        part = _PUBLIC.get(key)
        if part is None:
            raise KeyError(key)
        with memo.SCOPE:
            return part(self._state, self._seat)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys


def seat_view(state: State, seat: int | None) -> SeatView:
    """A read-only, lazily built ``view(state, seat)`` for bots (see the module
    doc). Raises `IllegalAction` for a bad seat, as `view` does."""
    _check_seat(state, seat)
    return SeatView(state, seat)


def to_plain(value: Any) -> Any:
    """A `SeatView` (or any part of it) as the plain dicts and lists `view` gives."""
    if isinstance(value, Mapping):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, _PlayersView):
        return [to_plain(v) for v in value]
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    return value
