"""How the app's process hands memory it freed back to the system, where its C library lets it say so (glibc).

While a list is read and indexed, large blocks are made and freed once (a cache file's bytes, a worker's part of
the index, arrays grown as they are filled). glibc serves a block of 128 KB or more from a mapping of its own,
given back when freed, but each such block freed raises that size (up to 32 MB): later blocks of megabytes then
come from its heaps, where a hole left below a block still held is never given back. So while a list loads the
size is held at 2 MB (`loading`; at 128 KB each megabyte of the paper file read made a mapping of its own, 0.3 s
of system CPU more to read 100k papers); once it is loaded it is set where glibc would have raised it (`loaded`),
as every search makes and frees blocks of megabytes that a mapping of their own would cost a fault per page each
time (about 10 ms of system CPU a search at 100k papers). One heap serves every thread: a heap per thread (the
search's, the UI's) kept each one's holes apart. At 100k papers typing peaks 60 MB lower, a new list's start 60 MB.
Through ctypes, from the standard library; with another C library nothing changes.
"""

from __future__ import annotations

import ctypes
import platform
import sys
from functools import cache

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8  # mallopt's parameters (malloc.h)
LOADING = 2 * 1024 * 1024  # a block of its own from this size (the file's megabyte read at a time comes from the heap)
LOADED = 32 * 1024 * 1024  # the most glibc raises it to by itself
TRIM = 2 * LOADED  # free memory at the top of the heap kept, as glibc keeps it beside LOADED


@cache
def _glibc():
    """The C library's functions when it is glibc, else None."""
    if not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


def _set(parameter: int, value: int) -> bool:
    mallopt = getattr(_glibc(), "mallopt", None)
    return bool(mallopt is not None and mallopt(parameter, value))


def loading() -> bool:
    """A list is about to be read or indexed: large blocks get mappings of their own, and every thread shares one
    heap (only heaps not made yet: call it before the app starts threads). Whether the C library took it."""
    return _set(M_ARENA_MAX, 1) and _set(M_MMAP_THRESHOLD, LOADING) and _set(M_TRIM_THRESHOLD, 2 * LOADING)


def loaded() -> None:
    """The list is loaded: blocks under LOADED come from the heap again, and what loading freed is given back."""
    _set(M_MMAP_THRESHOLD, LOADED)
    _set(M_TRIM_THRESHOLD, TRIM)
    malloc_trim = getattr(_glibc(), "malloc_trim", None)
    if malloc_trim is not None:
        malloc_trim(0)
