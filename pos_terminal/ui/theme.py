"""Colours: the platform's own style and palette, light or dark as the system is, with our accents on top.

The window keeps the platform's Qt style (its buttons, fields and tables) and follows
the system's colour scheme; when the system switches between light and dark, the
palette and the style sheet are made again. What we add are accents: the green of
Charge and Complete, the red of Cancel and errors, the hint and reason texts, the
banner and the totals panel.

Every text we colour meets WCAG 2 AA contrast against what it is drawn on (4.5:1,
3:1 for large text): :meth:`Theme.text_pairs` lists each pair and
``tests/unit/test_contrast.py`` computes their ratios. The palette roles the
platform draws faintly (disabled text, placeholders, the selection) are darkened
or lightened just enough to meet it too (:func:`accessible_palette`).

``POS_TERMINAL_THEME=light`` or ``dark`` overrides the system (and gives a dark
window where the platform has no dark palette, as offscreen).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from enum import StrEnum

from pos_terminal import assets

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

AA = 4.5  # WCAG 2 AA, normal text
AA_LARGE = 3.0  # WCAG 2 AA, large text: 18.66 px bold or 24 px

Role = QPalette.ColorRole
Group = QPalette.ColorGroup


class Scheme(StrEnum):
    LIGHT = "light"
    DARK = "dark"


# --- contrast (WCAG 2.x) -----------------------------------------------------------------------------------------


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    """Relative luminance of ``#rrggbb`` (WCAG 2)."""
    rgb = QColor(colour)
    return 0.2126 * _channel(rgb.red()) + 0.7152 * _channel(rgb.green()) + 0.0722 * _channel(rgb.blue())


def contrast(foreground: str, background: str) -> float:
    """The WCAG contrast ratio of two colours, from 1 to 21."""
    a, b = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def with_contrast(foreground: str, background: str, ratio: float = AA) -> str:
    """``foreground`` moved towards black or white (whichever lies away from ``background``) until it reaches
    ``ratio`` against it; unchanged when it already does."""
    if contrast(foreground, background) >= ratio:
        return QColor(foreground).name()
    target = QColor("#000000") if luminance(background) > 0.18 else QColor("#ffffff")
    start = QColor(foreground)
    for step in range(1, 21):
        t = step / 20
        mixed = QColor(
            round(start.red() + (target.red() - start.red()) * t),
            round(start.green() + (target.green() - start.green()) * t),
            round(start.blue() + (target.blue() - start.blue()) * t),
        ).name()
        if contrast(mixed, background) >= ratio:
            return mixed
    return target.name()


# --- the accents ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Theme:
    """Our colours for one scheme, and the palette colours they are drawn on (``window``, ``base``, ``text``)."""

    scheme: Scheme
    window: str
    base: str
    text: str
    primary: str
    primary_hover: str
    on_primary: str
    danger: str
    danger_hover: str
    on_danger: str
    disabled_fill: str
    disabled_text: str
    focus: str
    hint: str
    reason: str
    success: str  # discounts on the check
    payment: str  # cash and other payments on the check
    error_fill: str
    error_edge: str
    error_text: str
    info_fill: str
    info_edge: str
    info_text: str
    panel_fill: str
    panel_edge: str
    panel_text: str
    badge_fill: str
    on_badge: str
    chosen_fill: str  # a checked category
    on_chosen: str

    def text_pairs(self) -> Iterator[tuple[str, str, str, float]]:
        """Every text colour we set, on what it is drawn, and the ratio it needs: (what, fg, bg, ratio)."""
        for where in ("window", "base"):
            background = getattr(self, where)
            yield f"hint on {where}", self.hint, background, AA
            yield f"reason on {where}", self.reason, background, AA
        yield "discount line", self.success, self.base, AA
        yield "payment line", self.payment, self.base, AA
        yield "primary button", self.on_primary, self.primary, AA
        yield "primary button, hovered", self.on_primary, self.primary_hover, AA
        yield "danger button", self.on_danger, self.danger, AA
        yield "danger button, hovered", self.on_danger, self.danger_hover, AA
        yield "disabled accent button", self.disabled_text, self.disabled_fill, AA
        yield "error banner", self.error_text, self.error_fill, AA
        yield "info banner", self.info_text, self.info_fill, AA
        yield "totals panel", self.panel_text, self.panel_fill, AA
        yield "reason on the totals panel", self.reason, self.panel_fill, AA
        yield "SANDBOX badge", self.on_badge, self.badge_fill, AA
        yield "chosen category", self.on_chosen, self.chosen_fill, AA
        yield "focus ring on window", self.focus, self.window, AA_LARGE

    def style_sheet(self) -> str:
        """The application's style sheet (``resources/style.qss``) in this theme's colours: font sizes and our
        accents; the rest is the platform's. Button heights are set by :func:`pos_terminal.ui.widgets.button`
        (a ``min-height`` there would override any taller minimum a button needs, such as a product tile's)."""
        return assets.read_text("style.qss").format(**{f.name: getattr(self, f.name) for f in fields(self)})


LIGHT = Theme(
    scheme=Scheme.LIGHT,
    window="#efefef",
    base="#ffffff",
    text="#000000",
    primary="#1b6e45",
    primary_hover="#155a38",
    on_primary="#ffffff",
    danger="#b3261e",
    danger_hover="#8c1d18",
    on_danger="#ffffff",
    disabled_fill="#dde1e6",
    disabled_text="#4a5560",
    focus="#1d6fa5",
    hint="#4f5b67",
    reason="#8a4b00",
    success="#1b6e45",
    payment="#1a5f95",
    error_fill="#fde8e7",
    error_edge="#b3261e",
    error_text="#5c1410",
    info_fill="#e3f0fb",
    info_edge="#1d6fa5",
    info_text="#0f3a5c",
    panel_fill="#f5f7fa",
    panel_edge="#c9ced4",
    panel_text="#111111",
    badge_fill="#b3261e",
    on_badge="#ffffff",
    chosen_fill="#1d6fa5",
    on_chosen="#ffffff",
)

DARK = Theme(
    scheme=Scheme.DARK,
    window="#2b2f33",
    base="#1f2226",
    text="#e8eaed",
    primary="#1b6e45",
    primary_hover="#21834f",
    on_primary="#ffffff",
    danger="#b3261e",
    danger_hover="#c9342b",
    on_danger="#ffffff",
    disabled_fill="#3a4047",
    disabled_text="#b5bdc6",
    focus="#7cb8ea",
    hint="#b0bac4",
    reason="#f2b35e",
    success="#74d19b",
    payment="#8cc4f0",
    error_fill="#4a1f1c",
    error_edge="#e5726a",
    error_text="#fbe0dd",
    info_fill="#16324a",
    info_edge="#5aa5de",
    info_text="#dcebf8",
    panel_fill="#33383e",
    panel_edge="#4b535c",
    panel_text="#f0f2f4",
    badge_fill="#b3261e",
    on_badge="#ffffff",
    chosen_fill="#2f6fa3",
    on_chosen="#ffffff",
)


def dark_palette() -> QPalette:
    """A dark palette for platforms that have none (offscreen, or an old desktop) when dark is asked for."""
    palette = QPalette()
    colours = {
        Role.Window: DARK.window,
        Role.WindowText: DARK.text,
        Role.Base: DARK.base,
        Role.AlternateBase: "#272b30",
        Role.Text: DARK.text,
        Role.Button: "#353a40",
        Role.ButtonText: DARK.text,
        Role.BrightText: "#ffffff",
        Role.ToolTipBase: "#3a3f45",
        Role.ToolTipText: DARK.text,
        Role.PlaceholderText: "#a3acb5",
        Role.Highlight: "#2f6fa3",
        Role.HighlightedText: "#ffffff",
        Role.Link: "#8cc4f0",
        Role.LinkVisited: "#c3a6ea",
        Role.Light: "#4a5058",
        Role.Midlight: "#40464d",
        Role.Mid: "#2a2e33",
        Role.Dark: "#1a1d20",
        Role.Shadow: "#0d0f11",
    }
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    for role in (Role.WindowText, Role.Text, Role.ButtonText):
        palette.setColor(Group.Disabled, role, QColor("#8c959f"))
    palette.setColor(Group.Disabled, Role.Button, QColor("#30353a"))
    palette.setColor(Group.Disabled, Role.Base, QColor("#25292d"))
    return palette


# Palette roles drawn as text, and what they are drawn on: each is moved just enough to meet AA.
_TEXT_ROLES: tuple[tuple[Group, Role, Role], ...] = (
    (Group.Disabled, Role.WindowText, Role.Window),
    (Group.Disabled, Role.Text, Role.Base),
    (Group.Disabled, Role.ButtonText, Role.Button),
    (Group.Active, Role.PlaceholderText, Role.Base),
    (Group.Inactive, Role.PlaceholderText, Role.Base),
    (Group.Disabled, Role.PlaceholderText, Role.Base),
)


def seen(colour: QColor, background: QColor) -> str:
    """``colour`` as it shows over ``background``: a translucent one (Fusion's placeholder text) blends in."""
    alpha = colour.alphaF()
    mixed = QColor(
        round(colour.red() * alpha + background.red() * (1 - alpha)),
        round(colour.green() * alpha + background.green() * (1 - alpha)),
        round(colour.blue() * alpha + background.blue() * (1 - alpha)),
    )
    return mixed.name()


def accessible_palette(palette: QPalette) -> QPalette:
    """``palette`` with the faint text roles (disabled, placeholder) and the selection meeting AA contrast;
    translucent text colours are measured as they show, and set opaque."""
    fixed = QPalette(palette)
    for group, role, under in _TEXT_ROLES:
        background = palette.color(group, under)
        shown = seen(palette.color(group, role), background)
        fixed.setColor(group, role, QColor(with_contrast(shown, background.name())))
    for group in (Group.Active, Group.Inactive):
        text = palette.color(group, Role.HighlightedText).name()
        highlight = palette.color(group, Role.Highlight).name()
        if contrast(text, highlight) < AA:
            fixed.setColor(group, Role.Highlight, QColor(with_contrast(highlight, text)))
    return fixed


def scheme_of(palette: QPalette) -> Scheme:
    return Scheme.DARK if luminance(palette.color(Role.Window).name()) < 0.18 else Scheme.LIGHT


def theme_for(palette: QPalette) -> Theme:
    """Our accents for the palette's scheme, measured against its own window, base and text colours (a system
    palette may differ from the one the accents were chosen on, so each text colour is checked again)."""
    base = DARK if scheme_of(palette) is Scheme.DARK else LIGHT
    window, field = palette.color(Role.Window).name(), palette.color(Role.Base).name()

    def on_both(colour: str) -> str:
        return with_contrast(with_contrast(colour, window), field)

    return replace(
        base,
        window=window,
        base=field,
        text=palette.color(Role.Text).name(),
        hint=on_both(base.hint),
        reason=with_contrast(on_both(base.reason), base.panel_fill),
        success=with_contrast(base.success, field),
        payment=with_contrast(base.payment, field),
        focus=with_contrast(base.focus, window, AA_LARGE),
    )


# --- following the system ------------------------------------------------------------------------------------------


def wanted_scheme(app: QGuiApplication) -> Scheme | None:
    """The scheme asked for: ``POS_TERMINAL_THEME``, else the system's when it says, else None (the palette's)."""
    asked = os.environ.get("POS_TERMINAL_THEME", "").strip().lower()
    if asked in (Scheme.LIGHT, Scheme.DARK):
        return Scheme(asked)
    system = app.styleHints().colorScheme()
    if system == Qt.ColorScheme.Dark:
        return Scheme.DARK
    if system == Qt.ColorScheme.Light:
        return Scheme.LIGHT
    return None


_current: Theme = LIGHT


def current() -> Theme:
    """The theme applied last (the table models read their line colours from it)."""
    return _current


def apply_theme(app: QApplication, scheme: Scheme | None = None) -> Theme:
    """Give ``app`` the platform's palette for ``scheme`` (the wanted one by default) with AA contrast, and the
    style sheet of our accents for it; returns the theme applied."""
    global _current  # the application's palette is process-wide; so is the theme drawn on it
    app.setPalette(QPalette())  # back to the platform's own palette, as the system has it now
    scheme = scheme or wanted_scheme(app)
    palette = app.palette()
    if scheme is not None and scheme_of(palette) is not scheme:
        palette = dark_palette() if scheme is Scheme.DARK else app.style().standardPalette()
    palette = accessible_palette(palette)
    app.setPalette(palette)
    _current = theme_for(palette)
    app.setStyleSheet(_current.style_sheet())
    return _current


class ThemeFollower(QObject):
    """Applies the theme again whenever the system switches between light and dark."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.app = app
        app.styleHints().colorSchemeChanged.connect(self.on_scheme_changed)

    def on_scheme_changed(self, _: Qt.ColorScheme) -> None:
        apply_theme(self.app)


def follow_system(app: QApplication) -> Theme:
    """Apply the theme now and whenever the system's colour scheme changes."""
    theme = apply_theme(app)
    if app.findChild(ThemeFollower) is None:
        ThemeFollower(app)
    return theme
