"""Provisioning a counter PC from the command line: setup, config, one sign-in per profile, the nightly report.

Every command runs in this process on one profile, as an IT person's script and a cron job would;
``--terminal`` is never repeated after ``setup``. The report is printed through Qt to a cups-pdf
queue when this machine has one, else to Qt's own PDF output (``--printer pdf:FILE``), as in
tests/reports/test_printing.py.
"""

from __future__ import annotations

import io
import json
import logging
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pypdf import PdfReader

from pos_terminal.cli import main
from pos_terminal.keychain.tokens import SERVICE
from pos_terminal.sandbox import SandboxServer
from tests.cli.conftest import Run
from tests.conftest import mint_token
from tests.helpers.reports import cups_pdf_queue
from tests.keyrings import MemoryKeyring

Command = Callable[..., Run]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], memory_keyring: MemoryKeyring) -> Command:
    """``run(*argv)``: the command line in this process, exactly as given (no profile or service added)."""

    def command(*argv: str) -> Run:
        capsys.readouterr()
        code = main(list(argv))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return command


def one_sentence(run: Run, says: str) -> None:
    assert run.code != 0 and run.out == "", run
    assert "Traceback" not in run.err, run.err
    assert len(run.err_lines) == 1 and says in run.err_lines[0], run.err


def config(profile: Path) -> dict[str, Any]:
    return tomllib.loads((profile / "config" / "config.toml").read_text(encoding="utf-8"))


def test_setup_login_and_the_nightly_report_printed_on_one_profile(
    run: Command, tmp_path: Path, sandbox: SandboxServer, client: httpx.Client, memory_keyring: MemoryKeyring
) -> None:
    profile, service = str(tmp_path / "counter"), sandbox.url
    queue = cups_pdf_queue()
    printed = tmp_path / "printed" / "report.pdf"
    printer = queue or f"pdf:{printed}"

    done = run("setup", "--region", "sandbox", "--terminal", "LANE-7", "--locale", "en_GB", "--currency", "gbp",
               "--printer", printer, "--profile", profile)  # fmt: skip
    assert done.code == 0, done.err
    written = config(Path(profile))
    assert (written["terminal_id"], written["locale"], written["currency"], written["printer"]) == (
        "LANE-7", "en_GB", "GBP", printer,
    )  # fmt: skip

    signed = run("login", "--token", mint_token(client, expiresIn=0), "--profile", profile, "--service", service)
    assert signed.code == 0, signed.err
    status = run("status", "--json", "--profile", profile, "--service", service)
    assert (json.loads(status.out)["terminalId"], json.loads(status.out)["session"]) == ("LANE-7", "connected")

    report = run("report", "--print", "--profile", profile, "--service", service)
    assert report.code == 0, report.err
    assert "LANE-7" in report.out and f"Printed on {printer}." in report.err
    if queue is None:
        pages = PdfReader(io.BytesIO(printed.read_bytes())).pages
        assert len(pages) >= 1 and pages[0].mediabox.width == pytest.approx(595, abs=2)
    audit = run("report", "--json", "--profile", profile, "--service", service)
    assert [e["action"] for e in json.loads(audit.out)["audit"]].count("report printed") == 1

    other = run("report", "--for-terminal", "LANE-2", "--json", "--profile", profile, "--service", service)
    assert [row["terminalId"] for row in json.loads(other.out)["rows"]] == ["LANE-2"]
    assert json.loads(other.out)["terminalId"] == "LANE-7"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (("--region", "mars", "--terminal", "LANE-1"), "The region “mars” is unknown. Choose one of sandbox,"),
        (("--region", "sandbox", "--terminal", "  "), "The terminal id is empty."),
        (("--region", "sandbox", "--terminal", "L" * 65), "“terminal_id” is invalid"),
        (("--region", "sandbox", "--terminal", "LANE-1", "--currency", "XYZ"), "XYZ"),
        (("--region", "sandbox", "--terminal", "LANE-1", "--printer", "no-such-printer"), "no printer called"),
        (("--region", "custom", "--terminal", "LANE-1"), "Custom addresses need at least the auth and POS API"),
        (("--region", "custom", "--terminal", "LANE-1", "--auth-url", "https://a", "--pos-url", "ftp://p"), "ftp://p"),
    ],
    ids=["region", "empty-id", "long-id", "currency", "printer", "custom-without-addresses", "custom-bad-address"],
)
def test_a_bad_setup_is_one_sentence_and_writes_nothing(
    run: Command, tmp_path: Path, argv: tuple[str, ...], says: str
) -> None:
    refused = run("setup", *argv, "--profile", str(tmp_path / "p"))
    one_sentence(refused, says)
    assert not (tmp_path / "p" / "config" / "config.toml").exists()


def test_config_list_get_set_and_unset(run: Command, tmp_path: Path) -> None:
    profile = str(tmp_path / "p")
    assert run("setup", "--region", "sandbox", "--terminal", "LANE-1", "--profile", profile).code == 0
    listed = json.loads(run("config", "list", "--json", "--profile", profile).out)
    assert listed["terminal_id"] == "LANE-1" and listed["custom_urls.auth_url"] == "" and "schema_version" not in listed
    assert run("config", "get", "terminal_id", "--profile", profile).out == "LANE-1\n"

    assert run("config", "set", "auto_cancel_hint_seconds", "120", "--profile", profile).code == 0
    assert run("config", "set", "routes.summary", "/summary", "--profile", profile).code == 0
    assert run("config", "set", "region", "anz", "--profile", profile).code == 0
    assert (config(Path(profile))["auto_cancel_hint_seconds"], config(Path(profile))["routes"]) == (
        120, {"summary": "/summary"},
    )  # fmt: skip
    assert run("config", "unset", "auto_cancel_hint_seconds", "--profile", profile).code == 0
    assert json.loads(run("config", "get", "auto_cancel_hint_seconds", "--json", "--profile", profile).out) == 300

    one_sentence(run("config", "set", "region", "mars", "--profile", profile), "The region “mars” is unknown.")
    one_sentence(run("config", "set", "currency", "XYZ", "--profile", profile), "XYZ")
    one_sentence(run("config", "set", "colour", "red", "--profile", profile), "There is no setting “colour”.")
    one_sentence(run("config", "set", "auto_cancel_hint_seconds", "soon", "--profile", profile), "is invalid")
    assert config(Path(profile))["region"] == "anz", "a refused change leaves the file as it was"


def test_a_custom_region_is_set_up_with_its_addresses_in_one_command(run: Command, tmp_path: Path) -> None:
    """`setup --region custom` took no addresses, and `config set custom_urls.…` then refused each one alone."""
    profile = str(tmp_path / "p")
    urls = ("--auth-url", "https://auth.shop.example", "--pos-url", "https://pos.shop.example/v4")
    assert run("setup", "--region", "custom", "--terminal", "LANE-1", *urls, "--profile", profile).code == 0
    written = config(Path(profile))
    assert (written["region"], written["custom_urls"]["pos_url"]) == ("custom", "https://pos.shop.example/v4")
    assert run("config", "set", "custom_urls.payments_url", "https://pay.shop.example", "--profile", profile).code == 0
    one_sentence(
        run("config", "set", "custom_urls.auth_url", "", "--profile", profile), "Custom addresses need at least"
    )


def test_the_old_terminal_flag_is_refused_with_the_new_spellings(run: Command, tmp_path: Path) -> None:
    refused = run("status", "--terminal", "LANE-2", "--profile", str(tmp_path / "p"))
    one_sentence(refused, "--terminal no longer chooses the terminal")
    assert "setup --terminal ID" in refused.err and "report --for-terminal ID" in refused.err


def test_a_sign_in_belongs_to_one_profile(
    run: Command, tmp_path: Path, sandbox: SandboxServer, client: httpx.Client, memory_keyring: MemoryKeyring
) -> None:
    """Two profiles with the same region and terminal id: signing in on one leaves the other signed out."""
    first, second = str(tmp_path / "first"), str(tmp_path / "second")
    for profile in (first, second):
        assert run("setup", "--region", "sandbox", "--terminal", "VM", "--profile", profile).code == 0
    service = ("--service", sandbox.url)
    assert run("login", "--token", mint_token(client, expiresIn=0), "--profile", first, *service).code == 0
    assert json.loads(run("status", "--json", "--profile", first, *service).out)["session"] == "connected"
    assert json.loads(run("status", "--json", "--profile", second, *service).out)["session"] == "signed out"
    assert run("logout", "--profile", second, *service).code == 0
    assert json.loads(run("status", "--json", "--profile", first, *service).out)["session"] == "connected"


def test_a_sign_in_kept_under_the_old_shared_key_moves_to_the_profile_that_made_it(
    run: Command, tmp_path: Path, sandbox: SandboxServer, client: httpx.Client, memory_keyring: MemoryKeyring
) -> None:
    made_it, fresh = str(tmp_path / "made-it"), str(tmp_path / "fresh")
    service = ("--service", sandbox.url)
    for profile in (made_it, fresh):
        assert run("setup", "--region", "sandbox", "--terminal", "VM", "--profile", profile).code == 0
    assert run("login", "--token", mint_token(client, expiresIn=0), "--profile", made_it, *service).code == 0
    # as an earlier release kept it: under "<service>|<terminal>", shared by every profile
    [(key, secret)] = list(memory_keyring.secrets.items())
    memory_keyring.secrets = {(SERVICE, f"service:{sandbox.url}|VM"): secret}

    assert json.loads(run("status", "--json", "--profile", fresh, *service).out)["session"] == "signed out"
    assert json.loads(run("status", "--json", "--profile", made_it, *service).out)["session"] == "connected"
    assert list(memory_keyring.secrets) == [key], "moved to this profile's key, the shared one gone"
    assert run("customers", "--json", "--profile", made_it, *service).code == 0


def test_version_comes_from_the_package_metadata(run: Command, capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as shown:
        main(["--version"])
    assert shown.value.code == 0
    assert capsys.readouterr().out.strip() == f"pos-terminal {version('pos-terminal')}"


def test_the_log_never_holds_a_token(
    run: Command, tmp_path: Path, sandbox: SandboxServer, client: httpx.Client
) -> None:
    profile, service = str(tmp_path / "p"), ("--service", sandbox.url)
    token = mint_token(client)
    assert run("setup", "--region", "sandbox", "--terminal", "LANE-1", "--profile", profile).code == 0
    assert run("login", "--token", token, "--profile", profile, *service).code == 0
    assert run("customers", "--profile", profile, *service).code == 0
    noisy = logging.getLogger("pos_terminal.api")
    noisy.warning("sent Authorization: Bearer %s", token)
    try:
        raise RuntimeError(f'refresh failed: {{"accessToken": "{token}", "refresh_token": "{token}"}}')
    except RuntimeError:
        noisy.exception("refresh")
    logged = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "p" / "logs").glob("pos-terminal.log*"))
    assert "pos-terminal customers started" in logged and "Bearer ***" in logged
    assert token not in logged
