"""What the windows need from the application around them, passed in (no global registry)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pos_terminal.config import Settings
    from pos_terminal.paths import Paths
    from pos_terminal.services.terminal import Terminal


class Host(Protocol):
    """The composition root as the windows see it (implemented in ``pos_terminal.app``)."""

    paths: Paths
    first_launch: bool
    crash_notice: str | None  # one sentence when the run before this one ended abnormally
    terminal: Terminal | None

    @property
    def settings(self) -> Settings:
        """The settings; read when first asked for, which the first screen does not do."""
        ...

    def region_choices(self) -> list[tuple[str, str]]:
        """(key, name) of every region the terminal can use, the embedded sandbox first."""
        ...

    def save_settings(self, settings: Settings) -> None: ...

    async def connect(self) -> Terminal:
        """The terminal for the current settings (rebuilt when they changed; starts the sandbox if needed)."""
        ...

    async def aclose(self) -> None: ...
