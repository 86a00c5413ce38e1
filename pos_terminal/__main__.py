"""``python -m pos_terminal``, and the PyInstaller bundle's entry point."""

import sys

if getattr(sys, "frozen", False):  # the bundle
    import multiprocessing

    # The Reports tab makes each report in a spawned child (pos_terminal.reports.worker), which the bundle starts
    # as itself with multiprocessing's arguments: it runs the child here, never the command line.
    multiprocessing.freeze_support()

from pos_terminal.cli import main  # after the bundle's child process is taken care of

sys.exit(main())
