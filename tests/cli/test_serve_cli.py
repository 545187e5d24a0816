"""`kaisim serve`: a drop-in for KAI's fair-share simulator over real HTTP on loopback."""
import json
import re
import signal
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import DATA


@pytest.fixture
def server(kaisim_bin):
    proc = subprocess.Popen([kaisim_bin, "serve", "--port", "0"], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    match = re.search(r"listening on (http://127\.0\.0\.1:\d+)/simulate", line)
    assert match, line
    yield match.group(1), proc
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)


def request(url, body=None, method="POST"):
    req = urllib.request.Request(url, data=body.encode() if body is not None else None, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read().decode(), dict(resp.headers)
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode(), dict(err.headers)


def test_simulate_answers_the_kai_readme_example(server):
    base, _ = server
    status, body, headers = request(base + "/simulate", (DATA / "kai-readme-example.json").read_text())
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert body == ('{"queue1":{"gpu":70,"cpu":16000,"memory":100000},'
                    '"queue2":{"gpu":30,"cpu":16000,"memory":100000}}\n')


def test_bad_request_gets_400_with_the_cli_error_text(server, kaisim):
    base, _ = server
    bad = '{"queues": [{"uid": "a", "resourceShare": {"gpu": {"deserved": "x"}}}]}'
    status, body, _ = request(base + "/simulate", bad)
    assert status == 400
    assert body == 'request:1:64: queues[0].resourceShare.gpu.deserved: expected a number, got string "x"\n'
    cli = kaisim("fairshare", "-", stdin=bad)
    assert cli.stderr.endswith(body.split(": ", 1)[1])


def test_only_post_is_allowed(server):
    base, _ = server
    status, body, _ = request(base + "/simulate", method="GET")
    assert status == 405
    assert body == "Only POST allowed\n"
    status, _, _ = request(base + "/elsewhere", "{}")
    assert status == 404


def test_many_requests_then_clean_stop(server):
    base, proc = server
    for gpus in range(1, 30):
        status, body, _ = request(base + "/simulate", json.dumps(
            {"totalResource": {"GPU": gpus}, "queues": [{"uid": "a"}, {"uid": "b"}]}))
        assert status == 200
        shares = json.loads(body)
        assert shares["a"]["gpu"] + shares["b"]["gpu"] == gpus
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 0


def test_listens_on_loopback_by_default(kaisim_bin):
    proc = subprocess.Popen([kaisim_bin, "serve", "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        assert "http://127.0.0.1:" in proc.stderr.readline()
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0


def test_keeps_answering_under_a_hostile_mix(server):
    """200 idle connections, 8 clients sending a byte a second, 50 that half-close after sending:
    normal requests on new and on keep-alive connections are still answered (the figures are in
    the README; nothing here times them)."""
    import socket
    import threading
    import http.client

    base, proc = server
    port = int(base.rsplit(":", 1)[1])
    body = (DATA / "kai-readme-example.json").read_text()
    raw = (f"POST /simulate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
           f"{body}").encode()
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(200)]
    stop = threading.Event()

    def slow():
        with socket.create_connection(("127.0.0.1", port)) as s:
            for b in raw:
                if stop.is_set():
                    return
                s.send(bytes([b]))
                stop.wait(1)

    slows = [threading.Thread(target=slow, daemon=True) for _ in range(8)]
    for t in slows:
        t.start()
    half = []
    for _ in range(50):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(raw)
        s.shutdown(socket.SHUT_WR)
        half.append(s)
    try:
        for _ in range(5):
            status, answer, _ = request(base + "/simulate", body)
            assert status == 200 and answer.startswith('{"queue1"')
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)  # one keep-alive connection
        for _ in range(20):
            conn.request("POST", "/simulate", body, {"Content-Type": "application/json"})
            response = conn.getresponse()
            assert response.status == 200 and response.read().startswith(b'{"queue1"')
        assert proc.poll() is None
    finally:
        stop.set()
        for s in idle + half:
            s.close()


def test_oversized_and_deep_bodies_are_refused_without_exception_text(server):
    import socket

    base, _ = server
    port = int(base.rsplit(":", 1)[1])
    # 30 MB of `{` announced: answered 413 before the body is read, then closed.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"POST /simulate HTTP/1.1\r\nHost: x\r\nContent-Length: {30 << 20}\r\n\r\n".encode() + b"{" * 65536)
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    head, _, text = answer.decode().partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 413")
    assert text == "request body over the limit of 16 MiB (--max-body-mb)\n"
    assert "exception" not in head.lower()
    status, body, headers = request(base + "/simulate", "[" * 200000)
    assert status == 400
    assert body == "request:1:101: " + "[0]" * 100 + ": nested deeper than 100 levels, the limit for any input\n"
    assert not any("exception" in k.lower() for k in headers)
