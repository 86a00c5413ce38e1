"""The PyInstaller bundle, built from a clean copy of the tree and driven as a counter PC would be (make dist-test).

Not part of ``make test``: the build takes a minute or more. A fresh profile, offscreen, no keychain (the
profile opts in to the file store, as on a kiosk without one): setup, login --demo against a sandbox on
loopback (run by this test: the bundle leaves the sandbox out, and says so when asked for it), status --json,
report --pdf, then the window up to the cashier screen ready.
Prints the bundle's size and the build time; make dist-test then runs tests/bench/bench_startup.py on it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pypdf import PdfReader

from pos_terminal.sandbox import SandboxServer
from pos_terminal.version import version

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.environ.get("POS_DIST_TEST"), reason="builds the bundle: run make dist-test"),
    pytest.mark.timeout(1200),
]


def clean_tree(target: Path) -> Path:
    """The files git tracks, as they are in the work tree: no build/, dist/, caches or stray files."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 1_000_000


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("dist")
    tree = clean_tree(work / "tree")
    # make dist-test keeps it for the benchmark; PyInstaller runs in the copy, so the path is made absolute here
    out = Path(os.environ.get("POS_DIST_DIR") or work / "dist").resolve()
    started = time.monotonic()
    subprocess.run(
        [str(Path(sys.executable).parent / "pyinstaller"), "--noconfirm", "--clean", "--log-level", "WARN",
         "--distpath", str(out), "--workpath", str(work / "build"), str(tree / "packaging" / "pos-terminal.spec")],
        cwd=tree, check=True,
    )  # fmt: skip
    built = time.monotonic() - started
    folder = out / "pos-terminal"
    shutil.copy(tree / "packaging" / "linux" / "install.sh", folder)
    print(f"\nbundle {folder}: {size_mb(folder):.0f} MB, built in {built:.0f} s")
    return folder / "pos-terminal"


ENV = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}


def run(program: Path, *argv: str, profile: Path, code: int = 0) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(program), *argv, "--profile", str(profile)], env=ENV, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == code, f"{argv}: {done.stderr}"
    return done


def test_the_bundle_provisions_a_counter_pc_and_opens_the_window(
    bundle: Path, sandbox: SandboxServer, tmp_path: Path
) -> None:
    profile = tmp_path / "counter"
    shown = subprocess.run([str(bundle), "--version"], capture_output=True, text=True, check=True, env=ENV)
    assert shown.stdout.strip() == f"pos-terminal {version()}"

    run(bundle, "setup", "--region", "sandbox", "--terminal", "LANE-1", "--currency", "AUD", profile=profile)
    missing = run(bundle, "status", profile=profile, code=1)
    assert missing.stderr.strip().startswith("The embedded sandbox is not installed here"), missing.stderr
    run(bundle, "config", "set", "allow_insecure_token_file", "true", profile=profile)
    service = ("--service", sandbox.url)
    assert "Signed in." in run(bundle, "login", "--demo", *service, profile=profile).stdout
    status = json.loads(run(bundle, "status", "--json", *service, profile=profile).stdout)
    assert (status["terminalId"], status["session"], status["production"]) == ("LANE-1", "connected", False)
    pdf = tmp_path / "day.pdf"
    run(bundle, "report", "--pdf", str(pdf), *service, profile=profile)
    text = " ".join(page.extract_text() or "" for page in PdfReader(pdf).pages)
    assert "SANDBOX" in text and f"pos-terminal {version()}" in text, "fonts, resources and version are in the bundle"

    alone = subprocess.run([str(bundle), "sandbox", "--memory"], env=ENV, capture_output=True, text=True, timeout=60)
    assert alone.returncode == 1
    assert alone.stderr.strip().startswith("The embedded sandbox is not installed here"), alone.stderr

    log = profile / "logs" / "pos-terminal.log"
    # closed (SIGTERM) the moment it is ready, several times: an exit meeting work still under way aborted the
    # bundle now and then ("FATAL: exception not rethrown", a thread killed by the interpreter's exit)
    for start in range(1, 6):
        window = subprocess.Popen([str(bundle), "--profile", str(profile), "--service", sandbox.url], env=ENV)
        deadline = time.monotonic() + 90
        # painted first, then ready: the terminal's services (HTTP, models, journal, sign-in) loaded in the bundle
        while log_count(log, "cashier screen ready") < start:
            assert window.poll() is None and time.monotonic() < deadline, "the window never showed the cashier screen"
            time.sleep(0.005)
        assert log_count(log, "cashier screen shown") == start
        window.send_signal(signal.SIGTERM)
        assert window.wait(timeout=30) == 0, f"start {start}"
    assert not list((profile / "logs").glob("crash-*.txt")), "a clean close leaves no crash report"


def log_count(log: Path, said: str) -> int:
    return log.read_text().count(said) if log.exists() else 0


def test_the_bundle_runs_the_report_worker_it_spawns(bundle: Path) -> None:
    """The Reports tab makes each report in a spawned child (pos_terminal.reports.worker), which the bundle starts
    as itself with multiprocessing's arguments. It must run multiprocessing's child there, not the command line
    (which refused the arguments, so no report could be made in the bundle's window). A parent that has gone
    away at once: the child finds nothing to read from it."""
    read_end, write_end = os.pipe()
    os.close(write_end)
    child = subprocess.run(
        [str(bundle), "--multiprocessing-fork", f"pipe_handle={read_end}"],
        pass_fds=(read_end,), capture_output=True, text=True, timeout=60,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )  # fmt: skip
    os.close(read_end)
    assert "usage: pos-terminal" not in child.stderr
    assert "EOFError" in child.stderr, child.stderr


# How multiprocessing starts its fork server: the program, the interpreter's flags, then -c and this import. In the
# bundle these are the flags PyInstaller's bootloader runs Python with (isolated, no site, no bytecode), and its hook
# runs the command only after exactly those.
FORK_SERVER = "from multiprocessing.forkserver import main"
BUNDLE_FLAGS = ("-I", "-S", "-B")
FORKED_REPORT_CHILD = """
import asyncio


async def ask() -> None:  # run by exec() inside a function of the hook: what it uses, it imports itself
    import asyncio

    from pos_terminal.reports.worker import ReportWorker

    loaded = "'pos_terminal.reports.warm' in __import__('sys').modules and __import__('pos_terminal.reports.fonts')"
    worker = ReportWorker()
    try:
        ready = await asyncio.wrap_future(worker._executor().submit(eval, loaded + ".reports.fonts._registered"))
        print("child ready:", ready, flush=True)
    finally:
        worker.close()


asyncio.run(ask())
"""


def test_the_bundle_forks_report_children_from_its_fork_server(bundle: Path) -> None:
    """The Reports tab's children come from multiprocessing's fork server (pos_terminal.reports.worker), which the
    bundle starts as itself with the server's command: it must run the server there, load the report modules and the
    fonts from the bundle, and fork a child that has them. Run here as the bundle runs it, from a bundled process."""
    done = subprocess.run(
        [str(bundle), *BUNDLE_FLAGS, "-c", FORK_SERVER + "\n" + FORKED_REPORT_CHILD],
        capture_output=True, text=True, timeout=120, env=ENV,
    )  # fmt: skip
    assert "usage: pos-terminal" not in done.stderr, "the bundle's flags are not these: " + done.stderr[-2000:]
    assert done.returncode == 0, done.stderr[-2000:]
    assert "child ready: True" in done.stdout, done.stdout + done.stderr[-2000:]
