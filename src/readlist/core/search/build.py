"""Building a list's search index in worker processes: its papers in parts, each part indexed by a Python process of
its own (one per core, up to PROCESSES), the parts then merged into one index.

Indexing 100k papers takes about 7 CPU seconds of Python. In a thread of the app's own process it would share the
interpreter with the UI (each key waiting its turn) and use one core; in worker processes it leaves the UI alone and
uses every core. A small list is indexed in the calling thread: starting processes would cost it more.

On Linux a worker is forked from the caller: its papers are its own without being sent, and no interpreter starts;
it writes its part's index to a pipe. Elsewhere it is `python -m readlist.core.search.build`, fed its papers' rows
and answering with its part's index, both pickled over its pipes (it imports no module of the caller's program, as
multiprocessing's would); each such worker indexes its rows as they arrive, and is written to whenever its pipe has
room, so that all of them start at once and none waits on another.
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
FORKS = sys.platform == "linux"  # workers are forked here (elsewhere a fork may leave a library's lock held)
IN_PROCESS_BELOW = 5_000  # papers: a smaller list is indexed in the calling thread (half a second at most)
BATCH = 1_000  # rows pickled at a time: the caller never holds the interpreter long while sending them
WAIT = 0.1  # seconds between looks at `cancelled` while the workers index


def build(papers: Sequence[Paper], cancelled: threading.Event | None = None) -> IndexData:
    """The index data of the papers; raises BuildCancelled if `cancelled` is set meanwhile (the workers are
    killed at once)."""
    if len(papers) >= IN_PROCESS_BELOW and FORKS:
        forked = fork_workers(papers)
        if forked is not None:
            data = forked.collect(cancelled)
            if data is not None:
                return data  # else a worker failed: built again by workers started apart
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


class Forked:
    """Worker processes forked with the papers in memory, each building the index of a part of them (fork_workers):
    their parts are read and merged by `collect`, or they are killed by `cancel`."""

    def __init__(self, workers: list[tuple[int, int]]) -> None:
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
        except BaseException:
            self.cancel()
            raise
        statuses = self.cancel(kill=False)  # each ended once its pipe did: its status tells how
        found = [parts.get(fd) for fd in chunks]
        if any(statuses) or None in found:
            return None
        return merge(found)  # type: ignore[arg-type]

    def cancel(self, kill: bool = True) -> list[int]:
        """Kill the workers still running (`kill`), let go of their pipes and wait for their end (again: nothing);
        their exit statuses."""
        workers, self.workers = self.workers, []
        for pid, fd in workers:
            os.close(fd)
            if kill:
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)  # one that ended waits to be reaped: not killed again
        return [_status(pid) for pid, _ in workers]


def fork_workers(papers: Sequence[Paper]) -> Forked | None:
    """Worker processes forked from this one, one per core, each building the index of a part of the papers; None
    when no process can be forked now. The caller may run other threads: a worker runs none of their code and takes
    none of their locks (only its papers, the index's code, already imported, and its own pipe)."""
    processes = min(PROCESSES, _cores())
    size = -(-len(papers) // processes)
    workers: list[tuple[int, int]] = []
    for first in range(0, len(papers), size):
        try:
            workers.append(_fork(papers[first : first + size], first))
        except OSError:  # none can be started now: the build starts workers apart
            Forked(workers).cancel()
            return None
    return Forked(workers)


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
