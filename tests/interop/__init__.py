"""Interoperability with implementations nobody here wrote."""
