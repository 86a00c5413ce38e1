"""A fake ESC/POS network printer: a TCP server on loopback that records the byte stream and decodes it.

It decodes what a receipt needs, with tables of its own (not python-escpos's): text in
the code page last chosen with ``ESC t``, bold (``ESC E``), size (``ESC !``, ``GS !``),
alignment (``ESC a``), feeds (``ESC d``), raster images (``GS v 0``), QR codes (``GS ( k``),
the cut (``GS V``) and the drawer kick (``ESC p``); any other byte sequence is recorded as
unknown, so a test sees it. It answers the real-time status queries (``DLE EOT 1/2/4``)
as a printer that is ready, offline, out of paper or has its cover open; :meth:`FakePrinter.go_away`
stops listening (the printer is switched off) and :meth:`FakePrinter.come_back` listens again on the
same port.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from PIL import Image

# ESC t n -> the Python codec of that ESC/POS code page (Epson's numbering)
CODE_PAGES = {
    0: "cp437",
    2: "cp850",
    3: "cp860",
    4: "cp863",
    5: "cp865",
    13: "cp857",
    14: "cp737",
    15: "iso8859_7",
    16: "cp1252",
    17: "cp866",
    18: "cp852",
    19: "cp858",
    39: "iso8859_2",
    40: "iso8859_15",
    45: "cp1250",
    46: "cp1251",
    47: "cp1253",
    48: "cp1254",
}


class Mode(Enum):
    READY = "ready"
    OFFLINE = "offline"
    NO_PAPER = "no paper"
    COVER_OPEN = "cover open"


# The answer to DLE EOT n in each mode (bits 1 and 4 are always set).
ANSWERS = {
    Mode.READY: {1: 0x12, 2: 0x12, 4: 0x12},
    Mode.OFFLINE: {1: 0x1A, 2: 0x12, 4: 0x12},
    Mode.NO_PAPER: {1: 0x1A, 2: 0x32, 4: 0x72},
    Mode.COVER_OPEN: {1: 0x1A, 2: 0x16, 4: 0x12},
}


@dataclass
class Text:
    text: str
    bold: bool = False
    large: bool = False
    align: str = "left"
    code_pages: tuple[int, ...] = ()


@dataclass
class Picture:
    image: Image.Image


@dataclass
class QrCode:
    data: str
    size: int


@dataclass
class Cut:
    pass


@dataclass
class Kick:
    pin: int


@dataclass
class Unknown:
    data: bytes


Element = Text | Picture | QrCode | Cut | Kick | Unknown


@dataclass
class Decoder:
    """Turns the bytes of one connection into elements; ``status`` answers a status query."""

    elements: list[Element] = field(default_factory=list)
    code_page: int = 0
    bold: bool = False
    large: bool = False
    align: str = "left"
    _line: bytearray = field(default_factory=bytearray)
    _pages: list[int] = field(default_factory=list)
    _buffer: bytes = b""
    _qr_size: int = 3
    _qr_data: str = ""

    def feed(self, data: bytes, answer: Callable[[int], None]) -> None:
        self._buffer += data
        while self._buffer:
            used = self._step(self._buffer, answer)
            if used == 0:
                return  # a command cut in two: wait for the rest
            self._buffer = self._buffer[used:]

    def _text(self, raw: bytes) -> None:
        if not self._line:
            self._pages = []
        if self.code_page not in self._pages:
            self._pages.append(self.code_page)
        codec = CODE_PAGES.get(self.code_page)
        if codec is None:
            self.elements.append(Unknown(b"\x1bt" + bytes([self.code_page])))
            codec = "latin-1"
        self._line += raw.decode(codec).encode("utf-8")

    def _end_line(self) -> None:
        self.elements.append(Text(self._line.decode("utf-8"), self.bold, self.large, self.align, tuple(self._pages)))
        self._line = bytearray()
        self._pages = []

    def _step(self, b: bytes, answer: Callable[[int], None]) -> int:
        first = b[0]
        need = {0x1B: 2, 0x1D: 2, 0x10: 3}.get(first, 1)
        if len(b) < need:
            return 0
        if first == 0x0A:
            self._end_line()
            return 1
        if first == 0x10 and b[1] == 0x04:  # DLE EOT n: real-time status
            answer(b[2])
            return 3
        if first == 0x1B:
            command = b[1]
            if command == ord("@"):
                self.code_page, self.bold, self.large, self.align = 0, False, False, "left"
                return 2
            if command in b"tEa!dM-p":
                size = 5 if command == ord("p") else 3
                if len(b) < size:
                    return 0
                n = b[2]
                if command == ord("t"):
                    self.code_page = n
                elif command == ord("E"):
                    self.bold = bool(n & 1)
                elif command == ord("a"):
                    self.align = {0: "left", 1: "center", 2: "right"}.get(n % 48, "left")
                elif command == ord("!"):
                    self.large = bool(n & 0x30)
                    self.bold = bool(n & 0x08)
                elif command == ord("d"):
                    for _ in range(n):
                        self._end_line()
                elif command == ord("p"):
                    self.elements.append(Kick(2 if n in (0, 48) else 5))
                return size
        if first == 0x1D:
            command = b[1]
            if command == ord("!"):
                if len(b) < 3:
                    return 0
                self.large = bool(b[2])
                return 3
            if command == ord("V"):
                if len(b) < 3:
                    return 0
                size = 4 if b[2] in (65, 66) else 3
                if len(b) < size:
                    return 0
                if self._line:
                    self._end_line()
                self.elements.append(Cut())
                return size
            if command == ord("v"):  # GS v 0 m xL xH yL yH data
                if len(b) < 8:
                    return 0
                width_bytes = b[4] + 256 * b[5]
                height = b[6] + 256 * b[7]
                end = 8 + width_bytes * height
                if len(b) < end:
                    return 0
                bits = bytes(~x & 0xFF for x in b[8:end])  # ESC/POS: 1 is black; mode "1": 0 is black
                self.elements.append(Picture(Image.frombytes("1", (width_bytes * 8, height), bits)))
                return end
            if command == ord("("):  # GS ( k pL pH cn fn ...
                if len(b) < 5:
                    return 0
                end = 5 + b[3] + 256 * b[4]
                if len(b) < end:
                    return 0
                if b[2] == ord("k") and b[5] == ord("1"):
                    function = b[6]
                    if function == 67:
                        self._qr_size = b[7]
                    elif function == 80:
                        self._qr_data = b[8:end].decode("ascii")
                    elif function == 81:
                        self.elements.append(QrCode(self._qr_data, self._qr_size))
                    return end
                self.elements.append(Unknown(b[:end]))
                return end
            self.elements.append(Unknown(b[:2]))
            return 2
        if first < 0x20:
            self.elements.append(Unknown(b[:1]))
            return 1
        end = 1
        while end < len(b) and b[end] >= 0x20:
            end += 1
        self._text(b[:end])
        return end


@dataclass
class Connection:
    """What one connection sent, and what it decoded to."""

    raw: bytearray = field(default_factory=bytearray)
    decoder: Decoder = field(default_factory=Decoder)
    queries: list[int] = field(default_factory=list)

    @property
    def elements(self) -> list[Element]:
        return self.decoder.elements


class FakePrinter:
    """A network receipt printer on ``127.0.0.1:port``; ``address`` is what the settings would hold."""

    def __init__(self) -> None:
        self.mode = Mode.READY
        self.connections: list[Connection] = []
        self._lock = threading.RLock()
        self.changed = threading.Condition(self._lock)
        self._listener: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self.port = 0
        self.come_back()

    @property
    def address(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    # --- switching it on and off ------------------------------------------------------------------------------

    def come_back(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(4)
        self.port = listener.getsockname()[1]
        self._listener = listener
        thread = threading.Thread(target=self._serve, args=(listener,), name="fake-printer", daemon=True)
        thread.start()
        self._threads.append(thread)

    def go_away(self) -> None:
        """Stop listening: a connection is refused, as by a printer switched off."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() waiting on it
            listener.close()

    def close(self) -> None:
        self.go_away()
        for thread in self._threads:
            thread.join(timeout=5)

    # --- serving ----------------------------------------------------------------------------------------------

    def _serve(self, listener: socket.socket) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return  # closed: gone away
            with conn:
                record = Connection()
                with self._lock:
                    self.connections.append(record)
                self._talk(conn, record)
            with self.changed:
                self.changed.notify_all()

    def _talk(self, conn: socket.socket, record: Connection) -> None:
        def answer(n: int) -> None:
            record.queries.append(n)
            conn.sendall(bytes([ANSWERS[self.mode].get(n, 0x12)]))

        while True:
            try:
                data = conn.recv(65536)
            except OSError:
                return
            if not data:
                return
            with self.changed:
                record.raw += data
                record.decoder.feed(data, answer)
                self.changed.notify_all()

    def wait_for(self, condition: Callable[[], object], timeout: float = 10.0) -> None:
        """Until ``condition()`` holds, as the printer takes in what it was sent (it runs on a thread of its own)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while not condition():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the fake printer never saw {condition}")
                self.changed.wait(left)

    # --- what was printed -------------------------------------------------------------------------------------

    def elements(self) -> list[Element]:
        with self.changed:
            return [element for connection in self.connections for element in connection.elements]

    def jobs(self) -> list[list[Element]]:
        """What came out of the printer, cut by cut (text before the last cut, kicks included)."""
        out: list[list[Element]] = [[]]
        for element in self.elements():
            out[-1].append(element)
            if isinstance(element, Cut):
                out.append([])
        return [job for job in out if any(isinstance(e, Cut) for e in job)]

    def kicks(self) -> list[Kick]:
        return [e for e in self.elements() if isinstance(e, Kick)]

    def unknown(self) -> list[Unknown]:
        return [e for e in self.elements() if isinstance(e, Unknown)]


def text_of(job: list[Element]) -> str:
    return "\n".join(e.text for e in job if isinstance(e, Text))
