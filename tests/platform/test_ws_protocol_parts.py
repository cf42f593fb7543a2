"""The lighter parts serve's websocket protocol runs on (app/web/ws_protocol.py) do
what uvicorn's ``asyncio.Queue`` and ``asyncio.Event`` did for it: messages in order,
none lost to a reader that gave up waiting, writers held while the transport is paused.
The protocol itself is exercised over real sockets by tests/realtime (every server the
tests start is ``imperial-glory serve``)."""

from __future__ import annotations

import asyncio
import contextlib

from app.web.serve import WS_PROTOCOLS
from app.web.ws_protocol import Gate, Inbox, LeanWebSocketProtocol


def test_the_inbox_hands_messages_over_in_order_and_loses_none() -> None:
    async def scenario() -> list[object]:
        inbox = Inbox()
        got: list[object] = []
        waiting = asyncio.create_task(inbox.get())  # a reader waiting on an empty inbox
        await asyncio.sleep(0)
        inbox.put_nowait(1)
        inbox.put_nowait(2)
        got.append(await asyncio.wait_for(waiting, 1))
        assert not inbox.empty() and inbox.qsize() == 1
        got.append(await inbox.get())
        assert inbox.empty()
        # A reader cancelled while it waits (the socket's session ended) takes nothing.
        gone = asyncio.create_task(inbox.get())
        await asyncio.sleep(0)
        gone.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await gone
        inbox.put_nowait(3)
        got.append(await asyncio.wait_for(inbox.get(), 1))
        return got

    assert asyncio.run(scenario()) == [1, 2, 3]


def test_the_gate_holds_writers_while_closed_and_lets_them_through_when_set() -> None:
    async def scenario() -> None:
        gate = Gate()
        gate.set()
        assert gate.is_set() and await gate.wait()
        gate.clear()  # the transport paused writing
        writers = [asyncio.create_task(gate.wait()) for _ in range(2)]
        await asyncio.sleep(0.01)
        assert not any(w.done() for w in writers)
        gate.set()  # resumed
        assert await asyncio.wait_for(asyncio.gather(*writers), 1) == [True, True]

    asyncio.run(scenario())


def test_serve_runs_the_lighter_protocol_for_the_default_setting() -> None:
    module, name = WS_PROTOCOLS["websockets-sansio"].split(":")
    assert getattr(__import__(module, fromlist=[name]), name) is LeanWebSocketProtocol


def test_a_socket_with_nothing_queued_is_written_at_once_and_in_order() -> None:
    """The hub writes an update straight onto a socket's transport when nothing is
    queued or in flight (``Connection.write``: the protocol's ``write_now``), and
    through the writer task otherwise: while the transport is paused the updates wait
    in the queue, and none written at once overtakes them once it resumes."""
    from app.realtime.hub import Connection

    async def scenario() -> tuple[list[str], list[str]]:
        wire: list[str] = []  # what reached the transport, in order
        direct: list[str] = []
        gate = Gate()
        gate.set()

        def write_now(text: str) -> bool:
            if not gate.is_set():
                return False  # paused: the ordinary send would wait
            direct.append(text)
            wire.append(text)
            return True

        class Socket:
            async def send_text(self, text: str) -> None:
                await gate.wait()
                wire.append(text)

        conn = Connection(1, 7, queue_size=16)
        conn.write = write_now
        writer = asyncio.create_task(conn.pump(Socket()))
        assert conn.offer("1") and conn.offer("2")  # written at once
        gate.clear()  # the client stopped reading: the transport paused
        for text in ("3", "4", "5"):
            assert conn.offer(text)
        await asyncio.sleep(0.01)
        assert conn.sending  # "3" is in flight, waiting for the transport
        gate.set()  # resumed: "6" must not overtake what waits
        assert conn.offer("6")
        await asyncio.sleep(0.01)
        assert conn.offer("7")  # all sent: written at once again
        conn.finish(1000, "done")
        await asyncio.wait_for(writer, 1)
        return wire, direct

    wire, direct = asyncio.run(scenario())
    assert wire == ["1", "2", "3", "4", "5", "6", "7"]
    assert direct == ["1", "2", "7"]
