"""Soak tests: the terminal driven through a long, compressed day, with its resources watched throughout."""
