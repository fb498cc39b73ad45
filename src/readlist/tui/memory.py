"""How the app's process gives memory it freed back to the system, where its C library lets it say so (glibc).

The app holds a 100k list's papers and search index for as long as it runs, and frees large blocks now and then
(a cache file's bytes once decoded, a search's scores once ranked). glibc serves a block of 128 KB or more from
its own mapping, freed back to the system at once, but each such block freed raises that size, up to 32 MB: after
a few, blocks of megabytes come from the heap, where a hole left by one freed below a block still held is never
given back. Holding the size where it starts kept about 40 MB (a tenth of the app) from staying with the process
at 100k papers. Through ctypes, from the standard library; with another C library nothing changes.
"""

from __future__ import annotations

import ctypes
import platform
import sys

M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h); setting it also stops glibc from raising it
MMAP_THRESHOLD = 128 * 1024  # glibc's own starting value


def _glibc():
    """The C library's functions when it is glibc, else None."""
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


def hold_mmap_threshold() -> bool:
    """Keep large blocks in mappings of their own, given back when freed; whether the C library took it."""
    libc = _glibc()
    mallopt = getattr(libc, "mallopt", None)
    return bool(mallopt is not None and mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def trim() -> None:
    """Give the free pages of every heap back to the system (after the background work has freed what it read)."""
    malloc_trim = getattr(_glibc(), "malloc_trim", None)
    if malloc_trim is not None:
        malloc_trim(0)
