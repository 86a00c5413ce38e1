"""About: the version, the service and region, where the profile keeps its files, and the bundled assets' licences."""

from __future__ import annotations

from html import escape
from pathlib import Path

from pos_terminal import assets
from pos_terminal.config import Settings
from pos_terminal.paths import Paths
from pos_terminal.services.terminal import Terminal
from pos_terminal.ui.widgets import button, keyboard_back, label
from pos_terminal.version import version

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QFormLayout, QVBoxLayout, QWidget

# What ships with the terminal under someone else's licence: (what, licence file in resources/).
LICENCES = (
    ("DejaVu Sans (PDF reports)", ("fonts", "LICENSE-DejaVu.txt")),
    ("Droid Sans Fallback (PDF reports)", ("fonts", "LICENSE-DroidSansFallback.txt")),
    ("Apache License 2.0", ("fonts", "LICENSE-Apache-2.0.txt")),
    ("NanumSquare (Korean in PDF reports)", ("fonts", "LICENSE-Nanum.txt")),
)


LINKED = ("Settings", "Data", "Log folder")  # the fields that are links to a folder or file


def _link(path: Path) -> str:
    return f'<a href="{escape(path.as_uri(), quote=True)}">{escape(str(path))}</a>'


class AboutDialog(QDialog):
    """Opened with ``open()``, never ``exec()`` (docs/event-loop.md)."""

    def __init__(self, paths: Paths, settings: Settings, terminal: Terminal | None, parent: QWidget | None) -> None:
        super().__init__(parent)
        keyboard_back(self)
        self.setWindowTitle("About pos-terminal")
        self.setAccessibleName("About pos-terminal")
        self.setMinimumWidth(640)  # the paths and licence links on one line each
        layout = QVBoxLayout(self)
        layout.addWidget(label(f"pos-terminal {version()}", role="heading"))
        form = QFormLayout()
        service = terminal.service if terminal is not None else None
        where = f"{service.name} ({service.pos_url})" if service is not None else "not connected"
        sandbox = " — SANDBOX" if service is not None and not service.production else ""
        self.fields = {
            "Version": version(),
            "Region": settings.region,
            "Service": where + sandbox,
            "Terminal id": settings.terminal_id,
            "Settings": _link(paths.config_file),
            "Data": _link(paths.data_dir),
            "Log folder": _link(paths.log_dir),
        }
        for name, text in self.fields.items():
            value = label(text, wrap=True, rich=name in LINKED)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
            value.setOpenExternalLinks(True)
            value.setAccessibleName(name)
            form.addRow(name, value)
        layout.addLayout(form)
        layout.addWidget(label("Licences of bundled assets", role="heading"))
        for what, parts in LICENCES:
            entry = label(f"{escape(what)}: {_link(assets.path(*parts))}", wrap=True, rich=True)
            entry.setOpenExternalLinks(True)
            layout.addWidget(entry)
        close = button("&Close", name="Close")
        close.clicked.connect(self.accept)
        layout.addWidget(close)
