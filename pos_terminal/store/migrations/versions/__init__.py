"""The revisions, oldest first by number; Alembic reads the order from each file's ``down_revision``."""
