"""The screens of the terminal UI: the main screen with its view state and collaborators, and the dialogs."""
