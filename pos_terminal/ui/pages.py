"""The main window's pages and the workspace's tabs, apart from the window so that its helpers can name them."""

from __future__ import annotations

from enum import StrEnum


class Page(StrEnum):
    SETUP = "setup"
    CONNECTING = "connecting"
    SIGN_IN = "sign-in"
    TILL = "till"  # nobody at the till: the first manager, a person's PIN, the shift
    WORKSPACE = "workspace"


class Tab(StrEnum):
    """In the order of the workspace's tabs."""

    CASHIER = "cashier"
    HISTORY = "history"
    REPORTS = "reports"
    SETTINGS = "settings"
    BACK_OFFICE = "back_office"
