"""Byte transports under a Connection: a websocket or Chromium's --remote-debugging-pipe.

A transport only moves whole JSON messages; it never decodes them. The connection
hands it two callbacks: one per received message and one when the peer is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping
from typing import Protocol

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosedOK

from ..errors import ConnectionClosedError

OnMessage = Callable[[bytes | str], None]
OnClose = Callable[[BaseException | None], None]


class Transport(Protocol):
    """What a Connection needs from the wire."""

    def start(self, on_message: OnMessage, on_close: OnClose) -> None: ...

    async def send(self, data: bytes) -> None: ...

    async def close(self) -> None: ...


class WebSocketTransport:
    """CDP over a websocket: no size limit (DOMSnapshot payloads reach tens of MB), no compression."""

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws
        self._reader: asyncio.Task[None] | None = None

    @classmethod
    async def connect(
        cls, url: str, timeout: float = 10.0, headers: Mapping[str, str] | None = None
    ) -> WebSocketTransport:
        """`headers`: extra HTTP headers of the websocket handshake (a hosted browser's API key)."""
        ws = await asyncio.wait_for(
            ws_connect(
                url, max_size=None, compression=None, ping_interval=None, open_timeout=timeout,
                additional_headers=dict(headers) if headers else None,
            ),
            timeout,
        )  # fmt: skip
        return cls(ws)

    def start(self, on_message: OnMessage, on_close: OnClose) -> None:
        self._reader = asyncio.get_running_loop().create_task(self._read(on_message, on_close))

    async def _read(self, on_message: OnMessage, on_close: OnClose) -> None:
        error: BaseException | None = None
        try:
            while True:
                # Bytes as received: orjson decodes UTF-8 itself, so text frames skip a str round trip.
                on_message(await self._ws.recv(decode=False))
        except ConnectionClosedOK:
            pass
        except Exception as exc:
            error = exc
        on_close(error)

    async def send(self, data: bytes) -> None:
        try:
            # Text frame without a decode: Chromium expects JSON commands as text frames.
            await self._ws.send(data, text=True)
        except Exception as exc:
            raise ConnectionClosedError(f"websocket closed: {exc}") from exc

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._ws.close(), 2.0)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader


class PipeTransport:
    """CDP over --remote-debugging-pipe: fd 3 is read by Chromium, fd 4 written by it; messages end in NUL."""

    def __init__(self, write_fd: int, read_fd: int) -> None:
        self._write_fd = write_fd
        self._read_fd = read_fd
        self._writer: asyncio.WriteTransport | None = None
        self._read_transport: asyncio.ReadTransport | None = None
        self._closed = False

    def start(self, on_message: OnMessage, on_close: OnClose) -> None:
        loop = asyncio.get_running_loop()
        self._start_task = loop.create_task(self._open(on_message, on_close))

    async def _open(self, on_message: OnMessage, on_close: OnClose) -> None:
        loop = asyncio.get_running_loop()
        transport = self

        class _Reader(asyncio.Protocol):
            def __init__(self) -> None:
                self._buffer = bytearray()

            def data_received(self, data: bytes) -> None:
                end = data.find(b"\0")  # only the new chunk can hold the end of a message
                if end < 0:
                    self._buffer += data
                    return
                self._buffer += data
                end += len(self._buffer) - len(data)
                while end >= 0:
                    message = bytes(self._buffer[:end])
                    del self._buffer[: end + 1]
                    on_message(message)
                    end = self._buffer.find(b"\0")

            def eof_received(self) -> bool:
                return False

            def connection_lost(self, exc: Exception | None) -> None:
                transport._closed = True
                on_close(exc)

        read_file = os.fdopen(self._read_fd, "rb", buffering=0)
        write_file = os.fdopen(self._write_fd, "wb", buffering=0)
        self._read_transport, _ = await loop.connect_read_pipe(_Reader, read_file)
        self._writer, _ = await loop.connect_write_pipe(asyncio.BaseProtocol, write_file)

    async def send(self, data: bytes) -> None:
        if self._writer is None:
            await self._start_task
        if self._closed or self._writer is None or self._writer.is_closing():
            raise ConnectionClosedError("pipe to the browser is closed")
        self._writer.write(data + b"\0")

    async def close(self) -> None:
        self._closed = True
        for t in (self._writer, self._read_transport):
            if t is not None:
                with contextlib.suppress(Exception):
                    t.close()
