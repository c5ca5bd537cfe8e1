#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""fxsamplerd's HTTP endpoint against hostile clients (tests/report/http.sh runs it).
Raw bytes on sockets, to loopback addresses only, bounded in count and time.

  details URL          each HTTP detail answered as Go's server would: a junk request
                       line, HTTP/1.1 without Host, an unsupported version, a head over
                       32 KiB (431), seconds with a NUL or given twice, a chunked body;
                       every error text/plain with X-Go-Pprof: 1; a request that never
                       ends cut off with 408 within its 5 s; 9 at once from one address:
                       429; a missing token answered before a promised body arrives
  slowloris URL SECS N SPREAD [TOKEN]
                       N connections that each send one header byte a second (again
                       when cut off) for SECS s, from 127.0.0.2 (SPREAD 0) or each from
                       its own address 127.0.0.2.. (SPREAD 1), without a token; a
                       scraper (with TOKEN) scrapes seconds=3 back to back meanwhile:
                       each answer a profile within its window plus 2 s
"""
import os
import select
import socket
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_check import alloy_body_ok, fail, request  # noqa: E402

SLOW_HEAD = b"GET /debug/pprof/profile?seconds=1 HTTP/1.1\r\nHost: x\r\nX-Slow: "


def raw(host, port, data, timeout=10, src=None):
    """Send data, read the answer to EOF: (status, headers, body, seconds)."""
    s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    if src:
        s.bind((src, 0))
    s.settimeout(timeout)
    s.connect((host, port))
    t0 = time.time()
    s.sendall(data)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except socket.timeout:
        fail("%r: no answer and no close within %d s" % (data[:40], timeout))
    except ConnectionResetError:
        pass
    s.close()
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    if not lines[0].startswith("HTTP/1.1 "):
        fail("%r: no HTTP answer: %r" % (data[:40], out[:100]))
    hdrs = dict((k.strip().lower(), v.strip()) for k, _, v in
                (ln.partition(":") for ln in lines[1:]))
    return int(lines[0].split()[1]), hdrs, body, time.time() - t0


def go_error(host, port, data, status, text, what, timeout=10):
    st, h, body, secs = raw(host, port, data, timeout)
    if st != status:
        fail("%s: status %d, not %d: %r" % (what, st, status, body[:120]))
    if not h.get("content-type", "").startswith("text/plain"):
        fail("%s: Content-Type %r" % (what, h.get("content-type")))
    if h.get("x-go-pprof") != "1":
        fail("%s: no X-Go-Pprof: 1" % what)
    if text not in body.decode(errors="replace"):
        fail("%s: %r does not say %r" % (what, body, text))
    return secs


def cmd_details(url):
    u = urllib.parse.urlsplit(url)
    host, port, path = u.hostname, u.port, u.path
    get = ("GET %s?seconds=%%s HTTP/1.1\r\nHost: x\r\n\r\n" % path).encode()
    cases = [
        (b"garbage\r\n\r\n", 400, "malformed HTTP request", "a junk request line"),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40, 400,
         "malformed HTTP request", "a TLS hello"),
        (("GET %s?seconds=1 HTTP/1.1\r\n\r\n" % path).encode(), 400,
         "missing required Host header", "HTTP/1.1 without Host"),
        (("GET %s?seconds=1 HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n" % path).encode(), 400,
         "too many Host headers", "two Host headers"),
        (("GET %s HTTP/2.0\r\nHost: x\r\n\r\n" % path).encode(), 505,
         "unsupported protocol version", "HTTP/2.0"),
        (("GET %s HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n" % (path, "a" * 40000)).encode(), 431,
         "Request Header Fields Too Large", "a 40 KB header"),
        (("GET %s HTTP/1.1\r\nHost: x\r\nbad header\r\n\r\n" % path).encode(), 400,
         "malformed MIME header line", "a header without a colon"),
        (get % b"1%00", 400, "NUL", "seconds=1%00"),
        (get % b"1&seconds=2", 400, "given 2 times", "seconds=1&seconds=2"),
        (("GET %s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" % path).encode(),
         501, "transfer encoding", "a chunked body"),
        (("GET %s?seconds=0 HTTP/1.0\r\n\r\n" % path).encode(), 400, "not in 1..",
         "HTTP/1.0 without Host (allowed), seconds=0"),
    ]
    for data, status, text, what in cases:
        go_error(host, port, data, status, text, what)
    print("   junk line, TLS hello, no Host, two Hosts, bad header: 400; HTTP/2.0: 505; 40 KB "
          "header: 431; chunked: 501; seconds=1%00 and seconds=1&seconds=2: 400; all "
          "text/plain with X-Go-Pprof: 1")
    # a request that never ends: 408 at its deadline
    secs = go_error(host, port, SLOW_HEAD, 408, "did not arrive whole within 5 s",
                    "a request never finished", timeout=15)
    if not 4.5 <= secs <= 7:
        fail("a request never finished: answered after %.1f s, not 5" % secs)
    print("   a request never finished: 408 after %.1f s" % secs)
    # the per-address cap: 8 unfinished requests from one address, the 9th gets 429
    held = []
    for _ in range(8):
        s = socket.create_connection((host, port))
        s.sendall(SLOW_HEAD)
        held.append(s)
    time.sleep(0.3)
    go_error(host, port, b"", 429, "from this address", "a 9th connection from one address")
    for s in held:
        s.close()
    print("   a 9th unfinished request from one address: 429")


def cmd_token_first(url):
    """Without the token, a head promising a body gets its 401 before the body comes."""
    u = urllib.parse.urlsplit(url)
    data = ("GET %s?seconds=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"
            % u.path).encode()
    secs = go_error(u.hostname, u.port, data, 401, "bearer token", "no token, a body promised")
    if secs > 1:
        fail("no token: the 401 came after %.1f s, waiting for the body" % secs)
    print("   no token and a body promised: 401 in %.3f s, before the body" % secs)


class Slow:
    """One slowloris connection: a byte of header a second, again when cut off."""

    def __init__(self, host, port, src):
        self.host, self.port, self.src = host, port, src
        self.s = None
        self.cuts = 0

    def open(self):
        s = socket.socket()
        s.bind((self.src, 0))
        s.setblocking(False)
        s.connect_ex((self.host, self.port))
        self.s, self.sent = s, 0

    def tick(self):
        if self.s is None:
            self.open()
            return
        try:
            r, _, _ = select.select([self.s], [], [], 0)
            if r:
                raise OSError("answered")
            self.s.send(SLOW_HEAD[self.sent:self.sent + 1] if self.sent < len(SLOW_HEAD)
                        else b"a")
            self.sent += 1
        except OSError:
            self.cuts += 1
            self.s.close()
            self.open()


def cmd_slowloris(url, secs, n, spread, token=None):
    secs, n, spread = float(secs), int(n), spread == "1"
    u = urllib.parse.urlsplit(url)
    slow = [Slow(u.hostname, u.port, "127.0.0.%d" % (2 + i) if spread else "127.0.0.2")
            for i in range(n)]
    hdr = {"Authorization": "Bearer " + token} if token else {}
    t0 = time.time()
    for c in slow:
        c.open()
    # the attack first, the scraper once it is in place
    while time.time() - t0 < 2:
        for c in slow:
            c.tick()
        time.sleep(1)
    import threading
    results = []

    def scraper():
        while time.time() - t0 < secs - 4:
            ts = time.time()
            st, h, body = request(url + "?seconds=3", headers=hdr, timeout=20)
            results.append((time.time() - ts, st, alloy_body_ok(h, body)))

    th = threading.Thread(target=scraper)
    th.start()
    while th.is_alive() or time.time() - t0 < secs:
        for c in slow:
            c.tick()
        time.sleep(1)
    th.join()
    opened = sum(c.s is not None for c in slow)
    cuts = sum(c.cuts for c in slow)
    for c in slow:
        c.s.close()
    if not results:
        fail("slowloris: no scrape ran")
    for took, st, why in results:
        if st != 200 or why:
            fail("slowloris: a scrape got %d (%s)" % (st, why))
        if took > 3 + 2:
            fail("slowloris: a 3 s scrape took %.1f s" % took)
    print("   %d slow connections (%s) for %.0f s, %d cut off and reopened: %d scrapes of 3 s "
          "answered in %.1f..%.1f s%s" %
          (opened, "each from its own address" if spread else "from 127.0.0.2", secs, cuts,
           len(results), min(r[0] for r in results), max(r[0] for r in results),
           ", with the token" if token else ""))


def main():
    cmds = {"details": cmd_details, "slowloris": cmd_slowloris, "token_first": cmd_token_first}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        fail("usage: http_hostile.py %s ARGS" % "|".join(cmds))
    cmds[sys.argv[1]](*sys.argv[2:])


if __name__ == "__main__":
    main()
