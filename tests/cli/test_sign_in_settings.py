"""``login`` and ``status`` with the region's sign-in settings: endpoints, scopes, a sign-in that cannot renew."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pos_terminal.config import load_settings
from pos_terminal.paths import Paths
from pos_terminal.sandbox import SandboxServer
from pos_terminal.services.terminal import Terminal, resolve_service
from tests.api.fake_service import FakeService, signs_in_without_refresh
from tests.cli.conftest import CLI, write_config
from tests.conftest import finish_at_once


def test_a_wrong_sign_in_path_is_said_as_such_naming_the_address(
    cli: CLI, profile: Path, sandbox: SandboxServer
) -> None:
    """A 404 from a wrong authorization path printed "The service does not know that transaction…"."""
    write_config(
        profile,
        terminal_id="LANE-CLI",
        **{"auth.service": {"device_authorization_endpoint": "/oauth/device", "token_endpoint": "/oauth/token"}},
    )
    failed = cli("login")
    assert failed.code == 1
    assert failed.err_lines == [
        f"The authorization server has no sign-in address at {sandbox.url}/oauth/device (HTTP 404). "
        "Check the region's auth address, or set the sign-in endpoints of the region in the settings."
    ]


def test_scopes_are_a_setting_of_the_region(cli: CLI, profile: Path, sandbox: SandboxServer) -> None:
    write_config(profile, terminal_id="LANE-CLI", **{"auth.service": {"scope": "posapi offline_access"}})
    failed = cli("login")
    assert failed.code == 1
    said = failed.err_lines[0]
    assert said.startswith("The authorization server does not grant the scopes this terminal asks for")
    assert f"({sandbox.url}/v1/device_authorization)" in said, "the sandbox has no offline_access: invalid_scope"


def test_status_says_when_a_sign_in_without_refresh_token_ends(
    cli: CLI, profile: Path, fake_service: FakeService
) -> None:
    signs_in_without_refresh(fake_service)
    paths = Paths.profile(profile)
    settings, _ = load_settings(paths.config_file)

    async def sign_in() -> str:
        terminal = Terminal(paths, settings, resolve_service(settings, paths, service_url=fake_service.url))
        try:
            await finish_at_once(terminal.session, await terminal.session.start_device_sign_in())
            ends = terminal.session.ends_at
            assert ends is not None
            return ends.astimezone().strftime("%Y-%m-%d %H:%M")
        finally:
            await terminal.aclose()

    ends = asyncio.run(sign_in())
    status = cli("status", service=fake_service.url)
    assert status.code == 0
    lines = [line for line in status.out.splitlines() if "cannot be renewed" in line]
    assert lines == [
        f"Sign-in:     This sign-in ends at {ends} and cannot be renewed: the service gave no refresh token. "
        "Sign in again then (some services renew only with the scope offline_access; see auth.REGION.scope)."
    ], "said once"
    assert cli("status", json=True, service=fake_service.url).data["signInEnds"]


def test_a_region_s_sign_in_settings_are_listed_set_and_unset_like_the_others(
    capsys: pytest.CaptureFixture[str], profile: Path
) -> None:
    """`config list` ended in a traceback (RegionAuth is not JSON) on a profile with the [auth.custom] table the
    README documents, and `config set auth.custom.scope` was refused."""
    from pos_terminal.cli import main

    write_config(profile, terminal_id="LANE-CLI", **{"auth.custom": {"scope": "openid pos"}})

    def config(*command: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["config", *command, "--profile", str(profile)])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    code, out, _ = config("list", "--json")
    assert code == 0
    listed = json.loads(out)
    assert listed["auth.custom.scope"] == "openid pos" and listed["auth.custom.discovery"] is True
    assert config("set", "auth.custom.scope", "openid posapi")[0] == 0
    assert config("get", "auth.custom.scope")[1].strip() == "openid posapi"
    assert config("set", "auth.lab.token_endpoint", "/oauth/token")[0] == 0  # a region's first sign-in setting
    settings, _ = load_settings(Paths.profile(profile).config_file)
    assert settings.auth["lab"].token_endpoint == "/oauth/token" and settings.auth["lab"].scope == "posapi"
    assert config("unset", "auth.custom.scope")[0] == 0
    assert config("get", "auth.custom.scope")[1].strip() == "posapi"
    code, _, err = config("set", "auth.custom.colour", "red")
    assert code == 1 and "There is no setting “auth.custom.colour”" in err
    code, _, err = config("set", "auth.custom.scope", "café")
    assert code == 1 and "auth.custom.scope" in err
