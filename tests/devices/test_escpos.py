"""The ESC/POS printer against a fake one on loopback: text in the printer's code pages, a picture where none has
the glyph, the QR code of the transaction, the cut, the drawer kick, and the status answers."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageOps

from pos_terminal.devices.escpos import EscPosPrinter, PrinterAddress, PrinterNotReady, PrinterState
from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import ModifierRow, Receipt, ReceiptLine
from pos_terminal.domain.slip import Line, Slip, SlipKind, receipt_slip
from pos_terminal.errors import ConfigError
from pos_terminal.reports.logo import store_logo
from tests.devices.fake_printer import Cut, FakePrinter, Kick, Mode, Picture, QrCode, Text, text_of
from tests.devices.paper import render


@pytest.fixture
def fake() -> Iterator[FakePrinter]:
    printer = FakePrinter()
    yield printer
    printer.close()


def printer_at(fake: FakePrinter, profile: str = "TM-T20II") -> EscPosPrinter:
    return EscPosPrinter(PrinterAddress.parse(fake.address), profile=profile, timeout=5)


def a_receipt(customer: str = "Zoë Ångström") -> Receipt:
    return Receipt(
        transaction_id="txn-7f3a9c21",
        state=TxState.COMPLETE,
        terminal_id="LANE-1",
        when=datetime(2026, 11, 24, 9, 41, tzinfo=UTC),
        customer=customer,
        member_no="M-100777",
        items=(
            ReceiptLine("Flat white", 2, 960),
            ReceiptLine("Crème brûlée", 1, 1200),
            ReceiptLine("Пирожок", 1, 450),
            ReceiptLine("抹茶 latte", 1, 580),
        ),
        discounts=(ModifierRow("Discount 10%", -319),),
        item_total=3190,
        discount_total=-319,
        total=2871,
        tax=261,
        payments=(ModifierRow("cash", 1000),),
        charge_amount=1871,
        modifiers=(ModifierRow("Loyalty", -100),),
        charged_amount=1771,
        tip_amount=0,
        region="sandbox",
        production=False,
        ref_id="pos-2b1e",
        merchant="Harbour Café",
        printed_at=datetime(2026, 11, 24, 9, 42, tzinfo=UTC),
    )


def test_a_receipt_is_the_printers_own_text_with_a_picture_where_no_code_page_has_the_name_a_qr_and_a_cut(
    fake: FakePrinter, tmp_path: Path
) -> None:
    money = MoneyFormat("en_AU", "AUD")
    slip = receipt_slip(a_receipt(), money.format, UTC)
    printer_at(fake).print_slip(slip)
    fake.wait_for(fake.jobs)

    jobs = fake.jobs()
    assert len(jobs) == 1 and isinstance(jobs[0][-1], Cut), "one job, ending in a cut"
    assert not fake.unknown(), fake.unknown()
    job = jobs[0]
    text = text_of(job)
    lines = [e for e in job if isinstance(e, Text)]
    assert lines[0].text == "Harbour Café" and lines[0].large and lines[0].align == "center"
    assert "Zoë Ångström" in text and "Crème brûlée" in text, "accented names in a code page the printer has"
    assert "Пирожок" in text, "a Cyrillic name in a Cyrillic code page"
    named = {line.text.split("  ")[0].strip(): line for line in lines}
    assert named["Пирожок"].code_pages != named["Crème brûlée"].code_pages, "the code page was switched"
    assert "2 x Flat white" in text and "$9.60" in text and "$28.71" in text
    total = next(line for line in lines if line.text.startswith("TOTAL"))
    assert total.bold and total.text.endswith("$28.71") and len(total.text) == 48, "the amount at the right edge"
    assert "抹茶" not in text, "no code page of the profile has these characters"
    pictures = [e for e in job if isinstance(e, Picture)]
    assert len(pictures) == 1 and pictures[0].image.width == 576
    ink = pictures[0].image.convert("L").histogram()[0]
    assert ink > 100, "the picture holds the line's glyphs, not an empty strip"
    qr = [e for e in job if isinstance(e, QrCode)]
    assert [q.data for q in qr] == ["txn-7f3a9c21"]
    assert not fake.kicks(), "a receipt alone opens no drawer"

    folder = Path(os.environ.get("POS_TERMINAL_SCREENSHOTS") or tmp_path)
    picture = render(job, folder / "receipt-escpos.png")
    assert picture.stat().st_size > 0


def test_a_line_the_default_profile_cannot_hold_is_a_picture_of_its_own_width(
    fake: FakePrinter, capfd: pytest.CaptureFixture[str]
) -> None:
    slip = Slip(SlipKind.RECEIPT, "t", (Line("雷 李", "$1.00"), Line("Plain", "$2.00")))
    printer = printer_at(fake, profile="default")
    printer.print_slip(slip)
    fake.wait_for(fake.jobs)
    # python-escpos 3.1 prints a notice to standard output for a profile of unknown width; a command's --json
    # output shares that stream
    assert capfd.readouterr().out == ""
    job = fake.jobs()[0]
    assert isinstance(job[0], Picture) and job[0].image.width == printer.columns * 12
    assert any(isinstance(e, Text) and e.text.startswith("Plain") and e.text.endswith("$2.00") for e in job)


def test_an_unknown_printer_profile_is_one_sentence() -> None:
    from pos_terminal.devices.escpos import check_profile
    from pos_terminal.errors import ConfigError

    with pytest.raises(ConfigError, match="The printer profile “NoSuchModel” is unknown"):
        check_profile("NoSuchModel")  # python-escpos 3.1 raises KeyError for it, not NotSupported
    assert check_profile("TM-T88V") == "TM-T88V"


@pytest.mark.parametrize(
    ("mode", "state", "sentence"),
    [
        (Mode.OFFLINE, PrinterState.OFFLINE, "The receipt printer is offline."),
        (Mode.NO_PAPER, PrinterState.NO_PAPER, "The receipt printer is out of paper."),
        (Mode.COVER_OPEN, PrinterState.COVER_OPEN, "The receipt printer's cover is open."),
    ],
)
def test_a_printer_that_cannot_print_says_why_in_one_sentence_and_gets_nothing(
    fake: FakePrinter, mode: Mode, state: PrinterState, sentence: str
) -> None:
    fake.mode = mode
    printer = printer_at(fake)
    assert printer.state() is state
    with pytest.raises(PrinterNotReady) as raised:
        printer.print_slip(receipt_slip(a_receipt(), str))
    assert raised.value.state is state and raised.value.sentence == sentence
    assert not [e for e in fake.elements() if not isinstance(e, Text) or e.text], "nothing printed"
    assert all(c.queries == [1, 2, 4] for c in fake.connections), "only the status was asked"


def test_a_printer_switched_off_cannot_be_reached(fake: FakePrinter) -> None:
    printer = printer_at(fake)
    fake.go_away()
    assert printer.state() is PrinterState.UNREACHABLE
    with pytest.raises(PrinterNotReady, match=f"The receipt printer at 127.0.0.1:{fake.port} cannot be reached"):
        printer.print_slip(receipt_slip(a_receipt(), str))
    fake.come_back()
    assert printer.state() is PrinterState.READY


def test_the_drawer_is_kicked_on_pin_2_even_without_paper(fake: FakePrinter) -> None:
    fake.mode = Mode.NO_PAPER
    printer_at(fake).kick_drawer()
    fake.wait_for(fake.kicks)
    assert fake.kicks() == [Kick(2)]
    assert not fake.jobs()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("192.168.1.50", PrinterAddress("network", host="192.168.1.50", port=9100)),
        ("tcp://printer.local:9101", PrinterAddress("network", host="printer.local", port=9101)),
        ("usb://04b8:0202", PrinterAddress("usb", vendor=0x04B8, product=0x0202)),
        ("serial:///dev/ttyUSB0?baudrate=19200", PrinterAddress("serial", device="/dev/ttyUSB0", baudrate=19200)),
    ],
)
def test_printer_addresses(text: str, expected: PrinterAddress) -> None:
    assert PrinterAddress.parse(text) == expected


@pytest.mark.parametrize("text", ["usb://zz:01", "ftp://host", "serial://", "tcp://:9100", "host:port"])
def test_an_address_the_terminal_cannot_use_is_one_sentence(text: str) -> None:
    with pytest.raises(ConfigError, match="is not one the terminal understands"):
        PrinterAddress.parse(text)


def _system_libusb() -> Path | None:
    import ctypes.util

    name = ctypes.util.find_library("usb-1.0")
    found = [
        p for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib") for p in Path(d).glob(name or "-")
    ]
    return found[0] if found else None


@pytest.mark.skipif(_system_libusb() is None, reason="no libusb 1.0 on this machine (apt install libusb-1.0-0)")
def test_a_bundle_opens_usb_printers_with_the_libusb_it_carries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bundle leaves PyInstaller's pyusb runtime hook out (it imported every backend at each start): a USB
    printer then finds the libusb copied into the bundle, not another one."""
    import usb.backend.libusb1

    from pos_terminal.devices.escpos import bundled_usb_backend

    for loaded in ("_lib", "_lib_object"):  # pyusb keeps the first library it loaded for the process
        monkeypatch.setattr(usb.backend.libusb1, loaded, None)

    library = _system_libusb()
    assert library is not None
    (tmp_path / library.name).symlink_to(library)

    assert bundled_usb_backend() is None  # from source: pyusb finds the system's, as it always does
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)  # as the bundle's bootloader sets it

    backend = bundled_usb_backend()

    assert backend is not None
    assert backend.lib._name == str(tmp_path / library.name)


def a_logo(width: int = 300, height: int = 120) -> bytes:
    """A store's logo as the tills keep it: a black bar on white, made from a PNG file's bytes."""
    picture = Image.new("RGB", (width, height), "white")
    ImageDraw.Draw(picture).rectangle((20, 20, width - 21, height - 21), fill="black")
    data = io.BytesIO()
    picture.save(data, format="PNG")
    return store_logo(data.getvalue(), "logo.png")


def test_a_receipt_with_the_store_s_logo_starts_with_it_centred_on_the_paper(fake: FakePrinter, tmp_path: Path) -> None:
    receipt = replace(a_receipt("Ana"), logo=a_logo())
    slip = receipt_slip(receipt, MoneyFormat("en_AU", "AUD").format, UTC)
    assert Slip.from_json(slip.to_json()) == slip, "the print queue keeps the picture"
    printer_at(fake).print_slip(slip)
    fake.wait_for(fake.jobs)

    job = fake.jobs()[0]
    assert not fake.unknown(), fake.unknown()
    assert isinstance(job[0], Picture), job[0]
    logo = job[0].image.convert("L")
    assert logo.width == 576, "padded to the paper's width by the printer's centring"
    ink = ImageOps.invert(logo).getbbox()
    assert ink is not None
    left, _, right, _ = ink
    assert abs((left + right) / 2 - 576 / 2) <= 2, f"centred: ink from {left} to {right}"
    assert right - left == 260, "as kept: never enlarged"
    names = [e for e in job if isinstance(e, Text) and e.text]
    assert names[0].text == "Harbour Café" and names[0].large, "the store's name under its logo"

    folder = Path(os.environ.get("POS_TERMINAL_SCREENSHOTS") or tmp_path)
    assert render(job, folder / "receipt-escpos-logo.png").stat().st_size > 0
