"""Settings: defaults on first launch, round trip, upgrades, and bad files that say so."""

from __future__ import annotations

from pathlib import Path

import pytest

from pos_terminal import config
from pos_terminal.config import Settings, load_settings, save_settings
from pos_terminal.errors import ConfigError
from pos_terminal.paths import Paths


def test_first_launch_gives_defaults_for_the_embedded_sandbox(tmp_path: Path) -> None:
    settings, existed = load_settings(tmp_path / "config.toml")
    assert not existed
    assert settings.region == "sandbox"
    assert settings.terminal_id == "", "no terminal id is guessed (from the host name or anything else)"


def test_settings_round_trip_through_toml(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    settings = Settings(region="uk", terminal_id="LANE-2", currency="gbp", routes={"create_transaction": "POST /tx"})
    save_settings(path, settings)
    loaded, existed = load_settings(path)
    assert existed
    assert loaded == settings
    assert loaded.currency == "GBP"


def test_unknown_key_and_bad_value_are_clear_errors(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'schema_version = 1\nterminal_id = "{"X" * 65}"\n')
    with pytest.raises(ConfigError, match="terminal_id"):
        load_settings(path)
    path.write_text("schema_version = 1\nfavourite_colour = 'blue'\n")
    with pytest.raises(ConfigError, match="favourite_colour"):
        load_settings(path)
    path.write_text("this is [not toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(path)


def test_newer_schema_is_refused_and_older_is_upgraded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.toml"
    path.write_text("schema_version = 99\n")
    with pytest.raises(ConfigError, match="newer version"):
        load_settings(path)

    def rename_station(data: dict[str, object]) -> dict[str, object]:
        data["terminal_id"] = data.pop("station")
        return data

    monkeypatch.setattr(config, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(config._UPGRADES, 1, rename_station)
    path.write_text('schema_version = 1\nstation = "OLD-1"\n')
    loaded, _ = load_settings(path)
    assert loaded.terminal_id == "OLD-1"
    assert loaded.schema_version == 2


def test_profile_puts_everything_under_one_directory(tmp_path: Path) -> None:
    paths = Paths.profile(tmp_path / "lane1").ensure()
    for path in (paths.config_file, paths.journal_file, paths.sandbox_db, paths.log_file, paths.insecure_token_file):
        assert tmp_path / "lane1" in path.parents
    assert paths.config_dir.is_dir()


def test_changes_are_validated_like_a_loaded_file() -> None:
    from pos_terminal.config import Settings, basic_choices, with_changes
    from pos_terminal.errors import ConfigError

    settings = with_changes(Settings(), terminal_id="LANE-2", currency="nzd")
    assert (settings.terminal_id, settings.currency) == ("LANE-2", "NZD")
    with pytest.raises(ConfigError, match="terminal_id"):
        with_changes(Settings(), terminal_id="X" * 65)
    with pytest.raises(ConfigError, match="terminal id is empty"):
        basic_choices("  ", "en_AU", "AUD")
    with pytest.raises(ConfigError, match="currency"):
        basic_choices("LANE-1", "en_AU", "XYZ")


def test_a_profile_keeps_one_install_identity_and_an_older_one_gets_its_own_at_its_first_start(
    tmp_path: Path,
) -> None:
    new = tmp_path / "new.toml"
    save_settings(new, Settings(terminal_id="CAFE-1"))
    made = load_settings(new)[0].install_id
    assert made and load_settings(new)[0].install_id == made, "made once, with the settings"
    assert Settings().install_id != Settings().install_id, "each profile its own"

    older = tmp_path / "older.toml"
    older.write_text('schema_version = 1\nterminal_id = "CAFE-1"\n')  # written before install identities
    first_start = load_settings(older)[0].install_id
    assert f'install_id = "{first_start}"' in older.read_text(), "kept from its first start"
    assert load_settings(older)[0].install_id == first_start
    assert load_settings(older)[0].terminal_id == "CAFE-1"
