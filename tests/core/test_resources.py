"""The application's assets: found from the tree, valid desktop entry and AppStream metainfo, icons in place."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pos_terminal import assets

APP_ID = "net.posterminal.PosTerminal"
TOOLS = "make desktop-tools (apt-get install desktop-file-utils appstream)"


def test_the_resources_folder_is_the_top_level_one_in_a_checkout() -> None:
    assert assets.folder() == Path(__file__).resolve().parents[2] / "resources"
    for needed in ("catalog.json", "regions.json", "style.qss", "fonts/DejaVuSans.ttf", "icons/pos-terminal.svg"):
        assert assets.path(*needed.split("/")).is_file(), needed


@pytest.mark.skipif(not shutil.which("desktop-file-validate"), reason=f"no desktop-file-validate: {TOOLS}")
def test_the_desktop_entry_is_valid() -> None:
    entry = assets.path("linux", f"{APP_ID}.desktop")
    done = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
    assert f"Icon={APP_ID}" in entry.read_text()


@pytest.mark.skipif(not shutil.which("appstreamcli"), reason=f"no appstreamcli: {TOOLS}")
def test_the_appstream_metainfo_is_valid() -> None:
    metainfo = assets.path("linux", f"{APP_ID}.metainfo.xml")
    done = subprocess.run(
        ["appstreamcli", "validate", "--no-net", str(metainfo)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f'<launchable type="desktop-id">{APP_ID}.desktop</launchable>' in metainfo.read_text()


def test_the_install_script_puts_everything_in_place_for_the_user(tmp_path: Path) -> None:
    """install.sh run from a folder shaped like the bundle, with HOME in tmp_path."""
    root = Path(__file__).resolve().parents[2]
    bundle = tmp_path / "unpacked" / "pos-terminal"
    shutil.copytree(root / "resources", bundle / "_internal" / "pos_terminal" / "resources")
    shutil.copy(root / "packaging" / "linux" / "install.sh", bundle)
    program = bundle / "pos-terminal"
    program.write_text("#!/bin/sh\necho pos-terminal 9.9\n")
    program.chmod(0o755)
    home = tmp_path / "home"
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([str(bundle / "install.sh")], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert "pos-terminal 9.9 installed" in done.stdout
    share = home / ".local" / "share"
    desktop = (share / "applications" / f"{APP_ID}.desktop").read_text()
    assert f"Exec={home}/.local/lib/pos-terminal/pos-terminal" in desktop
    assert (
        home / ".local" / "bin" / "pos-terminal"
    ).resolve() == home / ".local" / "lib" / "pos-terminal" / "pos-terminal"
    assert (share / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()
    for size in (48, 128, 256):
        assert (share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png").is_file()
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").is_file()
    removed = subprocess.run([str(bundle / "install.sh"), "--uninstall"], env=env, capture_output=True, check=False)
    assert removed.returncode == 0 and not (share / "applications" / f"{APP_ID}.desktop").exists()
