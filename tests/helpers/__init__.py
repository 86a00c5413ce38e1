"""Plain functions and data that several test modules share (fixtures live in the conftest.py files)."""
