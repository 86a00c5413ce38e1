"""The PDFs read back with pypdf: A4 and 80 mm roll, page numbers, SANDBOX, non-ASCII names, long reports, receipts."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from PIL import Image, ImageDraw
from pypdf import PdfReader

from pos_terminal.domain.details import StoreDetails
from pos_terminal.domain.lifecycle import TxState
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.report import EndOfDayReport, ReportScope, TimeRange, TxRow, build_report
from pos_terminal.reports import raster
from pos_terminal.reports.end_of_day import render
from pos_terminal.reports.logo import store_logo
from pos_terminal.reports.receipt import render_receipt
from tests.helpers.reports import long_report
from tests.reports.conftest import Day, expected_figures

MONEY = MoneyFormat("en_AU", "AUD")
ROLL_WIDTH_PT = 80 / 25.4 * 72
SYDNEY = ZoneInfo("Australia/Sydney")


def flat(pages: list[str]) -> str:
    return " ".join(" ".join(pages).split())


def sizes(data: bytes) -> list[tuple[float, float]]:
    return [(float(p.mediabox.width), float(p.mediabox.height)) for p in PdfReader(io.BytesIO(data)).pages]


@pytest.fixture
async def day_report(day: Day, open_terminal: Callable[..., Any]) -> EndOfDayReport:
    terminal = await open_terminal(day.server, terminal_id="LANE-1")
    return await terminal.reports().end_of_day(TimeRange.custom(day.start, day.end), ReportScope.all())


def test_a4_has_the_figures_names_range_and_page_numbers(
    day: Day, day_report: EndOfDayReport, pdf_text: Callable[[bytes], list[str]]
) -> None:
    data = render(day_report, "a4", money=MONEY, tz=SYDNEY)
    pages = pdf_text(data)
    text = flat(pages)
    assert all(size == pytest.approx((595.3, 841.9), abs=0.5) for size in sizes(data))
    assert "SANDBOX" in pages[0]
    assert f"Page 1 of {len(pages)}" in text and f"Page {len(pages)} of {len(pages)}" in text
    assert "All terminals, one row each" in text and "Terminal LANE-1" in text
    local_start = day.start.astimezone(SYDNEY).strftime("%Y-%m-%d %H:%M")
    assert local_start in text and "UTC+1" in text  # local time on paper, with its offset
    expected = expected_figures(day.records(), day.start, day.end)
    for figures in expected.values():
        assert MONEY.format(figures["total"]) in text
        assert MONEY.format(figures["payout"]) in text
    assert "Reconciled" in text and "MISMATCH" not in text
    for name in ("Zoë Ångström", "李雷", "Liam O'Connor"):
        assert name in text, name
    for section in ("Authorized, never completed (1)", "Refunds (1)", "Cancellations (2)", "Transactions ("):
        assert section in text, section


def test_roll_is_80_mm_wide_without_the_transaction_table(
    day: Day, day_report: EndOfDayReport, pdf_text: Callable[[bytes], list[str]]
) -> None:
    data = render(day_report, "roll", money=MONEY, tz=SYDNEY)
    (width, height), *rest = sizes(data)
    assert not rest and width == pytest.approx(ROLL_WIDTH_PT, abs=0.5) and height > 300
    text = flat(pdf_text(data))
    assert "SANDBOX" in text and "Page 1 of 1" in text
    assert "TOTAL" in text and MONEY.format(day_report.total.shown.payout) in text
    assert "Transactions (" not in text
    assert "Zoë Ångström" in text  # refunded and auto-canceled: B3, B7


def test_a_long_report_paginates_with_the_header_on_every_page(pdf_text: Callable[[bytes], list[str]]) -> None:
    report = long_report(600)
    pages = pdf_text(render(report, "a4", money=MONEY, tz=SYDNEY))
    assert len(pages) >= 6
    for number, page in enumerate(pages, start=1):
        assert f"Page {number} of {len(pages)}" in page
    # The transaction table goes on over several pages, its header row repeated on each.
    with_table = [
        page
        for page in pages
        if "00000300-0000-4000-8000-000000000000" in page or "00000100-0000-4000-8000-000000000000" in page
    ]
    assert with_table and all("Transaction" in page and "Customer" in page for page in with_table)
    assert any("00000599-0000-4000-8000-000000000000" in page for page in pages[-2:])
    assert report.reconciled


def test_a_long_roll_is_cut_into_pages(pdf_text: Callable[[bytes], list[str]]) -> None:
    report = long_report(40)
    # the roll has no transaction table: lengthen it with many open authorizations instead
    opened = [
        TxRow(f"open-{n:04d}", TxState.AUTHORIZED, "LANE-1", report.range.start, None, None, "雷 李", 100, 100, 100)
        for n in range(400)
    ]
    long = build_report(
        terminal_id="LANE-1",
        scope=ReportScope.all(),
        region="Production AU",
        production=True,
        period=report.range,
        generated_at=report.generated_at,
        reported=report.reported,
        listed=[*report.transactions, *opened],
    )
    data = render(long, "roll", money=MONEY, tz=SYDNEY)
    pages = pdf_text(data)
    assert len(pages) > 1
    assert all(w == pytest.approx(ROLL_WIDTH_PT, abs=0.5) for w, _ in sizes(data))
    assert f"Page {len(pages)} of {len(pages)}" in pages[-1]
    assert "SANDBOX" not in " ".join(pages)  # production: no mark


async def test_receipts_show_items_discounts_cash_loyalty_and_refunds(
    day: Day, open_terminal: Callable[..., Any], pdf_text: Callable[[bytes], list[str]]
) -> None:
    terminal = await open_terminal(day.server, terminal_id="LANE-1")
    reports = terminal.reports()

    member = await reports.receipt(day.ids["B1"])
    text = flat(pdf_text(render_receipt(member, money=MONEY, tz=SYDNEY)))
    assert day.ids["B1"] in text and "LANE-1" in text and "Zoë Ångström" in text and "M-555001" in text
    assert "Amount charged" in text and MONEY.format(member.charged_amount) in text
    assert member.modifiers[0].name in text and MONEY.format(member.modifiers[0].amount) in text
    assert "Tip" in text and MONEY.format(300) in text
    assert "SANDBOX" in text

    discounted = await reports.receipt(day.ids["B2"])
    text = flat(pdf_text(render_receipt(discounted, money=MONEY)))
    assert "2 × Flat white" in text and "Staff 10 %" in text and MONEY.format(-200) in text

    cash = await reports.receipt(day.ids["B8"])
    text = flat(pdf_text(render_receipt(cash, money=MONEY)))
    assert "Paid by cash" in text and MONEY.format(-500) in text and "李雷" in text
    assert "Due on the account" in text and MONEY.format(1500) in text

    refunded = await reports.receipt(day.ids["B3"])
    data = render_receipt(refunded, money=MONEY)
    assert "REFUNDED" in flat(pdf_text(data))
    ((width, _),) = sizes(data)
    assert width == pytest.approx(ROLL_WIDTH_PT, abs=0.5)


def test_pages_render_to_rgba_images(day_report: EndOfDayReport) -> None:
    data = render(day_report, "a4", money=MONEY)
    pages = raster.render_pages(data, dpi=50)
    assert len(pages) == len(sizes(data))
    first = pages[0]
    assert abs(first.width - 595.28 * 50 / 72) <= 1 and first.stride >= first.width * 4
    assert len(first.data) == first.stride * first.height
    assert first.data[:4] == b"\xff\xff\xff\xff"  # white paper in the corner
    with pytest.raises(raster.UnreadablePdf):
        raster.render_pages(b"not a pdf")


def images_on(data: bytes) -> list[list[str]]:
    """Per page, the names of the image XObjects its resources hold."""
    pages = PdfReader(io.BytesIO(data)).pages
    result = []
    for page in pages:
        objects = page["/Resources"].get_object().get("/XObject")
        found = objects.get_object() if objects is not None else {}
        result.append([name for name, ref in found.items() if ref.get_object()["/Subtype"] == "/Image"])
    return result


async def test_the_store_s_logo_heads_the_receipt_and_both_layouts_of_the_report(
    day: Day, open_terminal: Callable[..., Any], pdf_text: Callable[[bytes], list[str]], tmp_path: Path
) -> None:
    terminal = await open_terminal(day.server, terminal_id="LANE-1")
    reports = terminal.reports()
    plain = render_receipt(await reports.receipt(day.ids["B1"]), money=MONEY, tz=SYDNEY)
    assert images_on(plain) == [[]], "no logo, no picture"

    picture = Image.new("RGB", (600, 240), "white")
    ImageDraw.Draw(picture).ellipse((10, 10, 590, 230), fill="navy")
    ImageDraw.Draw(picture).text((200, 100), "HARBOUR", fill="white", font_size=48)
    file = io.BytesIO()
    picture.save(file, format="JPEG")
    logo = store_logo(file.getvalue(), "harbour.jpg")
    assert terminal.set_store_details(StoreDetails("Harbour Café", "1 Quay St", logo=logo), by="Mere")

    receipt = await reports.receipt(day.ids["B1"])
    assert receipt.logo == logo
    data = render_receipt(receipt, money=MONEY, tz=SYDNEY)
    assert len(images_on(data)[0]) == 1, "the logo is a picture on the receipt"
    assert flat(pdf_text(data)).startswith("Harbour Café"), "the name under the logo"
    report = await reports.end_of_day(TimeRange.custom(day.start, day.end), ReportScope.all())
    for layout in ("a4", "roll"):
        assert len(images_on(render(report, layout, money=MONEY))[0]) == 1, layout

    folder = Path(os.environ.get("POS_TERMINAL_SCREENSHOTS") or tmp_path)
    (folder / "receipt-logo.pdf").write_bytes(data)


def test_a_report_over_two_days_prints_each_transaction_s_date_and_time_whole(
    pdf_text: Callable[[bytes], list[str]],
) -> None:
    report = long_report(6)  # 13:00 to 12:00 the next day, in UTC
    text = flat(pdf_text(render(report, "a4", money=MONEY, tz=ZoneInfo("UTC"))))
    assert "11-22…" not in text, "the time column held only the date"
    assert text.count("11-22 13:00 LANE-") == 6
    assert "00000005-0000-4000-8000-000000000000" in text, "the transaction id stays whole beside it"
