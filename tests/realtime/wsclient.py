"""A small websocket test client for ``/ws/games/{id}`` (real sockets, one reader thread).

It records every message received (for the secrets audit), answers server pings,
and lets a test wait for a message matching a predicate.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from app.realtime import patch

Message = dict[str, Any]

#: what a message says about that one push, not about the game (live.js has the same)
PER_MESSAGE = frozenset(
    ("type", "events", "since", "last_seq", "chat_last_id", "committed_at", "resync")
)

_req_ids = itertools.count(1)


def ws_url(base_url: str, game_id: int) -> str:
    return base_url.replace("http://", "ws://", 1) + f"/ws/games/{game_id}"


class GameSocket:
    def __init__(
        self,
        base_url: str,
        game_id: int,
        cookie: str | None = None,
        *,
        last_seq: int | None = None,
        hello: bool = True,
        answer_pings: bool = True,
        read: bool = True,
        headers: dict[str, str] | None = None,
        label: str = "",
        patches: bool = False,
    ) -> None:
        self.label = label
        self.game_id = game_id
        extra = dict(headers or {})
        if cookie:
            extra["Cookie"] = f"ig_session={cookie}"
        self.ws: ClientConnection = connect(
            ws_url(base_url, game_id),
            additional_headers=extra,
            open_timeout=10,
            max_size=None,
            legacy=True,
        )
        self.messages: list[Message] = []
        self.received_at: list[float] = []
        self.raw: list[str] = []
        self.closed: BaseException | None = None
        self.answer_pings = answer_pings
        self._cond = threading.Condition()
        self.last_seq: int | None = last_seq
        self.version: int | None = None  # version of the latest view received
        self.known: int = -1  # the newest version this client knows of (views and acks)
        self.state: Message | None = None  # latest state/sync/update message
        self.patches = patches  # ask for patches, and apply them (app/realtime/patch.py)
        self.patched = 0  # updates that came as patches
        self.unpatchable = 0  # patches against a version this client did not hold
        if hello:
            self.send(self.hello(last_seq))
        self._reader: threading.Thread | None = None
        if read:
            self._reader = threading.Thread(target=self._read, daemon=True, name=f"ws-{label}")
            self._reader.start()

    # -- reading -------------------------------------------------------------------
    def hello(self, last_seq: int | None) -> Message:
        message: Message = {"type": "hello", "last_seq": last_seq}
        if self.patches:
            message["patches"] = True
        return message

    def _read(self) -> None:
        try:
            for text in self.ws:
                assert isinstance(text, str)
                msg = json.loads(text)
                if msg.get("type") == "update" and "patch" in msg:
                    held = self.state
                    if held is None or held.get("version") != msg["base"]:
                        self.unpatchable += 1
                        self.send(self.hello(self.last_seq))
                        continue
                    self.patched += 1
                    fields = {k: v for k, v in held.items() if k not in PER_MESSAGE}
                    rest = {k: v for k, v in msg.items() if k not in ("patch", "base")}
                    msg = {**patch.apply(fields, msg["patch"]), **rest}
                now = time.time()
                if msg.get("type") == "ping" and self.answer_pings:
                    self.send({"type": "pong"})
                with self._cond:
                    self.raw.append(text)
                    self.messages.append(msg)
                    self.received_at.append(now)
                    if msg.get("type") in ("state", "sync", "update"):
                        self.state = msg
                        if isinstance(msg.get("last_seq"), int):
                            self.last_seq = msg["last_seq"]
                        if isinstance(msg.get("version"), int):
                            self.version = msg["version"]
                    if isinstance(msg.get("version"), int):
                        self.known = max(self.known, msg["version"])
                    self._cond.notify_all()
        except ConnectionClosed as exc:
            self.closed = exc
        except Exception as exc:  # pragma: no cover - surfaced through wait_for
            self.closed = exc
        finally:
            with self._cond:
                if self.closed is None:
                    self.closed = EOFError("closed")
                self._cond.notify_all()

    def wait_for(
        self, pred: Callable[[Message], bool], timeout: float = 10.0, start: int = 0
    ) -> Message:
        """The first message from index `start` on that satisfies `pred`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            i = start
            while True:
                while i < len(self.messages):
                    if pred(self.messages[i]):
                        return self.messages[i]
                    i += 1
                if self.closed is not None:
                    raise AssertionError(f"{self.label}: socket closed ({self.closed!r})")
                left = deadline - time.monotonic()
                if left <= 0:
                    kinds = [m.get("type") for m in self.messages[-10:]]
                    raise AssertionError(f"{self.label}: timed out; last messages {kinds}")
                self._cond.wait(left)

    def wait_version(self, version: int, timeout: float = 10.0) -> Message:
        return self.wait_for(
            lambda m: (
                m.get("type") in ("state", "sync", "update")
                and int(m.get("version", -1)) >= version
            ),
            timeout,
        )

    def wait_closed(self, timeout: float = 10.0) -> BaseException:
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.closed is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.label}: still open")
                self._cond.wait(left)
            return self.closed

    def count(self) -> int:
        with self._cond:
            return len(self.messages)

    # -- writing -------------------------------------------------------------------
    def send(self, message: Message) -> None:
        self.ws.send(json.dumps(message))

    def act(
        self,
        action: Message,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
        timeout: float = 15.0,
    ) -> Message:
        """Send an action and return its ack or error."""
        req_id = f"r{next(_req_ids)}"
        start = self.count()
        self.send(
            {
                "type": "action",
                "action": action,
                "expected_version": self.version if expected_version is None else expected_version,
                "idempotency_key": idempotency_key or uuid.uuid4().hex,
                "req_id": req_id,
            }
        )
        return self.wait_for(
            lambda m: m.get("type") in ("ack", "error") and m.get("req_id") == req_id,
            timeout,
            start=start,
        )

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()
        if self._reader is not None:
            self._reader.join(5)
