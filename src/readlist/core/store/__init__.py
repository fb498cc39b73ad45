"""The annotation store: one TinyDB file, its layers, re-attachment, merging, drafts and progress."""
