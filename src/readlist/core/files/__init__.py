"""The file system underneath everything: where files live, atomic writes, the cache directory, the editor."""
