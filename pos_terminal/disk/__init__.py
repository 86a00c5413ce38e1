"""What the journal, the keychain and the store use of this machine's disk.

SQLite connections as the terminal wants them, and their migrations (:mod:`~pos_terminal.disk.sqlite`); the lock
between the processes of one profile (:mod:`~pos_terminal.disk.locks`); small answers an earlier start found,
remembered for later starts (:mod:`~pos_terminal.disk.remembered`, :mod:`~pos_terminal.disk.money_memory`).
"""
