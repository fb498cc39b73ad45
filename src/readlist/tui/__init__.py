"""The terminal UI: a Textual app over readlist.core; it reads and changes data only through the core's Store."""
