"""Every path the terminal uses, under one base directory.

By default the platform's directories (platformdirs); ``--profile DIR`` puts
config, data and logs under DIR instead, so several terminals (or tests) can
run side by side on one machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import platformdirs

from pos_terminal.errors import ConfigError

APP_NAME = "pos-terminal"


@dataclass(frozen=True)
class Paths:
    config_dir: Path
    data_dir: Path
    log_dir: Path

    @classmethod
    def default(cls) -> Paths:
        return cls(
            config_dir=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
            data_dir=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
            log_dir=Path(platformdirs.user_log_dir(APP_NAME, appauthor=False)),
        )

    @classmethod
    def profile(cls, base: Path) -> Paths:
        base = base.expanduser().resolve()
        return cls(config_dir=base / "config", data_dir=base / "data", log_dir=base / "logs")

    @classmethod
    def for_profile(cls, base: Path | None) -> Paths:
        return cls.default() if base is None else cls.profile(base)

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.toml"

    @property
    def regions_file(self) -> Path:
        """A user's copy of the region table, which overrides the shipped one when present."""
        return self.config_dir / "regions.json"

    @property
    def journal_file(self) -> Path:
        return self.data_dir / "journal.sqlite3"

    @property
    def sandbox_db(self) -> Path:
        return self.data_dir / "sandbox.sqlite3"

    @property
    def sign_in_lock(self) -> Path:
        """Taken by whichever process of the profile renews the sign-in (holds no data)."""
        return self.data_dir / "sign-in.lock"

    @property
    def insecure_token_file(self) -> Path:
        """Only used when the user opts in to storing the sign-in outside the keychain."""
        return self.data_dir / "tokens.json"

    @property
    def keychain_file(self) -> Path:
        """Which keychain backend this user's session has (a class name; see pos_terminal.keychain.backend)."""
        return self.data_dir / "keychain.json"

    @property
    def money_file(self) -> Path:
        """How amounts are written here, as Babel told an earlier start (see pos_terminal.disk.money_memory)."""
        return self.data_dir / "money-format.json"

    @property
    def prints_dir(self) -> Path:
        """Where the PDF-file printer Settings offers saves each print, a file of its own (no printer needed)."""
        return self.data_dir / "prints"

    @property
    def log_file(self) -> Path:
        return self.log_dir / "pos-terminal.log"

    def ensure(self) -> Paths:
        """Create the directories; :class:`ConfigError` when the disk refuses (read-only, no permission, full)."""
        for directory in (self.config_dir, self.data_dir, self.log_dir):
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ConfigError(
                    f"The folder {directory} cannot be created ({exc.strerror or exc}).",
                    hint="Choose a profile folder this user can write to (--profile DIR), or check the disk.",
                ) from exc
        return self
