"""Async use cases joining api, store and domain; no Qt, no widgets."""
