"""This process's side of presence (app/services/presence.py): how many sockets each
seated person holds open on each game here. Her first socket here registers her
(``arrived``: she is back, her seat is hers again if a stand-in she did not ask for
plays it), her last one marks her row left (``departed``), and every
``presence.REFRESH_S`` one statement tells the database this process still holds the
rest. Transitions only: a second tab, or a socket that reconnects while another stays
open, costs nothing. A process that stops (``drain``) leaves its rows open to expire.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import Counter
from collections.abc import Callable

from sqlalchemy.orm import Session, sessionmaker

from app.services import presence

log = logging.getLogger("app.realtime.presence")


class Tracker:
    """Open sockets per (game, person) in this process, and the refresh task."""

    def __init__(self, factory: sessionmaker[Session], origin: str = "") -> None:
        self.factory = factory
        #: names this process's rows (the NOTIFY origin where there is one)
        self.origin = origin or secrets.token_hex(6)
        self.open: Counter[tuple[int, int]] = Counter()
        self._task: asyncio.Task[None] | None = None
        #: serialises one person's transitions, so a close and a reopen land in order
        self._locks: dict[tuple[int, int], asyncio.Lock] = {}
        #: the process is stopping (``drain``): closing sockets mark nobody left
        self.draining = False

    async def opened(self, game_id: int, user_id: int) -> None:
        """A socket of `user_id`'s seat on `game_id` opened here."""
        key = (game_id, user_id)
        self.open[key] += 1
        if self.open[key] == 1:
            await self._run(key, presence.arrived, game_id, user_id, self.origin)

    async def closed(self, game_id: int, user_id: int) -> None:
        """That socket closed."""
        key = (game_id, user_id)
        self.open[key] -= 1
        if self.open[key] <= 0:
            del self.open[key]
            if not self.draining:
                await self._run(key, presence.departed, game_id, user_id, self.origin)

    async def _run(self, key: tuple[int, int], change: Callable[..., None], *args: object) -> None:
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            try:
                await asyncio.to_thread(self._session, change, *args)
            except Exception:  # presence must never break a socket
                log.exception("presence %s of %s failed", change.__name__, key)
        if key not in self.open and not lock.locked():
            self._locks.pop(key, None)

    def _session(self, change: Callable[..., None], *args: object) -> None:
        with self.factory() as db:
            change(db, *args)

    async def drain(self) -> None:
        """The process is stopping (a restart): its sockets will close, but their people
        have not left. Their rows are refreshed once and left open, so each stays
        present for ``presence.STALE_S`` (45 s) after the restart: her page reconnects
        (to another instance, or to this one restarted) and is registered there long
        before, and nobody is shown "gone" or handed to a stand-in for a restart. Whoever
        does not come back is gone from the moment of the restart (``presence.absent``)."""
        self.draining = True
        if self._task is not None:
            self._task.cancel()
        if not self.open:
            return
        try:
            await asyncio.to_thread(self._session, presence.refresh, self.origin)
        except Exception:
            log.exception("presence refresh at stop failed")

    # -- the refresh ---------------------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._refresh(), name="ig-presence")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(presence.REFRESH_S)
            if not self.open:
                continue
            try:
                await asyncio.to_thread(self._session, presence.refresh, self.origin)
            except Exception:
                log.exception("presence refresh failed")
