"""Every table model on screen passes Qt's own model checks (pytest-qt's ``qtmodeltester``) with real rows in it:
the indexes, parents, row and column counts, header and data roles a view relies on, and the resets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import TypeAdapter

from pos_terminal.api.models import Transaction, TransactionRow
from pos_terminal.domain.money import MoneyFormat
from pos_terminal.domain.people import Person, Role
from pos_terminal.domain.report_document import Figures, SectionKey, report_document
from pos_terminal.domain.shift import DrawerCount, Shift
from pos_terminal.journal.catalog import CategoryRow, ProductRow
from pos_terminal.ui.catalog_page import CategoryModel, ProductModel
from pos_terminal.ui.history_view import TransactionModel
from pos_terminal.ui.people_page import PeopleModel
from pos_terminal.ui.report_figures import FiguresModel
from pos_terminal.ui.shifts_view import ShiftModel
from tests.helpers.reports import busy_day_report

MONEY = MoneyFormat("en_AU", "AUD")
AT = datetime(2026, 11, 22, 9, 30, tzinfo=UTC)
CUSTOMER = {"customerId": "cus-zoe", "firstName": "Zoë", "lastName": "Ångström"}


def wire(n: int, state: str, **extra: Any) -> dict[str, Any]:
    """A transaction record as the service lists it."""
    return {
        "transactionId": f"{n:08d}-0000-4000-8000-000000000000",
        "state": state,
        "terminalId": "LANE-1" if n % 2 else None,
        "created": (AT + timedelta(minutes=n)).isoformat(),
        "chargeAmount": 1250 * n,
        "total": 1250 * n,
        "customer": CUSTOMER,
        **extra,
    }


def test_the_history_model(qtmodeltester: Any) -> None:
    model = TransactionModel(MONEY)
    rows = TypeAdapter(TransactionRow)
    model.set_transactions(
        [
            rows.validate_python(wire(1, "complete", chargedAmount=1200, completed=AT.isoformat())),
            rows.validate_python(wire(2, "canceled")),
            Transaction.model_validate(wire(3, "authorized")),
            Transaction.model_validate(wire(4, "refunded", chargedAmount=5000)),
        ]
    )
    assert model.rowCount() == 4
    qtmodeltester.check(model)


def test_the_report_figures_model(qtmodeltester: Any) -> None:
    # eight terminals, a total row, figures that differ from the service's
    document = report_document(busy_day_report(400), MONEY.format)
    section = document.section(SectionKey.FIGURES)
    assert section is not None
    model = FiguresModel()
    model.set_figures(next(block for block in section.blocks if isinstance(block, Figures)))
    assert model.rowCount() > 2
    qtmodeltester.check(model)


def test_the_people_model(qtmodeltester: Any) -> None:
    model = PeopleModel()
    model.replace_rows(
        [
            Person(1, "Maria Manager", Role.MANAGER),
            Person(2, "Ana Cashier", Role.CASHIER, wrong_pins=5, locked_until=AT + timedelta(minutes=15)),
            Person(3, "Ben Cashier", Role.CASHIER, active=False),
            Person(4, "雷 李", Role.CASHIER, pin_to_set=True),
        ]
    )
    qtmodeltester.check(model)


def test_the_catalog_models(qtmodeltester: Any) -> None:
    categories = CategoryModel()
    categories.replace_rows([CategoryRow("cat-1", "Coffee", 0, True), CategoryRow("cat-2", "Food", 1, False)])
    qtmodeltester.check(categories)
    products = ProductModel()
    products.category_names = {"cat-1": "Coffee", "cat-2": "Food"}
    products.replace_rows(
        [
            ProductRow("p-1", "Flat white", 480, 1000, "cat-1", ("9300000000001",), 0, "#8d6e63", True),
            ProductRow("p-2", "Banana bread", 620, None, "cat-2", (), 1, None, False),
            ProductRow("p-3", "Gift card", 5000, 0, None, ("9300000000002", "9300000000003"), 2, None, True),
        ]
    )
    qtmodeltester.check(products)


def test_the_shift_model(qtmodeltester: Any) -> None:
    model = ShiftModel(MONEY)
    closed = Shift(
        1, "LANE-1", AT, "Maria Manager", 20_000, AT + timedelta(hours=8), "Maria Manager",
        DrawerCount(31_050, ((5000, 4), (200, 2), (50, 1))), 31_000,
    )  # fmt: skip
    model.replace_rows([closed, Shift(2, "LANE-1", AT + timedelta(hours=9), "Ana Cashier", 20_000)])
    qtmodeltester.check(model)
