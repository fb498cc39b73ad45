"""Deriving a one-line title from an abstract that has none, and the parts that do it."""
