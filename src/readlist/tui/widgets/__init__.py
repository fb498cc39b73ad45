"""The widgets of the main screen: the header, the search bar, the paper list and the detail pane."""
