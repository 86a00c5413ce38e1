"""``python -m pos_terminal.sandbox``: same as ``pos-terminal sandbox``."""

import sys

from pos_terminal.sandbox.cli import main

sys.exit(main())
