"""What goes wrong with the store database, as sentences a person can act on (the tree is drawn in
:mod:`pos_terminal.store.database`); :mod:`pos_terminal.store.connection` turns the drivers' errors into them."""

from __future__ import annotations

from pos_terminal.errors import UserError

FILE_HINT = "Check the disk and the folder the file is in."


class StoreDatabaseError(UserError):
    """Anything expected that goes wrong with the store database."""


class BadStoreAddress(StoreDatabaseError):
    hint = "Use postgresql://user@host:port/database or sqlite:///path/to/file."


class StoreUnavailable(StoreDatabaseError):
    """Cannot be reached or used just now; trying again later may work."""

    hint = "Check that the store's server is on and reachable from this till; the till keeps selling meanwhile."
    about = "store"


class StoreAccessDenied(StoreDatabaseError):
    hint = "Check the user name and password in the store settings."


class StoreTlsUnavailable(StoreDatabaseError):
    hint = "Turn on TLS on the server, or change sslmode in the address."


class StoreDatabaseMissing(StoreDatabaseError):
    hint = "Check the database name in the address, or create the database on the server."


class StoreSchemaMissing(StoreDatabaseError):
    hint = "Set it up once, from any till: pos-terminal store init URL."


class StoreSchemaBehind(StoreDatabaseError):
    hint = "Bring it up to date, from any till: pos-terminal store init URL."


class StoreSchemaTooNew(StoreDatabaseError):
    hint = "Update pos-terminal on this till."


class StoreDamaged(StoreDatabaseError):
    hint = "Restore the store database from a backup, or correct the row."


class StoreConflict(StoreDatabaseError):
    hint = "Choose another one."


class WrongTill(StoreDatabaseError):
    hint = "Each till writes only its own shifts, cash sales and audit entries."


class StoreCurrencyDiffers(StoreDatabaseError):
    """A till set to another currency than the store's: its money would be relabelled, not converted."""


class TillIdTaken(StoreDatabaseError):
    """Another till (another profile) of the store has this terminal id."""

    hint = "Choose another terminal id."
