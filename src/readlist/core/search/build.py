"""Building a list's search index in worker processes: its papers in parts, each part indexed by a Python process of
its own (one per core, up to PROCESSES), the parts then merged into one index.

Indexing 100k papers takes about 11 CPU seconds of Python. In a thread of the app's own process it would share the
interpreter with the UI (each key waiting its turn) and use one core; in worker processes it leaves the UI alone and
uses every core. A small list is indexed in the calling thread: starting processes would cost it more. A worker is
`python -m readlist.core.search.build`, fed its papers' rows and answering with its part's index, both pickled over
its pipes (it imports no module of the caller's program, as multiprocessing's would). Each worker indexes its rows
as they arrive, and is written to whenever its pipe has room, so that all of them start at once and none waits on
another.
"""

from __future__ import annotations

import os
import pickle
import selectors
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import suppress
from pathlib import Path

from ..papers.paper import Paper
from .postings import BuildCancelled, IndexData, Row, build_rows, merge, rows

PROCESSES = 4  # worker processes at most (the machine's cores, if fewer)
IN_PROCESS_BELOW = 5_000  # papers: a smaller list is indexed in the calling thread (half a second at most)
BATCH = 1_000  # rows pickled at a time: the caller never holds the interpreter long while sending them
WAIT = 0.1  # seconds between looks at `cancelled` while the workers index


def build(papers: Sequence[Paper], cancelled: threading.Event | None = None, early: Early | None = None) -> IndexData:
    """The index data of the papers; raises BuildCancelled if `cancelled` is set meanwhile (the workers are
    killed at once). `early`: workers already building these papers (see start_early), whose parts are merged;
    should one of them fail, the papers are built anew."""
    if early is not None:
        data = early.collect(cancelled)
        if data is not None:
            return data
    read = rows(papers)
    processes = min(PROCESSES, _cores())
    if len(read) < IN_PROCESS_BELOW or not sys.executable or sys.platform == "win32":  # (no waiting on its pipes)
        return build_rows(read, cancelled=cancelled)
    size = -(-len(read) // processes)
    starts = range(0, len(read), size)
    workers: list[subprocess.Popen] = []
    try:
        try:
            workers.extend(_start() for _ in starts)
        except OSError:  # no process can be started here: one thread does it all
            return build_rows(read, cancelled=cancelled)
        parts = [_batches(first, read[first : first + size]) for first in starts]
        return merge(_exchange(workers, parts, cancelled))
    finally:
        for worker in workers:
            if worker.poll() is None:  # cancelled, or failed elsewhere: its work is of no use now
                worker.kill()
            worker.wait()


class Early:
    """Worker processes forked with the papers in memory, each building the index of a part of them (start_early):
    their parts are read and merged by `collect`, or they are killed by `cancel`."""

    def __init__(self, key: str, workers: list[tuple[int, int]]) -> None:
        self.key = key  # the content key of the papers they index (see cache.content_key)
        self.workers = workers  # (process id, the read end of the pipe it writes its part to), in the papers' order

    def collect(self, cancelled: threading.Event | None = None) -> IndexData | None:
        """The index data of the papers, their parts merged as the workers end; None if one failed. Raises
        BuildCancelled if `cancelled` is set meanwhile (the workers are killed at once)."""
        chunks: dict[int, list[bytes]] = {fd: [] for _, fd in self.workers}
        parts: dict[int, IndexData | None] = {}
        try:
            with selectors.DefaultSelector() as selector:
                for _, fd in self.workers:
                    selector.register(fd, selectors.EVENT_READ)
                while selector.get_map():
                    if cancelled is not None and cancelled.is_set():
                        raise BuildCancelled
                    for key, _ in selector.select(WAIT):
                        chunk = os.read(key.fd, 1 << 20)
                        if chunk:
                            chunks[key.fd].append(chunk)
                        else:  # its part is whole, or its worker failed
                            selector.unregister(key.fd)
                            parts[key.fd] = _loaded(chunks[key.fd])
            failed = [pid for pid, _ in self.workers if _status(pid) != 0]
            self.workers = []
        finally:
            self.cancel()
        found = [parts.get(fd) for fd in chunks]
        if failed or None in found:
            return None
        return merge(found)  # type: ignore[arg-type]

    def cancel(self) -> None:
        """Kill the workers still running and let go of their pipes (again: nothing)."""
        workers, self.workers = self.workers, []
        for pid, fd in workers:
            with suppress(OSError):
                os.close(fd)
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            _status(pid)


def start_early(papers: Sequence[Paper], key: str) -> Early | None:
    """Start building the papers' index at once, in worker processes forked from this one (its papers are theirs
    without being sent, and no interpreter starts): one per core, each a part of the papers, while the app draws its
    first screen on one core. None where processes are not forked
    (another system than Linux, another thread running, which a child could find holding a lock), or the list is
    small enough to be indexed in a moment."""
    if not forks_early(papers):
        return None
    processes = min(PROCESSES, _cores())
    size = -(-len(papers) // processes)
    workers: list[tuple[int, int]] = []
    for first in range(0, len(papers), size):
        try:
            workers.append(_fork(papers[first : first + size], first))
        except OSError:  # no process can be started now: the build starts as usual, after the first paint
            Early(key, workers).cancel()
            return None
    return Early(key, workers)


def forks_early(papers: Sequence[Paper]) -> bool:
    """Whether start_early would start processes for these papers."""
    return sys.platform == "linux" and len(papers) >= IN_PROCESS_BELOW and _alone()


def _alone() -> bool:
    """Whether this process runs one thread: a process forked from one running more could need a lock that one of
    them held at the fork, and wait for it forever."""
    return threading.active_count() == 1


def _fork(papers: Sequence[Paper], first: int) -> tuple[int, int]:
    """A worker process writing the index of `papers` (numbered from `first`) to a pipe: its id and the pipe's end
    to read. It holds nothing of the app's but its papers (its other files closed, its output to nowhere)."""
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        raise
    if pid:
        os.close(write)
        return pid, read
    status = 1
    try:  # the worker: whatever happens, it ends here, running none of the app's exit handlers
        nowhere = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(nowhere, fd)
        os.closerange(3, write)
        os.closerange(write + 1, _open_max())
        with open(write, "wb") as out:
            pickle.dump(build_rows(rows(papers), first, alone=True), out, protocol=pickle.HIGHEST_PROTOCOL)
        status = 0
    finally:
        os._exit(status)


def _open_max() -> int:
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        return 1 << 16


def _status(pid: int) -> int:
    """The exit status of a worker forked, once it ended (-1: not known)."""
    try:
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    except ChildProcessError:
        return -1


def _start() -> subprocess.Popen:
    package_root = str(Path(__file__).resolve().parents[3])  # where `readlist` is imported from here
    path = os.environ.get("PYTHONPATH")
    env = dict(os.environ, PYTHONPATH=package_root + (os.pathsep + path if path else ""))
    command = [sys.executable, "-m", "readlist.core.search.build"]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def _batches(first: int, part: Sequence[Row]) -> Iterator[bytes]:
    """What a worker is sent, pickled a piece at a time: its first paper's number, batches of rows, then None."""
    yield pickle.dumps(first)
    for start in range(0, len(part), BATCH):
        yield pickle.dumps(part[start : start + BATCH], protocol=pickle.HIGHEST_PROTOCOL)
    yield pickle.dumps(None)


def _exchange(
    workers: list[subprocess.Popen], parts: list[Iterator[bytes]], cancelled: threading.Event | None
) -> list[IndexData]:
    """Each worker's part of the index, in order: sent its rows whenever its pipe has room and read from as it
    writes, all in one loop (a worker slow to read holds no other up; a full pipe would stop a writing worker)."""
    outputs: dict[int, list[bytes]] = {}
    loaded: dict[int, IndexData | None] = {}  # each worker's part, read once its output ended
    with selectors.DefaultSelector() as selector:
        for n, (worker, part) in enumerate(zip(workers, parts, strict=True)):
            assert worker.stdin is not None
            os.set_blocking(worker.stdin.fileno(), False)
            selector.register(worker.stdin, selectors.EVENT_WRITE, (part, [b""]))
            for stream in (worker.stdout, worker.stderr):
                assert stream is not None
                selector.register(stream, selectors.EVENT_READ, n)
                outputs[stream.fileno()] = []
        while selector.get_map():
            if cancelled is not None and cancelled.is_set():
                raise BuildCancelled
            for key, events in selector.select(WAIT):
                if events & selectors.EVENT_WRITE:
                    _write(selector, key)
                    continue
                chunk = os.read(key.fd, 1 << 20)
                if chunk:
                    outputs[key.fd].append(chunk)
                else:
                    selector.unregister(key.fileobj)
                    if key.fileobj is workers[key.data].stdout:  # its part is whole, or its worker failed
                        loaded[key.data] = _loaded(outputs[key.fd])
    parts_built = []
    for n, worker in enumerate(workers):
        assert worker.stdout is not None and worker.stderr is not None
        if worker.wait() != 0:
            said = b"".join(outputs[worker.stderr.fileno()]).decode("utf-8", "replace").strip().splitlines()
            raise RuntimeError(f"an indexing process stopped ({said[-1] if said else f'status {worker.returncode}'})")
        part = loaded.get(n)
        if part is None:
            raise RuntimeError("an indexing process's part of the index could not be read")
        parts_built.append(part)
    return parts_built


def _loaded(chunks: list[bytes]) -> IndexData | None:
    """A worker's part of the index, unpickled from the chunks it wrote as each is read (its pickle joined first
    was a copy of it, 35 MB for half of 100k papers, held beside the part it became); None when it is not whole
    (its worker failed: the caller says so)."""
    try:
        return pickle.load(_Chunks(chunks))
    except Exception:  # a pickle cut short fails in many ways
        return None


class _Chunks:
    """The chunks a worker wrote, read as a file by pickle.load, each let go once read past (`chunks` is emptied)."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = deque(chunks)
        chunks.clear()
        self.at = 0  # where the first chunk is read to

    def read(self, size: int = -1) -> bytes:
        chunks = self.chunks
        if size < 0:
            size = sum(map(len, chunks)) - self.at
        pieces = []
        while size > 0 and chunks:
            chunk = chunks[0]
            piece = chunk[self.at : self.at + size]  # the chunk itself when read whole
            pieces.append(piece)
            size -= len(piece)
            self.at += len(piece)
            if self.at == len(chunk):
                chunks.popleft()
                self.at = 0
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def readline(self) -> bytes:
        line = bytearray()
        while not line.endswith(b"\n") and (byte := self.read(1)):
            line += byte
        return bytes(line)


def _write(selector: selectors.BaseSelector, key: selectors.SelectorKey) -> None:
    """As much of a worker's next piece as its pipe takes; its input is closed after the last piece, or once it
    stopped reading (what it said is read with its missing result)."""
    part, left = key.data
    if not left[0]:
        piece = next(part, None)
        if piece is None:  # all sent
            _close(selector, key)
            return
        left[0] = memoryview(piece)
    try:
        left[0] = left[0][os.write(key.fd, left[0]) :]
    except BlockingIOError:  # no room after all: the next round tries again
        pass
    except BrokenPipeError:
        _close(selector, key)


def _close(selector: selectors.BaseSelector, key: selectors.SelectorKey) -> None:
    selector.unregister(key.fileobj)
    key.fileobj.close()


def serve() -> None:
    """A worker process: read the first paper's number and batches of rows until None, indexing them as they come,
    then write the part's index."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    first = pickle.load(stdin)
    pickle.dump(build_rows(_received(stdin), first, alone=True), stdout, protocol=pickle.HIGHEST_PROTOCOL)
    stdout.flush()


def _received(stdin) -> Iterator[Row]:
    """The rows sent, a batch at a time as they arrive (the build starts on the first)."""
    while (batch := pickle.load(stdin)) is not None:
        yield from batch


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


if __name__ == "__main__":
    serve()
