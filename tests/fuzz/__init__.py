"""make fuzz (not part of make test)."""
