"""Resolving is polite and survives the network: pacing per host, Retry-After, backoff, timeouts, giving up."""

from __future__ import annotations

import socket
import threading
from itertools import pairwise

import httpx
import pytest
from resolve_fakes import Answer, ArxivService, Services, sample_papers

from readlist import __version__
from readlist.core.resolve import PaperQuery, Status
from readlist.core.resolve.client import _connect_problem, retry_after

PAPERS = sample_papers()


def queries(count: int) -> list[PaperQuery]:
    return [PaperQuery(f"p{p['number']}", p["abstract"]) for p in PAPERS[:count]]


def gaps(server) -> list[float]:
    return [b.at - a.at for a, b in pairwise(server.requests)]


class Sequence:
    """Answers in turn, the last one from then on; the arXiv stand-in answers once they run out."""

    def __init__(self, *answers: Answer, then=None):
        self.answers, self.then = list(answers), then

    def __call__(self, request):
        if self.answers:
            return self.answers.pop(0)
        return self.then(request)


@pytest.fixture
def services():
    with Services() as running:
        yield running


def test_requests_to_arxiv_are_3_s_apart_and_to_dblp_1_s(services):
    with services.resolver() as resolver:
        resolutions = [resolver.resolve(q) for q in queries(5)]
    assert all(r.status is Status.FOUND for r in resolutions)
    assert len(services.arxiv.requests) == 5 and min(gaps(services.arxiv)) >= 3.0
    assert len(services.dblp.requests) == 5 and min(gaps(services.dblp)) >= 1.0
    assert max(gaps(services.arxiv)) < 3.5  # no slower than asked either


def test_a_429_is_retried_after_the_time_retry_after_asks(services):
    services.arxiv.app = Sequence(Answer(429, "slow down", headers={"Retry-After": "17"}), then=services.arxiv.app)
    with services.resolver() as resolver:
        resolution = resolver.resolve(queries(1)[0])
    assert resolution.status is Status.FOUND and not resolution.problems
    assert gaps(services.arxiv) == [17.0] and resolution.requests == 3


def test_a_503_then_success_backs_off_and_finds_the_paper(services):
    arxiv = services.arxiv.app
    services.arxiv.app = Sequence(Answer(503, "busy"), Answer(503, "busy"), then=arxiv)
    with services.resolver(backoff=4.0) as resolver:
        resolution = resolver.resolve(queries(1)[0])
    assert resolution.status is Status.FOUND
    assert gaps(services.arxiv) == [4.0, 8.0]  # 4 s, then twice as long


def test_a_503_with_retry_after_as_a_date_waits_until_then(services):
    when = "Wed, 21 Oct 2015 07:28:00 GMT"
    services.arxiv.app = Sequence(Answer(503, headers={"Retry-After": when}), then=services.arxiv.app)
    with services.resolver() as resolver:
        assert resolver.resolve(queries(1)[0]).status is Status.FOUND
    assert retry_after(when) == 0.0 and gaps(services.arxiv) == [3.0]  # a date past: the backoff and the pace


def test_a_retry_after_longer_than_two_minutes_gives_the_host_up_for_the_run(services):
    services.arxiv.app = lambda request: Answer(429, headers={"Retry-After": "3600"})
    with services.resolver(sources=("arxiv",)) as resolver:
        first, second = resolver.resolve(queries(1)[0]), resolver.resolve(queries(2)[1])
        given_up = resolver.given_up()
    problem = f"{services.arxiv.host}: asks to wait 3600 s (HTTP 429 Too Many Requests); try again later"
    assert first.status is second.status is Status.FAILED
    assert first.problems == second.problems == (problem,)
    assert len(services.arxiv.requests) == 1 and given_up == {services.arxiv.host: problem.split(": ", 1)[1]}


def test_a_host_failing_again_and_again_is_given_up_and_said_so(services):
    services.arxiv.app = lambda request: Answer(500, "oops")
    with services.resolver(sources=("arxiv",)) as resolver:
        resolutions = [resolver.resolve(q) for q in queries(5)]
        given_up = resolver.given_up()
    assert all(r.status is Status.FAILED for r in resolutions)
    assert resolutions[0].problems == (f"{services.arxiv.host}: HTTP 500 Internal Server Error (4 tries)",)
    reason = "given up after 3 failed requests in a row (last: HTTP 500 Internal Server Error (4 tries))"
    assert resolutions[3].problems == resolutions[4].problems == (f"{services.arxiv.host}: {reason}",)
    assert len(services.arxiv.requests) == 3 * 4 and given_up == {services.arxiv.host: reason}
    assert services.clock.slept and max(services.clock.slept) <= 8.0  # 2, 4, 8 s apart: backing off


def test_a_host_answering_with_html_pages_again_and_again_is_given_up_too(services):
    """A captive portal or a proxy's error page answers 200: what counts is that no answer could be read."""
    services.arxiv.app = lambda request: Answer(body="<html>Log in to the Wi-Fi</html>", content_type="text/html")
    with services.resolver(sources=("arxiv",)) as resolver:
        resolutions = [resolver.resolve(q) for q in queries(4)]
    assert len(services.arxiv.requests) == 3
    assert resolutions[3].problems == (
        f"{services.arxiv.host}: given up after 3 failed requests in a row "
        "(last: an HTML page (HTTP 200), not an Atom feed)",
    )


def test_a_request_without_an_answer_times_out(services):
    services.arxiv.app = lambda request: Answer(hang=True)
    with services.resolver(timeout=0.3, max_tries=2, sources=("arxiv",)) as resolver:
        resolution = resolver.resolve(queries(1)[0])
    assert resolution.status is Status.FAILED
    assert resolution.problems == (f"{services.arxiv.host}: no answer within 0.3 s (2 tries)",)


def test_connection_refused_tls_and_dns_errors_are_named(services, monkeypatch):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    env = {"READLIST_ARXIV_URL": f"http://127.0.0.1:{port}/api/query", "READLIST_S2_URL": f"https://{services.s2.host}"}
    with services.resolver(env=env) as resolver:
        resolution = resolver.resolve(queries(1)[0])
    assert resolution.status is Status.FAILED
    refused, tls = resolution.problems
    assert refused == f"127.0.0.1:{port}: connection refused"
    assert tls.startswith(f"{services.s2.host}: TLS error: ")  # https to a server speaking plain HTTP

    def no_dns(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    with services.resolver(
        env={"READLIST_ARXIV_URL": "https://export.arxiv.example/api/query"}, sources=("arxiv",)
    ) as r:
        offline = r.resolve(queries(1)[0])
    assert offline.problems == ("export.arxiv.example: cannot find the host (DNS lookup failed; offline?)",)


def test_connect_problem_names_the_cause_it_wraps():
    error = httpx.ConnectError("[Errno -3] Temporary failure in name resolution")
    error.__cause__ = socket.gaierror(-3, "Temporary failure in name resolution")
    assert _connect_problem(error) == "cannot find the host (DNS lookup failed; offline?)"
    assert _connect_problem(httpx.ConnectError("boom")) == "cannot connect: boom"


def test_every_request_names_readlist_and_its_version(services):
    with services.resolver() as resolver:
        resolver.resolve(queries(1)[0])
    agents = {r.headers["user-agent"] for s in (services.arxiv, services.dblp) for r in s.requests}
    assert agents == {f"readlist/{__version__} (+https://github.com/readlist)"}


def test_cancelling_during_a_wait_stops_at_once_without_another_request(services):
    cancel = threading.Event()
    services.arxiv.app = Sequence(Answer(503, headers={"Retry-After": "60"}), then=services.arxiv.app)
    services.clock.on_sleep = lambda seconds: cancel.set()
    with services.resolver(cancel=cancel) as resolver:
        done = list(resolver.resolve_many(queries(3)))
    assert done == [] and len(services.arxiv.requests) == 1 and services.clock.slept == [60.0]


def test_one_request_at_a_time_per_host_across_threads(services):
    """Two threads resolving with one resolver still send the host one request at a time."""
    services.arxiv.app = ArxivService([])
    active, most = [0], [0]
    lock = threading.Lock()
    inner = services.dblp.app

    def counting(request):
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        try:
            return inner(request)
        finally:
            with lock:
                active[0] -= 1

    services.s2.app = counting
    with services.resolver(sources=("s2",)) as resolver:
        threads = [threading.Thread(target=resolver.resolve, args=(q,)) for q in queries(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(services.s2.requests) == 6 and most[0] == 1 and min(gaps(services.s2)) >= 1.0
