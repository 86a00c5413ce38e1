"""``python -m pos_terminal``."""

import sys

from pos_terminal.cli import main

sys.exit(main())
