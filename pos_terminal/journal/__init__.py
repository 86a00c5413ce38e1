"""The till's journal: the one SQLite file per profile that must survive a crash or a power cut, and its books.

:mod:`~pos_terminal.journal.journal` owns the file; each table is read and written by its own book (intents,
outbox, audit, cash sales, prints, people and shifts, the catalog's copy, the link to the store). The books use
the journal through :class:`~pos_terminal.journal.access.JournalAccess`. Every expected failure (a damaged file,
a full disk) is raised as a :class:`~pos_terminal.errors.UserError` carrying one plain sentence.
"""
