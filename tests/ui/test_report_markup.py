"""What a person types shows as typed: markup and line breaks in the store's details and a person's name.

The store's day in Reports once showed "…tills CAFE-1, CAFE-2<br><b>Closed drawers together…</b>": the store's
address held a line break before the summary's first tag, so Qt guessed the label's rich text was plain. Here a
manager types markup (``<b>…</b>``, ``&amp;``) and line breaks into every field of the store's details and into
her own name, through the real widgets, sells, and looks at the store's day: every label shows what was typed,
character for character, and no markup of it is read as markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import httpx

from pos_terminal.app import AppHost
from pos_terminal.config import DeviceSettings, Settings, save_settings
from pos_terminal.domain.report_document import SectionKey
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.ui.main_window import MainWindow, Page, Tab
from pos_terminal.ui.reports_view import ReportsView
from pos_terminal.ui.till_view import TillMode
from tests.conftest import mint_token, new_checked_in_customer
from tests.ui.conftest import MANAGER_PIN, TERMINAL_ID, finish, screenshot, until
from tests.ui.test_back_office import click, details_page, people_page, type_in
from tests.ui.test_store_window import cash_sale

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import Qt as QtGui
from PySide6.QtGui import QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel, QWidget

PERSON = "<b>Mia</b> &amp; Co"  # a name holds no line break (one line, spaces as one)
TYPED = {  # every field of the store's details
    "name": "<b>Café</b> &amp; Nord",
    "address": "<b>Hafen</b>straße 12 &amp;\n20459 <i>Hamburg</i>",
    "tax_number": "<i>DE</i>&lt;123",
    "receipt_header": "<h1>Open</h1> 7–15\n&nbsp;<u>daily</u>",
    "receipt_footer": "Thanks <br> &copy;\n<a href='x'>bye</a>",
}


FIRST = {  # as the café's owner typed them: "&amp;" (which a label may read as "&"), no tag before the line break
    "name": "Café &amp; Nord",
    "address": "Hafenstraße 12 &amp; 14\n20459 <i>Hamburg</i>",
    "tax_number": "DE&amp;123",
    "receipt_header": "Open 7–15\n<b>daily</b>",
    "receipt_footer": "Thanks &amp; bye\n<a href='x'>bye</a>",
}


async def save_details(window: MainWindow, typed: dict[str, str]) -> None:
    """Every field of the store's details typed as a person types, Enter between lines, and saved."""
    details = await details_page(window)
    for field, text in typed.items():
        widget = details.fields[field]
        widget.setText("")
        for index, line in enumerate(text.split("\n")):
            if index:
                QTest.keyClick(widget, Qt.Key.Key_Return)
            type_in(widget, line)
    assert details.values() == typed
    details.done.hide()
    click(details.save_button)
    await until(lambda: details.done.isVisible() or details.reason.isVisible(), what="saved")
    assert not details.reason.isVisible(), details.reason.text()
    assert window.terminal is not None
    saved = window.terminal.store.details.get()
    assert saved is not None and (saved.name, saved.address) == (typed["name"], typed["address"])
    assert_as_typed(details, typed.values())


async def store_day(window: MainWindow) -> ReportsView:
    """The store's day shown in Reports, its preview made."""
    window.show_tab(Tab.REPORTS)
    reports = window.workspace.reports
    assert isinstance(reports, ReportsView)
    await until(lambda: reports.scope.findData("store") >= 0, what="the store's day offered")
    reports.scope.setCurrentIndex(reports.scope.findData("store"))
    before = reports.paper
    click(reports.show_button)
    await until(lambda: reports.paper is not None and reports.paper is not before, what="the store's day made")
    assert reports.report is not None and reports.report.document.section(SectionKey.STORE) is not None
    return reports


def shown(label: QLabel) -> str:
    """The text a label shows, as Qt reads what it was given (its guess too, where the format is left to it)."""
    text = label.text()
    rich = label.textFormat() is Qt.TextFormat.RichText or (
        label.textFormat() is Qt.TextFormat.AutoText and QtGui.mightBeRichText(text)
    )
    if not rich:
        return text
    document = QTextDocument()
    document.setHtml(text)
    return document.toPlainText().replace("\u2028", "\n").replace("\u2029", "\n")


def inside(page: QWidget, viewport: QWidget) -> bool:
    """The page is seen whole across: neither edge out of the preview's sight (it once stayed as wide as the
    widest window had made it, centred in a box wider than the preview, its right side cut off)."""
    left = page.mapTo(viewport, QPoint(0, 0)).x()
    return left >= 0 and left + page.width() <= viewport.width()


def labels(widget: QWidget) -> Iterable[QLabel]:
    return (w for w in widget.findChildren(QLabel) if w.isVisible() and w.text())


def assert_as_typed(widget: QWidget, typed: Iterable[str]) -> list[str]:
    """Every visible label under ``widget`` that shows a typed text shows it whole, and shows no markup that was not
    typed; the texts found."""
    lines = [line for text in typed for line in text.splitlines()]
    found = []
    for label in labels(widget):
        text = shown(label)
        rest = text
        for line in sorted(lines, key=len, reverse=True):
            rest = rest.replace(line, "")
        assert "<" not in rest and "&amp;" not in rest, (label.accessibleName(), label.text(), text)
        for line in lines:
            read = html.unescape(re.sub(r"<[^>]*>", "", line))  # the line as a browser would read it
            if read.strip() and read in text and line not in text:
                raise AssertionError(f"{label.accessibleName()!r} shows {text!r}, not {line!r} as typed")
            if line in text:
                found.append(line)
    return found


async def test_markup_typed_into_the_store_s_details_and_a_name_shows_as_typed_in_reports(
    profile: Paths,
    sandbox: SandboxServer,
    make_window: Callable[[AppHost], MainWindow],
    client: httpx.Client,
    tmp_path: Path,
) -> None:
    from pos_terminal.store.database import StoreDatabase

    # with the customer's display, which greets with the store's name
    save_settings(profile.config_file, Settings(terminal_id=TERMINAL_ID, devices=DeviceSettings(customer_display=True)))
    host = AppHost(profile, service_url=sandbox.url)
    address = f"sqlite:///{tmp_path / 'shop' / 'store.sqlite3'}"
    with StoreDatabase(address) as database:
        database.init_schema()
    terminal = await host.connect()
    await terminal.store.join(address, None)
    await terminal.session.sign_in_with_token(mint_token(client))
    customer = new_checked_in_customer(client, firstName="Dee", lastName="Day")
    window = make_window(host)
    window.start()

    # The first manager's name, typed on the till's first page; the shift's step greets her by it.
    await until(lambda: window.page is Page.TILL and window.till.mode is TillMode.FIRST_MANAGER, what="the till")
    till = window.till
    type_in(till.first_name, PERSON)
    QTest.keyClicks(till.first_pin, MANAGER_PIN)
    QTest.keyClicks(till.first_again, MANAGER_PIN)
    click(till.create_button)
    await until(lambda: till.mode is TillMode.OPEN_SHIFT, what="the shift step")
    live = window.terminal  # the window's own, made again as it started
    assert live is not None and live.till.actor == PERSON
    assert PERSON in assert_as_typed(till, [PERSON])
    assert shown(till.shift_heading) == f"Open the shift, {PERSON}"
    QTest.keyClicks(till.opening_float, "200.00")
    click(till.open_button)
    await until(lambda: window.page is Page.WORKSPACE, what="the workspace")
    model = window.cashier.customers.model
    await until(lambda: model.row_of(customer["customerId"]) is not None, what="the customer")
    cash_sale(window, "Dee Day")

    await people_page(window)  # her name in the back office's People
    assert PERSON in assert_as_typed(window, [PERSON])

    # First the store's details as the café had them: an entity, no tag, before the address's line break (the
    # label's first line is what Qt guessed from); then markup in every field.
    for round, typed in enumerate((FIRST, TYPED)):
        await save_details(window, typed)
        display = window.hardware.customer_display
        assert display is not None and display.welcome.isVisible()
        assert shown(display.welcome) == f"Welcome to {typed['name']}"
        assert_as_typed(display, typed.values())
        reports = await store_day(window)
        summary = shown(reports.drawer)
        for line in (typed["name"], *typed["address"].splitlines(), PERSON):
            assert line in summary, (line, summary)
        assert "<br>" not in summary and "Closed drawers" not in summary.split("\n")[0], summary
        found = assert_as_typed(window, [*typed.values(), PERSON])
        assert {typed["name"], *typed["address"].splitlines(), PERSON} <= set(found)
        for width, height in ((1024, 768), (1920, 1080)):
            window.resize(width, height)
            QApplication.processEvents()
            scope = reports.scope
            room = scope.fontMetrics().horizontalAdvance(scope.currentText()) + 20  # the text and its arrow
            assert scope.width() >= room, "the store's day's choice whole in its box"
            assert reports.preview.pages and all(
                inside(page, reports.preview.viewport()) for page in reports.preview.pages
            )
            assert_as_typed(window, [*typed.values(), PERSON])
            screenshot(window, f"reports-store-day-two-line-address-{round + 1}-{width}x{height}", tmp_path)
    await finish(window, host, wait=False)
