"""An ESC/POS receipt printer (network port 9100, USB or serial) through python-escpos, and its cash drawer.

Text is the printer's own: each line goes out in a code page the printer has
(python-escpos switches with ``ESC t`` as it needs), and a line with a character
no code page of the printer's profile holds (a Chinese name on a Western printer)
is printed as an image of that line instead of question marks. Every slip ends
with a cut; a receipt carries a QR code of its transaction id drawn by the printer.

Before anything is sent the printer is asked how it is (``DLE EOT`` 1, 2 and 4): an
unreachable, offline or out-of-paper printer, or one with its cover open, is a
:class:`PrinterNotReady` with one sentence, and nothing was sent. Each call opens
the connection and closes it again: a network printer serves one connection at a time.

python-escpos and Pillow load when a printer is first used, not with this module: the
window's start-up builds the counter without them.
"""

from __future__ import annotations

import copy
import logging
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs, urlsplit

from pos_terminal import assets
from pos_terminal.domain.slip import Block, Feed, Line, Picture, Qr, Rule, Slip
from pos_terminal.errors import ConfigError, UserError

if TYPE_CHECKING:
    from escpos.escpos import Escpos
    from PIL import Image

log = logging.getLogger(__name__)

DEFAULT_PORT = 9100
DOTS_PER_COLUMN = 12  # font A is 12 dots wide, 24 high
LINE_DOTS = 24

# Real-time status (DLE EOT n) and the bits that matter in each answer.
STATUS_PRINTER = b"\x10\x04\x01"
STATUS_OFFLINE_CAUSE = b"\x10\x04\x02"
STATUS_PAPER = b"\x10\x04\x04"
OFFLINE_BIT = 0x08  # printer status: offline
COVER_OPEN_BIT = 0x04  # offline cause: the cover is open
PAPER_END_BITS = 0x60  # paper sensor: roll end
INIT = b"\x1b\x40"  # ESC @: forget what the last job set (code page, size, alignment)


class PrinterState(StrEnum):
    READY = "ready"
    UNREACHABLE = "unreachable"
    OFFLINE = "offline"
    NO_PAPER = "no paper"
    COVER_OPEN = "cover open"


class PrinterNotReady(UserError):
    """The printer cannot print now; ``state`` says why. Nothing of the job was sent."""

    hint = "The receipt stays in the queue and prints when the printer is back, unless you cancel it."

    def __init__(self, state: PrinterState, where: str) -> None:
        self.state = state
        sentences = {
            PrinterState.UNREACHABLE: f"The receipt printer {where} cannot be reached.",
            PrinterState.OFFLINE: "The receipt printer is offline.",
            PrinterState.NO_PAPER: "The receipt printer is out of paper.",
            PrinterState.COVER_OPEN: "The receipt printer's cover is open.",
        }
        super().__init__(sentences.get(state, "The receipt printer is not ready."))


class DrawerNotOpened(UserError):
    hint = "Open the drawer with its key, and check the printer it is plugged into."


@dataclass(frozen=True)
class PrinterAddress:
    """Where the printer is: ``tcp://HOST[:PORT]`` (or just ``HOST``), ``usb://VENDOR:PRODUCT`` (hex ids),
    ``serial:///dev/ttyUSB0?baudrate=19200`` (or ``serial://COM3``)."""

    kind: Literal["network", "usb", "serial"]
    host: str = ""
    port: int = DEFAULT_PORT
    vendor: int = 0
    product: int = 0
    device: str = ""
    baudrate: int = 9600

    @classmethod
    def parse(cls, text: str) -> PrinterAddress:
        text = text.strip()
        bad = ConfigError(
            f"The receipt printer address “{text}” is not one the terminal understands.",
            hint="Give it like tcp://192.168.1.50:9100, usb://04b8:0202 or serial:///dev/ttyUSB0?baudrate=19200.",
        )
        if "://" not in text:
            text = f"tcp://{text}"
        try:
            parts = urlsplit(text)
            if parts.scheme == "tcp" and parts.hostname:
                return cls("network", host=parts.hostname, port=parts.port or DEFAULT_PORT)
            if parts.scheme == "usb":
                vendor, product = parts.netloc.split(":")
                return cls("usb", vendor=int(vendor, 16), product=int(product, 16))
            if parts.scheme == "serial" and (parts.netloc or parts.path):
                baud = parse_qs(parts.query).get("baudrate", ["9600"])[0]
                return cls("serial", device=parts.netloc + parts.path, baudrate=int(baud))
        except ValueError:
            raise bad from None
        raise bad

    def __str__(self) -> str:
        if self.kind == "network":
            return f"at {self.host}:{self.port}"
        if self.kind == "usb":
            return f"on USB {self.vendor:04x}:{self.product:04x}"
        return f"on {self.device}"


def check_profile(name: str) -> str:
    """``name`` when python-escpos knows that printer profile; ConfigError with one sentence otherwise."""
    from escpos.capabilities import NotSupported, get_profile

    try:
        get_profile(name or "default")
    except (NotSupported, KeyError):  # 3.1 raises KeyError for a name it has no entry for
        raise ConfigError(
            f"The printer profile “{name}” is unknown.", hint="Use “default”, or a model such as TM-T20II or TM-T88V."
        ) from None
    return name


_LIBRARY_SUFFIX = {"win32": ".dll", "darwin": ".dylib"}


def bundled_usb_backend() -> Any:
    """pyusb's libusb 1.0 backend on the libusb the PyInstaller bundle carries (``sys._MEIPASS``); None from
    source, or when the bundle has none, and pyusb finds the system's as it always does.

    PyInstaller's runtime hook for pyusb does this for every backend when the bundle starts, which imports them
    all (about 12 ms before the first screen); the bundle leaves that hook out (packaging/pos-terminal.spec), and
    this does it when a USB printer is opened.
    """
    folder = getattr(sys, "_MEIPASS", None)
    if folder is None:
        return None
    import usb.backend.libusb1

    suffix = _LIBRARY_SUFFIX.get(sys.platform, ".so")

    def in_bundle(name: str) -> str | None:
        found = sorted(Path(folder).glob(f"*{name}*{suffix}*"))
        return str(found[0]) if found else None

    return usb.backend.libusb1.get_backend(find_library=in_bundle)


class EscPosPrinter:
    """One receipt printer. ``open_device`` makes the python-escpos device (the address decides by default)."""

    def __init__(
        self,
        address: PrinterAddress,
        *,
        profile: str = "default",
        timeout: float = 5.0,
        open_device: Callable[[], Escpos] | None = None,
    ) -> None:
        self.address = address
        self.profile = check_profile(profile) or "default"
        self.timeout = timeout
        self._open_device = open_device or self._device

    def _device(self) -> Escpos:
        from escpos import printer as escpos_printer

        a = self.address
        if a.kind == "network":
            return escpos_printer.Network(a.host, a.port, timeout=self.timeout, profile=self.profile)
        if a.kind == "usb":
            found = {"backend": backend} if (backend := bundled_usb_backend()) is not None else {}
            return escpos_printer.Usb(
                a.vendor, a.product, usb_args=found, timeout=int(self.timeout * 1000), profile=self.profile
            )
        return escpos_printer.Serial(a.device, baudrate=a.baudrate, timeout=self.timeout, profile=self.profile)

    # --- the printer's columns --------------------------------------------------------------------------------

    @property
    def columns(self) -> int:
        return _columns(self.profile)

    # --- talking to it ----------------------------------------------------------------------------------------

    def _connect(self) -> Escpos:
        from escpos.exceptions import Error as EscposError

        device = self._open_device()
        _own_width(device, self.columns * DOTS_PER_COLUMN)
        try:
            device.open()
        except (EscposError, OSError, ValueError) as exc:
            log.info("printer %s: %s", self.address, exc)
            raise PrinterNotReady(PrinterState.UNREACHABLE, str(self.address)) from None
        return device

    def state(self) -> PrinterState:
        """Ask the printer how it is (a connection of its own)."""
        try:
            device = self._connect()
        except PrinterNotReady as exc:
            return exc.state
        try:
            return self._state(device)
        finally:
            _close(device)

    def _state(self, device: Escpos) -> PrinterState:
        from escpos.exceptions import Error as EscposError

        try:
            printer = _answer(device, STATUS_PRINTER)
            cause = _answer(device, STATUS_OFFLINE_CAUSE)
            paper = _answer(device, STATUS_PAPER)
        except (EscposError, OSError, NotImplementedError) as exc:
            log.info("printer %s does not answer its status: %s", self.address, exc)
            return PrinterState.UNREACHABLE
        if paper & PAPER_END_BITS == PAPER_END_BITS:
            return PrinterState.NO_PAPER
        if cause & COVER_OPEN_BIT:
            return PrinterState.COVER_OPEN
        if printer & OFFLINE_BIT:
            return PrinterState.OFFLINE
        return PrinterState.READY

    def _ready(self) -> Escpos:
        """A connection to a printer that said it is ready; PrinterNotReady (and closed) otherwise."""
        device = self._connect()
        state = self._state(device)
        if state is not PrinterState.READY:
            _close(device)
            raise PrinterNotReady(state, str(self.address))
        return device

    def print_slip(self, slip: Slip) -> None:
        """Print ``slip`` and cut; PrinterNotReady (nothing sent) when the printer cannot print now."""
        from escpos.exceptions import Error as EscposError

        device = self._ready()
        try:
            device._raw(INIT)
            device.magic.encoding = None  # ESC @ put the printer back on its first code page
            for block in slip.blocks:
                self._block(device, block)
            device.cut()
        except (EscposError, OSError) as exc:
            log.warning("printer %s failed during %s: %s", self.address, slip.title, exc)
            raise PrinterNotReady(PrinterState.UNREACHABLE, str(self.address)) from None
        finally:
            _close(device)

    def kick_drawer(self) -> None:
        """Open the cash drawer plugged into the printer (pin 2); DrawerNotOpened when the printer is away.

        A printer out of paper still opens its drawer: only a printer that cannot be reached cannot.
        """
        from escpos.exceptions import Error as EscposError

        try:
            device = self._connect()
        except PrinterNotReady as exc:
            raise DrawerNotOpened(
                f"The cash drawer did not open: {exc.sentence[0].lower()}{exc.sentence[1:]}"
            ) from None
        try:
            device.cashdraw(2)
        except (EscposError, OSError) as exc:
            log.warning("printer %s: drawer kick failed: %s", self.address, exc)
            raise DrawerNotOpened("The cash drawer did not open: the printer stopped answering.") from None
        finally:
            _close(device)

    # --- slips ------------------------------------------------------------------------------------------------

    def _block(self, device: Escpos, block: Block) -> None:
        columns = self.columns
        if isinstance(block, Picture):
            device.set(align="left")
            device.image(slip_picture(block.png, _paper_dots(device, columns)), impl="bitImageRaster", center=True)
        elif isinstance(block, Rule):
            device.text("-" * columns + "\n")
        elif isinstance(block, Feed):
            device.text("\n" * block.lines)
        elif isinstance(block, Qr):
            device.set(align="center")
            device.qr(block.data, size=6, native=True)
            device.text("\n")
            device.set(align="left")
        else:
            self._line(device, block)

    def _line(self, device: Escpos, line: Line) -> None:
        width = columns = self.columns // 2 if line.large else self.columns
        rows = lay_out(line, columns)
        if all(encodable(device, row) for row in rows):
            device.set(
                align="center" if line.center else "left",
                bold=line.bold,
                double_width=line.large,
                double_height=line.large,
                normal_textsize=not line.large,
            )
            for row in rows:
                device.text(row + "\n")
            device.set(align="left", bold=False, normal_textsize=True)
            return
        # No code page of this printer has every character: the line goes as a picture of itself.
        device.set(align="left")
        scale = 2 if line.large else 1
        for row in rows:
            picture = line_image(row, width * DOTS_PER_COLUMN * scale, line, scale)
            device.image(picture, impl="bitImageRaster")


def _own_width(device: Escpos, pixels: int) -> None:
    """Give a profile that does not say how wide the paper is the width the slips are laid out in: python-escpos
    3.1 prints a notice to standard output before each picture otherwise, into a command's --json output. The
    device gets a copy of the profile's data; the profile shared by every device stays as it is."""
    data = device.profile.profile_data
    if data.get("media", {}).get("width", {}).get("pixels") == "Unknown":
        own = copy.deepcopy(data)
        own["media"]["width"]["pixels"] = pixels
        device.profile.profile_data = own


def _paper_dots(device: Escpos, columns: int) -> int:
    """How many dots wide the printer prints: its profile's width, or the width the slips are laid out in."""
    pixels = device.profile.profile_data.get("media", {}).get("width", {}).get("pixels")
    return pixels if isinstance(pixels, int) and pixels > 0 else columns * DOTS_PER_COLUMN


def slip_picture(png: bytes, width: int) -> Image.Image:
    """A slip's picture (a PNG) as the printer takes it: grey, at most ``width`` dots wide (made smaller when the
    paper is narrower: a 58 mm roll); python-escpos dithers it to black dots and centres it on the paper."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png), formats=("PNG",)) as source:
        picture = source.convert("L")
    if picture.width > width:
        height = max(1, round(picture.height * width / picture.width))
        picture = picture.resize((width, height), Image.Resampling.LANCZOS)
    return picture


def lay_out(line: Line, columns: int) -> list[str]:
    """``line`` in rows of ``columns`` characters: the left part wrapped, the right part at the end of the last."""
    left, right = line.left, line.right
    if line.center and not right:
        return textwrap.wrap(left, columns) or [""]  # the printer centres them
    rows = textwrap.wrap(left, columns) or [""]
    last = rows[-1]
    if right and len(last) + 1 + len(right) <= columns:
        rows[-1] = last + " " * (columns - len(last) - len(right)) + right
    elif right:
        rows.append(right.rjust(columns))
    return rows


def encodable(device: Escpos, text: str) -> bool:
    """Whether every character of ``text`` is in a code page of the printer's profile."""
    encoder = device.magic.encoder
    return all(ord(ch) < 128 or encoder.find_suitable_encoding(ch) is not None for ch in text)


@cache
def _columns(profile: str) -> int:
    from escpos.capabilities import NotSupported, get_profile

    try:
        return int(get_profile(profile or "default").get_columns("a"))
    except (NotSupported, KeyError, TypeError, ValueError):
        return 42


def _answer(device: Escpos, query: bytes) -> int:
    answer = device.query_status(query)
    if not answer:
        raise OSError("no answer to a status query")
    return int(answer[-1])


def _close(device: Escpos) -> None:
    from escpos.exceptions import Error as EscposError

    try:
        device.close()
    except (EscposError, OSError) as exc:
        log.info("closing the printer: %s", exc)


# --- a line as a picture ----------------------------------------------------------------------------------------

_FONT_FILES = (assets.FONT_SANS, *assets.FALLBACK_FONTS)
_BOLD_FILES = (assets.FONT_SANS_BOLD, *assets.FALLBACK_FONTS)


@cache
def _fonts(bold: bool, size: int) -> tuple[Any, ...]:
    from PIL import ImageFont

    return tuple(
        ImageFont.truetype(str(assets.path("fonts", name)), size) for name in (_BOLD_FILES if bold else _FONT_FILES)
    )


@cache
def _has_glyph(font: Any, ch: str) -> bool:
    """Whether ``font`` draws ``ch`` with a glyph of its own (not the empty box every font has for a missing one)."""
    missing = font.getmask("\U0010fffd")
    mask = font.getmask(ch)
    return bool(mask.size != missing.size or bytes(mask) != bytes(missing))


def _font_for(fonts: tuple[Any, ...], ch: str) -> Any:
    if ch.isascii() or ch.isspace():
        return fonts[0]
    return next((font for font in fonts if _has_glyph(font, ch)), fonts[0])


def line_image(row: str, width: int, line: Line, scale: int = 1) -> Image.Image:
    """One printed row as a black-on-white picture ``width`` dots wide: the characters at their columns (the
    right part at the right edge, centred text in the middle), each in the first bundled font that has it."""
    from PIL import Image, ImageDraw

    height = LINE_DOTS * scale
    size = 20 * scale
    fonts = _fonts(line.bold, size)
    picture = Image.new("1", (width, height), 1)
    draw = ImageDraw.Draw(picture)

    def measure(text: str) -> float:
        return float(sum(_font_for(fonts, ch).getlength(ch) for ch in text))

    def put(text: str, x: float) -> None:
        for ch in text:
            font = _font_for(fonts, ch)
            draw.text((x, height - 4 * scale), ch, font=font, fill=0, anchor="ls")
            x += font.getlength(ch)

    if line.center:
        put(row, max(0.0, (width - measure(row)) / 2))
    elif line.right and row.endswith(line.right):
        left = row[: -len(line.right)].rstrip()
        put(left, 0)
        put(line.right, width - measure(line.right))
    else:
        put(row, 0)
    return picture
