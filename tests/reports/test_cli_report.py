"""``pos-terminal report`` and ``receipt`` against the scripted day: JSON figures, PDF files, the audit of copies."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from pos_terminal.cli import main
from pos_terminal.config import Settings, load_settings, save_settings, with_changes
from pos_terminal.paths import Paths
from tests.conftest import mint_token
from tests.helpers.http import http_client
from tests.reports.conftest import Day, expected_figures
from tests.sandbox.helpers import iso


@pytest.fixture
def cli(
    day: Day, tmp_path: Path, insecure_token_file: None, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, str, str]]:
    """Run the command line in this process against the day's sandbox, signed in as terminal LANE-1."""
    profile = tmp_path / "profile"
    save_settings(
        Paths.for_profile(profile).config_file, Settings(terminal_id="LANE-1", allow_insecure_token_file=True)
    )
    common = ["--profile", str(profile), "--service", day.server.url]

    def run(*args: str) -> tuple[int, str, str]:
        code = main([*args, *common])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    with http_client(base_url=day.server.url) as http:
        token = mint_token(http, expiresIn=0)
    assert run("login", f"--token={token}")  # a token may start with "-"[0] == 0
    return run


def test_report_json_per_terminal_and_merged(day: Day, cli: Callable[..., tuple[int, str, str]]) -> None:
    span = ("--from", iso(day.start), "--to", iso(day.end))
    code, out, _ = cli("report", *span, "--all", "--json")
    assert code == 0
    report: dict[str, Any] = json.loads(out)
    expected = expected_figures(day.records(), day.start, day.end)
    assert report["reconciled"] is True and report["production"] is False
    for row in report["rows"]:
        figures = {k: v for k, v in row["reported"].items() if k != "terminalId"}
        assert figures == expected[row["terminalId"]]
    assert report["refunds"] == [day.ids["B3"]] and report["openAuthorized"] == [day.ids["B9"]]

    code, out, _ = cli("report", *span, "--merge", "--json")
    merged = json.loads(out)["total"]["reported"]
    assert {k: v for k, v in merged.items() if k != "terminalId"} == expected_figures(
        day.records(), day.start, day.end, merge=True
    )[None]

    code, out, _ = cli("report", *span, "--for-terminal", "LANE-2", "--json")
    assert code == 0
    assert [row["terminalId"] for row in json.loads(out)["rows"]] == ["LANE-2"]
    assert json.loads(out)["terminalId"] == "LANE-1"  # made on this terminal, about another


def test_report_and_receipt_pdf_files_are_audited(
    day: Day, cli: Callable[..., tuple[int, str, str]], tmp_path: Path
) -> None:
    span = ("--from", iso(day.start), "--to", iso(day.end))
    a4, roll, slip = tmp_path / "day-a4.pdf", tmp_path / "day-roll.pdf", tmp_path / "receipt.pdf"
    code, out, err = cli("report", *span, "--all", "--pdf", str(a4))
    assert code == 0 and "Reconciled" in out and f"Saved {a4}" in err
    assert cli("report", *span, "--all", "--pdf", str(roll), "--layout", "roll")[0] == 0
    assert cli("receipt", day.ids["B1"], "--pdf", str(slip))[0] == 0
    for path in (a4, roll, slip):
        text = " ".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(path.read_bytes())).pages)
        assert "SANDBOX" in text and "Page 1 of" in text, path
    # the copies made are in the audit log of the period (journal time is the terminal's clock: now)
    now = datetime.now(UTC)
    code, out, _ = cli(
        "report", "--from", iso(now - timedelta(hours=1)), "--to", iso(now + timedelta(hours=1)), "--json"
    )
    actions = [entry["action"] for entry in json.loads(out)["audit"]]
    assert actions.count("report saved") == 2 and actions.count("receipt saved") == 1


def test_usage_mistakes_are_one_sentence(day: Day, cli: Callable[..., tuple[int, str, str]]) -> None:
    code, _, err = cli("report", "--for-terminal", "LANE-2", "--all")
    assert code == 1 and "Choose one of --for-terminal, --all, --merge or --store." in err
    code, _, err = cli("receipt", day.ids["B9"])
    assert code == 1 and "has no receipt" in err and "Traceback" not in err


def test_report_and_receipt_on_the_receipt_printer(
    day: Day, cli: Callable[..., tuple[int, str, str]], tmp_path: Path
) -> None:
    from pos_terminal.journal.journal import Journal
    from tests.devices.fake_printer import FakePrinter, Mode, QrCode, text_of

    fake = FakePrinter()
    try:
        code, _, err = cli("report", "--escpos")
        assert code != 0 and "No receipt printer is set up at this terminal." in err
        config = Paths.for_profile(tmp_path / "profile").config_file
        settings, _ = load_settings(config)
        save_settings(config, with_changes(settings, devices={"receipt_printer": fake.address}))
        span = ("--from", iso(day.start), "--to", iso(day.end))
        code, _, err = cli("report", *span, "--escpos")
        assert code == 0, err
        assert f"Printed on the receipt printer at 127.0.0.1:{fake.port}." in err
        fake.wait_for(fake.jobs)
        assert "Summary report" in text_of(fake.jobs()[0]) and "Terminal LANE-1" in text_of(fake.jobs()[0])

        fake.mode = Mode.NO_PAPER
        code, _, err = cli("receipt", day.ids["B3"], "--escpos")
        assert code != 0
        assert "The receipt printer is out of paper. 1 slip waiting" in err
        with Journal(Paths.for_profile(tmp_path / "profile").journal_file) as journal:
            [kept] = journal.prints.queued()
        assert kept.title == f"Receipt {day.ids['B3']}"
        fake.mode = Mode.READY
        code, _, err = cli("receipt", day.ids["B3"], "--escpos")
        assert code == 0, err
        fake.wait_for(lambda: len(fake.jobs()) == 3)
        receipts = fake.jobs()[1:]
        assert [[q.data for q in job if isinstance(q, QrCode)] for job in receipts] == [[day.ids["B3"]]] * 2
        assert "REFUNDED" in text_of(receipts[0])
    finally:
        fake.close()
