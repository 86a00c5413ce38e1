"""Every text the window colours meets WCAG 2 AA contrast, in the light and the dark theme.

The ratios are computed (WCAG 2.x relative luminance) for each pair of the style sheet's
accents and of the palette roles drawn as text, against what they are drawn on.
"""

from __future__ import annotations

import os

import pytest

from pos_terminal.ui.theme import (
    AA,
    DARK,
    LIGHT,
    Group,
    Role,
    Scheme,
    Theme,
    ThemeFollower,
    accessible_palette,
    apply_theme,
    contrast,
    current,
    dark_palette,
    follow_system,
    scheme_of,
    seen,
    theme_for,
    with_contrast,
)

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication


def test_the_contrast_ratio_is_wcags() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#ffffff", "#ffffff") == pytest.approx(1.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # the lightest grey passing AA on white
    assert contrast("#1b6e45", "#ffffff") == contrast("#ffffff", "#1b6e45")
    moved = with_contrast("#c0c0c0", "#ffffff")
    assert contrast(moved, "#ffffff") >= AA and with_contrast("#000000", "#ffffff") == "#000000"


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_every_accent_pair_of_the_style_sheet_meets_aa(theme: Theme) -> None:
    failing = [
        f"{what}: {fg} on {bg} is {contrast(fg, bg):.2f}:1, {ratio}:1 needed"
        for what, fg, bg, ratio in theme.text_pairs()
        if contrast(fg, bg) < ratio
    ]
    assert not failing, failing
    sheet = theme.style_sheet()
    assert theme.on_primary in sheet and theme.primary in sheet and theme.hint in sheet


PALETTE_TEXT = [
    (Group.Active, Role.WindowText, Role.Window),
    (Group.Active, Role.Text, Role.Base),
    (Group.Active, Role.ButtonText, Role.Button),
    (Group.Active, Role.HighlightedText, Role.Highlight),
    (Group.Inactive, Role.HighlightedText, Role.Highlight),
    (Group.Active, Role.PlaceholderText, Role.Base),
    (Group.Active, Role.ToolTipText, Role.ToolTipBase),
    (Group.Disabled, Role.WindowText, Role.Window),
    (Group.Disabled, Role.Text, Role.Base),
    (Group.Disabled, Role.ButtonText, Role.Button),
]


def palette_failures(palette: QPalette) -> list[str]:
    failures = []
    for group, role, under in PALETTE_TEXT:
        fg, bg = seen(palette.color(group, role), palette.color(group, under)), palette.color(group, under).name()
        if contrast(fg, bg) < AA:
            failures.append(f"{group.name} {role.name} {fg} on {under.name} {bg}: {contrast(fg, bg):.2f}:1")
    return failures


@pytest.mark.parametrize("scheme", [Scheme.LIGHT, Scheme.DARK])
def test_the_palette_applied_and_the_accents_on_it_meet_aa(qapp: QApplication, scheme: Scheme) -> None:
    try:
        theme = apply_theme(qapp, scheme)
        palette = qapp.palette()
        assert theme.scheme is scheme
        assert palette_failures(palette) == []
        failing = [what for what, fg, bg, ratio in theme.text_pairs() if contrast(fg, bg) < ratio]
        assert not failing, failing
    finally:
        apply_theme(qapp, Scheme.LIGHT)


def test_a_system_palette_with_faint_colours_is_made_readable() -> None:
    """A platform palette whose disabled text and selection are too faint (Fusion's are) is corrected, and the
    accents are measured against the system's own window and field colours."""
    faint = dark_palette()
    faint.setColor(Group.Disabled, Role.Text, QColor("#3a3f44"))
    faint.setColor(Role.Highlight, QColor("#5aa5de"))
    faint.setColor(Role.Window, QColor("#202020"))
    faint.setColor(Role.PlaceholderText, QColor(255, 255, 255, 90))
    fixed = accessible_palette(faint)
    assert palette_failures(fixed) == []
    theme = theme_for(fixed)
    assert theme.scheme is Scheme.DARK and theme.window == "#202020"
    assert all(contrast(fg, bg) >= ratio for _, fg, bg, ratio in theme.text_pairs())


def test_the_theme_follows_a_change_of_the_system_scheme(qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the system switches between light and dark (Qt's colorSchemeChanged), the palette and the style
    sheet are made again for it (here the scheme is named by POS_TERMINAL_THEME: offscreen has no system one)."""
    try:
        assert follow_system(qapp).scheme is Scheme.LIGHT or "POS_TERMINAL_THEME" in os.environ
        monkeypatch.setenv("POS_TERMINAL_THEME", "dark")
        qapp.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
        assert current().scheme is Scheme.DARK and scheme_of(qapp.palette()) is Scheme.DARK
        assert DARK.primary in qapp.styleSheet()
        monkeypatch.setenv("POS_TERMINAL_THEME", "light")
        qapp.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Light)
        assert current().scheme is Scheme.LIGHT and scheme_of(qapp.palette()) is Scheme.LIGHT
    finally:
        for follower in qapp.findChildren(ThemeFollower):
            follower.setParent(None)
            follower.deleteLater()
        monkeypatch.delenv("POS_TERMINAL_THEME", raising=False)
        apply_theme(qapp, Scheme.LIGHT)
