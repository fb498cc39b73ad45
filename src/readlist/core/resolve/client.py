"""Polite HTTP: one client per host, one request at a time, paced; retries that honour Retry-After; giving up.

Pacing and waiting go through an injectable `Clock` (tests and the benchmark use a fake one) and stop at once
when the `cancel` event is set. Every failure becomes a `SourceError` whose text is one line naming the host
and the problem; it never holds the request's URL (OpenAlex's key travels in it).
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import Protocol

import httpx

from .settings import Settings

RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
HOMEPAGE = "https://github.com/readlist"


class Cancelled(Exception):
    """The user stopped resolving (Ctrl+C, Esc): raised between requests and out of waits."""


class SourceError(Exception):
    """A source that could not be asked or did not answer usably; `str()` is the one line to show."""

    def __init__(self, host: str, problem: str):
        super().__init__(f"{host}: {problem}")
        self.host = host
        self.problem = problem


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def sleep(self, seconds: float, cancel: threading.Event) -> None:
        """Wait `seconds`, or less when `cancel` is set meanwhile."""


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float, cancel: threading.Event) -> None:
        cancel.wait(seconds)


@dataclass(frozen=True)
class Reply:
    status: int
    content_type: str
    body: bytes
    host: str


class _Retryable(Exception):
    def __init__(self, problem: str, wait: float = 0.0):
        super().__init__(problem)
        self.problem = problem
        self.wait = wait


def user_agent() -> str:
    from ... import __version__

    return f"readlist/{__version__} (+{HOMEPAGE})"


class HostClient:
    """Requests to one host, one at a time, at least `min_interval` seconds after the previous one ended."""

    def __init__(self, host: str, settings: Settings, clock: Clock, cancel: threading.Event, min_interval: float):
        self.host = host
        self.min_interval = min_interval
        self.requests = 0  # sent, retries included
        self.down: str | None = None  # why this host is given up for the run
        self._settings = settings
        self._clock = clock
        self._cancel = cancel
        self._lock = threading.Lock()
        self._next_at = float("-inf")  # clock time before which the next request waits
        self._failures = 0  # failed requests in a row
        self._http = httpx.Client(headers={"User-Agent": user_agent()}, timeout=settings.timeout, follow_redirects=True)

    def close(self) -> None:
        self._http.close()

    def get(self, url: str, params: Mapping[str, str], headers: Mapping[str, str] | None = None, ok=(200,)) -> Reply:
        """The answer to GET `url`, once its status is in `ok`; SourceError when it never is."""
        with self._lock:
            if self.down:
                raise SourceError(self.host, self.down)
            return self._get(url, params, headers or {}, ok)

    def failed(self, error: SourceError) -> None:
        """Count a request that failed, in sending or in reading its answer; enough in a row give the host up."""
        with self._lock:
            self._failures += 1
            if self.down is None and self._failures >= self._settings.give_up_after:
                self.down = f"given up after {self._failures} failed requests in a row (last: {error.problem})"

    def succeeded(self) -> None:
        with self._lock:
            self._failures = 0

    def _get(self, url: str, params: Mapping[str, str], headers: Mapping[str, str], ok) -> Reply:
        tries = self._settings.max_tries
        problem = ""
        for attempt in range(tries):
            self._wait_turn()
            try:
                reply = self._send(url, params, headers)
            except _Retryable as error:
                problem, wait = error.problem, error.wait
            else:
                if reply.status in ok:
                    return reply
                raise SourceError(self.host, f"HTTP {reply.status}{_reason(reply.status)}")
            finally:
                self._next_at = self._clock.monotonic() + self.min_interval
            wait = max(wait, self._settings.backoff * 2**attempt)
            if attempt + 1 < tries:
                self._next_at = max(self._next_at, self._clock.monotonic() + wait)
        raise SourceError(self.host, f"{problem} ({tries} tries)" if tries > 1 else problem)

    def _wait_turn(self) -> None:
        if self._cancel.is_set():
            raise Cancelled
        while (left := self._next_at - self._clock.monotonic()) > 0:
            self._clock.sleep(left, self._cancel)
            if self._cancel.is_set():
                raise Cancelled

    def _send(self, url: str, params: Mapping[str, str], headers: Mapping[str, str]) -> Reply:
        self.requests += 1
        started = time.monotonic()  # the real time: a slow trickle of bytes is not the clock's business
        try:
            with self._http.stream("GET", url, params=params, headers=headers) as response:
                if response.status_code in RETRIED_STATUSES:
                    self._check_wait(response)
                body = self._read(response, started)
                return Reply(response.status_code, response.headers.get("content-type", ""), body, self.host)
        except httpx.TimeoutException:
            raise _Retryable(f"no answer within {self._settings.timeout:g} s") from None
        except httpx.RemoteProtocolError:
            raise _Retryable("the connection closed before the answer was complete") from None
        except httpx.ConnectError as error:
            raise SourceError(self.host, _connect_problem(error)) from None
        except (httpx.ReadError, httpx.WriteError, httpx.CloseError) as error:
            raise _Retryable(f"the connection broke ({_first_line(error) or type(error).__name__})") from None
        except httpx.TooManyRedirects:
            raise SourceError(self.host, "too many redirects") from None
        except (httpx.HTTPError, httpx.InvalidURL, ValueError) as error:
            raise SourceError(self.host, _first_line(error) or type(error).__name__) from None

    def _check_wait(self, response: httpx.Response) -> None:
        """Raise the retry, waiting as long as Retry-After asks; give the host up when that is too long."""
        status = f"HTTP {response.status_code}{_reason(response.status_code)}"
        wait = retry_after(response.headers.get("retry-after"))
        if wait is not None and wait > self._settings.max_wait:
            self.down = f"asks to wait {wait:.0f} s ({status}); try again later"
            raise SourceError(self.host, self.down)
        raise _Retryable(status, wait or 0.0)

    def _read(self, response: httpx.Response, started: float) -> bytes:
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self._settings.max_body:
                raise SourceError(self.host, f"the answer is longer than {self._settings.max_body // 2**20} MB")
            if time.monotonic() - started > self._settings.timeout:
                raise _Retryable(f"no complete answer within {self._settings.timeout:g} s")
            chunks.append(chunk)
        return b"".join(chunks)


class Hosts:
    """The clients of a run, one per host (scheme, name and port), made on first use and closed together."""

    def __init__(self, settings: Settings, clock: Clock, cancel: threading.Event):
        self._settings, self._clock, self._cancel = settings, clock, cancel
        self._clients: dict[str, HostClient] = {}
        self._lock = threading.Lock()  # two threads asking one host share its client, so its pace

    def for_url(self, url: str, min_interval: float) -> HostClient:
        parsed = httpx.URL(url)
        name = parsed.netloc.decode("ascii", "replace")
        with self._lock:
            client = self._clients.get(key := f"{parsed.scheme}://{name}")
            if client is None:
                client = self._clients[key] = HostClient(name, self._settings, self._clock, self._cancel, min_interval)
            client.min_interval = max(client.min_interval, min_interval)  # two sources on one host: the slower pace
        return client

    def given_up(self) -> dict[str, str]:
        return {client.host: client.down for client in self._clients.values() if client.down}

    @property
    def requests(self) -> int:
        return sum(client.requests for client in self._clients.values())

    def close(self) -> None:
        for client in self._clients.values():
            client.close()


def retry_after(value: str | None) -> float | None:
    """Seconds a Retry-After header asks for (a number or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _reason(status: int) -> str:
    try:
        return f" {HTTPStatus(status).phrase}"
    except ValueError:
        return ""


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


def _connect_problem(error: httpx.ConnectError) -> str:
    """What stopped the connection, in words: DNS, TLS, refused, or the error's own first line."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, socket.gaierror):
            return "cannot find the host (DNS lookup failed; offline?)"
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"TLS error: {cause.verify_message or 'certificate not trusted'}"
        if isinstance(cause, ssl.SSLError):
            return f"TLS error: {(cause.reason or '').replace('_', ' ').lower() or _first_line(cause)}"
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        cause = cause.__cause__ or cause.__context__
    text = _first_line(error)
    if "Name or service not known" in text or "nodename nor servname" in text or "getaddrinfo" in text:
        return "cannot find the host (DNS lookup failed; offline?)"
    if "SSL" in text or "TLS" in text or "certificate" in text:
        return f"TLS error: {text}"
    return f"cannot connect: {text or type(error).__name__}"
