"""The modal dialogs of the terminal UI."""
