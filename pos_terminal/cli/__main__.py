"""``python -m pos_terminal.cli``, as the single module it replaces ran: the same as ``python -m pos_terminal``."""

import sys

from pos_terminal.cli import main

sys.exit(main())
