"""Run every GUI test in a process of its own, and sum up like pytest does.

Usage: ``python tests/ui/isolated.py [pytest args]``. A fresh process per test
gives each one a fresh QApplication and qasync loop, as the application has.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time


def collect(args: list[str]) -> list[str]:
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/ui", "--collect-only", "-q", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    return [line.strip() for line in listed.stdout.splitlines() if "::" in line]


def main(args: list[str]) -> int:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    tests = collect(args)
    passed, failed = 0, []
    started = time.monotonic()
    for node in tests:
        result = subprocess.run(
            [sys.executable, "-m", "pytest", node, "-q", "-p", "no:randomly", *[a for a in args if a.startswith("-o")]],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if result.returncode == 0:
            passed += 1
            print(f"PASSED {node}", flush=True)
        else:
            failed.append(node)
            print(
                f"FAILED {node} (exit {result.returncode})\n{result.stdout[-6000:]}{result.stderr[-3000:]}", flush=True
            )
    print(f"GUI tests, one process each, in {time.monotonic() - started:.0f} s:")
    print(f"{passed} passed, {len(failed)} failed")
    return 1 if failed or not tests else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
