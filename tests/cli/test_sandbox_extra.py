"""The sandbox is an extra (``pos-terminal[sandbox]``): without it, asking for it is one sentence, not a traceback.

Each run is a fresh interpreter in which the sandbox's libraries cannot be imported, as on a machine (or in the
bundle) where only the terminal is installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import write_config

ROOT = Path(__file__).resolve().parents[2]
SENTENCE = (
    "The embedded sandbox is not installed here: install pos-terminal[sandbox], "
    "or set up a real service with `pos-terminal setup`."
)
# a finder ahead of every other that refuses the sandbox extra's libraries, then the command line
WITHOUT_SANDBOX = """
import sys
from importlib.abc import MetaPathFinder

class NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("fastapi", "starlette", "uvicorn", "jinja2", "multipart", "python_multipart"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
from pos_terminal.cli import main
sys.exit(main(sys.argv[1:]))
"""


def without_sandbox(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_SANDBOX, *argv], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["sandbox", "--memory"], id="sandbox-command"),
        pytest.param(["status"], id="embedded-region"),
        pytest.param(["login", "--demo"], id="sign-in-with-the-embedded-region"),
    ],
)
def test_without_the_sandbox_extra_asking_for_it_is_one_sentence(argv: list[str], tmp_path: Path) -> None:
    profile = tmp_path / "lane"
    write_config(profile, terminal_id="LANE-1")  # the region is the embedded sandbox, as on a fresh machine
    args = argv if argv[0] == "sandbox" else [*argv, "--profile", str(profile)]
    done = without_sandbox(*args)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip() == SENTENCE
    assert "Traceback" not in done.stdout + done.stderr


def test_without_the_sandbox_extra_the_rest_of_the_command_line_works(tmp_path: Path) -> None:
    profile = tmp_path / "lane"
    setup = ["setup", "--region", "custom", "--terminal", "LANE-1", "--profile", str(profile)]
    urls = ["--auth-url", "https://auth.example.test", "--pos-url", "https://pos.example.test"]
    assert without_sandbox(*setup, *urls).returncode == 0
    shown = without_sandbox("config", "list", "--profile", str(profile))
    assert shown.returncode == 0, shown.stderr
    assert "LANE-1" in shown.stdout
