"""Getting papers and notes out: export formats and writing them to files."""
