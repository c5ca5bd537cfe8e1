#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The checks of fxsamplerd's HTTP endpoint (tests/report/http.sh runs them).

  raw FILE             go tool pprof -raw's output: Go's CPU profile shape, the demo
                       program's chain with file and line in >= 90 % of its samples
  cadence URL SECS N INTERVAL FXSAMPLER SOCK OUT
                       N scrapers at Parca's cadence (seconds=INTERVAL every INTERVAL s,
                       timeout INTERVAL + 3 s) for SECS s, each body checked as Alloy
                       does; meanwhile a user's `fxsampler record` through SOCK
  bad URL MAX          bad requests, each answered with a clear status; the daemon serves on
  limits URL MAXSCRAPES  one scrape over http_max_scrapes is refused with 503
  token URL TOKEN      401 without the token or with a wrong one, 200 with it
  profile URL SECS     one scrape: a valid profile with the demo's samples in it
  offcpu URL SECS      one off-CPU scrape: the offcpu program's sleeper under its chain

Only the standard library: the pprof protobuf is decoded here, independently
of the daemon's encoder.
"""
import gzip
import http.client
import re
import resource
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

CHAIN = ["inner", "middle", "outer", "main"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


# --- protobuf, as far as profile.proto needs ---

def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        if not c & 0x80:
            return v, i
        shift += 7


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        elif w == 1:
            v = b[i:i + 8]
            i += 8
        elif w == 5:
            v = b[i:i + 4]
            i += 4
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v


def packed(w, v):
    if w == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def parse_profile(body):
    """The fields of a (gzipped) profile.proto the checks use."""
    if body[:2] == b"\x1f\x8b":
        body = gzip.decompress(body)
    p = {"sample_type": [], "samples": [], "mappings": [], "strings": [], "comments": [],
         "locations": {}, "functions": {}, "time_nanos": 0, "duration_nanos": 0,
         "period_type": None, "period": 0}
    for f, w, v in fields(body):
        if f == 1:
            d = dict((g, x) for g, _, x in fields(v))
            p["sample_type"].append((d.get(1, 0), d.get(2, 0)))
        elif f == 2:
            s = {"locs": [], "values": [], "labels": []}
            for g, w2, x in fields(v):
                if g == 1:
                    s["locs"] += packed(w2, x)
                elif g == 2:
                    s["values"] += packed(w2, x)
                elif g == 3:
                    d = dict((h, y) for h, _, y in fields(x))
                    s["labels"].append((d.get(1, 0), d.get(2, 0), d.get(3, 0)))
            p["samples"].append(s)
        elif f == 3:
            p["mappings"].append(dict((g, x) for g, _, x in fields(v)))
        elif f == 4:
            loc = {"lines": []}
            for g, _, x in fields(v):
                if g == 1:
                    loc["id"] = x
                elif g == 4:
                    d = dict((h, y) for h, _, y in fields(x))
                    loc["lines"].append((d.get(1, 0), d.get(2, 0)))
            p["locations"][loc["id"]] = loc
        elif f == 5:
            d = dict((g, x) for g, _, x in fields(v))
            p["functions"][d[1]] = d
        elif f == 6:
            p["strings"].append(v.decode(errors="replace"))
        elif f == 9:
            p["time_nanos"] = v
        elif f == 10:
            p["duration_nanos"] = v
        elif f == 11:
            d = dict((g, x) for g, _, x in fields(v))
            p["period_type"] = (d.get(1, 0), d.get(2, 0))
        elif f == 12:
            p["period"] = v
        elif f == 13:
            p["comments"] += packed(w, v)
    st = p["strings"]
    p["sample_type"] = [(st[a], st[b]) for a, b in p["sample_type"]]
    p["period_type"] = (st[p["period_type"][0]], st[p["period_type"][1]]) if p["period_type"] else None
    p["comments"] = [st[c] for c in p["comments"]]
    for s in p["samples"]:
        s["labels"] = dict((st[k], st[v] if v else n) for k, v, n in s["labels"])
    return p


def frames(p, s):
    """A sample's functions, leaf first: (name, file, line), inlined ones included."""
    st, out = p["strings"], []
    for lid in s["locs"]:
        for fid, line in p["locations"][lid]["lines"]:
            fn = p["functions"][fid]
            out.append((st[fn.get(2, 0)], st[fn.get(4, 0)], line))
    return out


def has_chain(fr):
    names = [f[0] for f in fr]
    for i in range(len(names) - len(CHAIN) + 1):
        if names[i:i + len(CHAIN)] == CHAIN:
            return all(f[1].endswith("demo.c") and f[2] > 0 for f in fr[i:i + len(CHAIN)])
    return False


def check_shape(p, what):
    if p["sample_type"] != [("samples", "count"), ("cpu", "nanoseconds")]:
        fail("%s: sample types %s, not Go's CPU profile's" % (what, p["sample_type"]))
    if p["period_type"] != ("cpu", "nanoseconds") or not p["period"]:
        fail("%s: period type %s, period %d" % (what, p["period_type"], p["period"]))
    for m in p["mappings"]:
        if not (m.get(7) == 1 and m.get(8) == 1 and m.get(9) == 1):
            fail("%s: a mapping is not marked has_functions/filenames/line_numbers: %s"
                 % (what, m))
    for s in p["samples"]:
        if "pid" in s["labels"] or "tid" in s["labels"]:
            fail("%s: a sample has a pid or tid label: %s" % (what, s["labels"]))


def demo_share(p):
    demo = [s for s in p["samples"] if s["labels"].get("executable") == "demo"]
    n = sum(s["values"][0] for s in demo)
    good = sum(s["values"][0] for s in demo if has_chain(frames(p, s)))
    return n, good


# --- HTTP ---

def request(url, method="GET", headers=None, timeout=30):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    c.request(method, u.path + ("?" + u.query if u.query else ""), headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), body


def alloy_body_ok(headers, body):
    """Alloy's pyroscope.scrape: octet-stream, non-empty, gzip or raw protobuf."""
    if not headers.get("content-type", "").startswith("application/octet-stream"):
        return "Content-Type is %r" % headers.get("content-type")
    if not body:
        return "empty body"
    if body[:2] != b"\x1f\x8b" and (body[0] & 7) >= 6:
        return "neither gzip nor protobuf (first byte 0x%02x)" % body[0]
    return None


def check_profile_answer(status, headers, body, what):
    if status != 200:
        fail("%s: status %d: %r" % (what, status, body[:200]))
    why = alloy_body_ok(headers, body)
    if why:
        fail("%s: %s" % (what, why))
    if headers.get("content-disposition") != 'attachment; filename="profile"':
        fail("%s: Content-Disposition %r" % (what, headers.get("content-disposition")))
    p = parse_profile(body)
    check_shape(p, what)
    return p


# --- the tests ---

def cmd_raw(path):
    text = open(path).read()
    if not re.search(r"^samples/count cpu/nanoseconds$", text, re.M):
        fail("go tool pprof -raw: no 'samples/count cpu/nanoseconds' line")
    if not re.search(r"^PeriodType: cpu nanoseconds$", text, re.M):
        fail("go tool pprof -raw: no 'PeriodType: cpu nanoseconds'")
    # Locations: "  ID: 0xADDR M=N func file:line s=START", more lines for inlined frames
    locs, cur = {}, None
    section = None
    samples = []
    for line in text.splitlines():
        if line in ("Samples:", "Locations", "Mappings"):
            section = line
            continue
        if section == "Samples:":
            m = re.match(r"^\s+(\d+)\s+(\d+):((?: \d+)+)\s*$", line)
            if m:
                samples.append([int(m.group(1)), [int(x) for x in m.group(3).split()], ""])
            elif samples and line.strip().startswith(("executable:", "thread:")):
                samples[-1][2] += line
        elif section == "Locations":
            m = re.match(r"^\s+(\d+): 0x[0-9a-f]+ M=\d+ (\S+) (\S+):(\d+) s=", line)
            if m:
                cur = int(m.group(1))
                locs[cur] = [(m.group(2), m.group(3), int(m.group(4)))]
                continue
            m = re.match(r"^\s+(\S+) (\S+):(\d+) s=", line)
            if m and cur is not None:
                locs[cur].append((m.group(1), m.group(2), int(m.group(3))))
    demo = [s for s in samples if "executable:[demo]" in s[2]]
    n = sum(s[0] for s in demo)
    good = sum(s[0] for s in demo if has_chain([f for lid in s[1] for f in locs[lid]]))
    if not n:
        fail("go tool pprof -raw: no sample of the demo program (%d samples in all)" % len(samples))
    if good < 0.9 * n:
        fail("go tool pprof -raw: the demo's chain %s with demo.c lines in %d of its %d samples"
             % (";".join(reversed(CHAIN)), good, n))
    print("   go tool pprof -raw: %d of the demo's %d samples have its chain with file and line"
          % (good, n))


def cmd_profile(url, secs):
    st, h, body = request("%s?seconds=%s" % (url, secs), timeout=int(secs) + 10)
    p = check_profile_answer(st, h, body, "scrape")
    n, good = demo_share(p)
    if not n or good < 0.9 * n:
        fail("scrape: the demo's chain in %d of its %d samples" % (good, n))
    print("   scrape of %s s: %d samples, the demo's chain in %d of its %d; comments %s"
          % (secs, sum(s["values"][0] for s in p["samples"]), good, n, p["comments"]))


def gap_seconds(comments):
    t = 0.0
    for c in comments:
        m = re.match(r"not sampled for ([0-9.]+) s", c)
        if m:
            t += float(m.group(1))
    return t


def cmd_cadence(url, total, n, interval, fxsampler, sock, out):
    total, n, interval = int(total), int(n), int(interval)
    results = [[] for _ in range(n)]
    errors = []

    def scraper(k):
        # Parca: a scrape every interval, seconds=interval, timeout interval + 3 s;
        # the scrapers start apart, as Parca spreads its targets.
        time.sleep(k * interval / n)
        end = time.time() + total
        nxt = time.time()
        while nxt + interval <= end + 0.5:
            time.sleep(max(0, nxt - time.time()))
            t0 = time.time()
            try:
                st, h, body = request("%s?seconds=%d" % (url, interval), timeout=interval + 3)
            except Exception as e:
                errors.append("scraper %d: %s" % (k, e))
                return
            results[k].append((t0, time.time(), st, h, body))
            nxt = max(nxt + interval, time.time())

    threads = [threading.Thread(target=scraper, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    # A user records through the daemon meanwhile: it gets a complete file.
    time.sleep(min(interval / 2 + 1, total / 3))
    rec = subprocess.run([fxsampler, "record", "--daemon", "--socket", sock, "-a", "-F", "499",
                          "-d", "2s", "-q", "-o", out], capture_output=True, text=True)
    if rec.returncode != 0:
        fail("a user's record during the scrapes: exit %d: %s" % (rec.returncode, rec.stderr))
    rep = subprocess.run([fxsampler, "report", "--top", "3", out], capture_output=True, text=True)
    if rep.returncode != 0:
        fail("the user's file is not complete: report says %s" % rep.stderr)
    for t in threads:
        t.join()
    if errors:
        fail("; ".join(errors))
    gaps = 0
    for k, rs in enumerate(results):
        if not rs:
            fail("scraper %d made no scrape" % k)
        last_end = None
        for i, (t0, t1, st, h, body) in enumerate(rs):
            what = "scraper %d, scrape %d" % (k, i)
            p = check_profile_answer(st, h, body, what)
            gap = gap_seconds(p["comments"])
            gaps += any("held the sampler" in c for c in p["comments"])
            # The window is interval s, or longer when a loaded host answers late:
            # at most the time the scraper waited for its answer.
            d = p["duration_nanos"] / 1e9
            if not interval - gap - 1 <= d <= max(interval, t1 - t0) - gap + 1:
                fail("%s: duration_nanos %d, but the window is %d s (answered in %.3f s) with "
                     "%.3f s not sampled (comments %s)"
                     % (what, p["duration_nanos"], interval, t1 - t0, gap, p["comments"]))
            # The demo runs one thread: no window can hold more of its samples than
            # its sampled time allows, which a sample counted twice (or one from
            # before the window) would break.
            nd, _ = demo_share(p)
            most = p["duration_nanos"] / p["period"] * 1.1 + 5
            if nd > most:
                fail("%s: %d samples of the one-thread demo in %.3f s at %.0f Hz" %
                     (what, nd, p["duration_nanos"] / 1e9, 1e9 / p["period"]))
            if not p["time_nanos"]:
                fail("%s: no time_nanos" % what)
            # The window is [time_nanos, time_nanos + seconds): consecutive ones of a
            # scraper are disjoint, so no sample (counted by its time) is in two.
            if last_end is not None and p["time_nanos"] < last_end:
                fail("%s: its window starts %.3f s before the last one ended"
                     % (what, (last_end - p["time_nanos"]) / 1e9))
            last_end = p["time_nanos"] + interval * 10**9
            if not any(c.startswith("samples lost") for c in p["comments"]):
                fail("%s: no lost-samples comment: %s" % (what, p["comments"]))
    if not gaps:
        fail("no scrape window says in its comments that the user's record held the sampler")
    print("   %d scrapers, %s scrapes each, all valid; %d windows say the user's record's gap"
          % (n, [len(r) for r in results], gaps))


def expect(url, status, what, method="GET", headers=None, text=None):
    st, h, body = request(url, method=method, headers=headers)
    if st != status:
        fail("%s: status %d, not %d: %r" % (what, st, status, body[:200]))
    if status != 200:
        if not h.get("content-type", "").startswith("text/plain"):
            fail("%s: Content-Type %r" % (what, h.get("content-type")))
        if h.get("x-go-pprof") != "1":
            fail("%s: no X-Go-Pprof: 1" % what)
        if text and text not in body.decode(errors="replace"):
            fail("%s: %r does not say %r" % (what, body, text))
    return st, h, body


def served(url, what):
    st, h, body = request(url + "?seconds=1", timeout=15)
    if st != 200 or alloy_body_ok(h, body):
        fail("after %s the daemon does not serve: %d" % (what, st))


def cmd_bad(url, maxs):
    base = url.rsplit("/debug/", 1)[0]
    for q, text in (("0", "not in 1..%s" % maxs), ("-1", "not a whole number"),
                    ("abc", "not a whole number"), (str(int(maxs) + 1), "not in 1..%s" % maxs),
                    ("", "not a whole number")):
        expect("%s?seconds=%s" % (url, q), 400, "seconds=%s" % q, text=text)
    expect(base + "/", 404, "/")
    expect(base + "/debug/pprof/heap", 404, "/debug/pprof/heap")
    expect(base + "/debug/pprof/symbol", 404, "/debug/pprof/symbol")
    expect(base + "/debug/pprof/offcpu?seconds=1", 404, "offcpu", text="no off-CPU")
    for m in ("POST", "PUT", "DELETE", "HEAD"):
        st, h, body = request(url + "?seconds=1", method=m)
        if st not in (400, 405):
            fail("%s: status %d" % (m, st))
    # 64 KiB of headers
    st, h, body = expect(url + "?seconds=1", 431, "64 KiB headers", headers={"X-Big": "a" * 65536},
                         text="over 32 KiB")
    print("   seconds 0, -1, abc, over the cap, empty: 400; unknown paths: 404; other "
          "methods: 405; 64 KiB headers: %d" % st)
    served(url, "bad requests")

    # 1,000 connections within a second from one address, in batches the listen backlog
    # (128) holds (past it the kernel drops handshakes, and with SYN cookies a silent
    # client stays connected to nothing): 8 held (the cap per address), the rest 429.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    u = urllib.parse.urlsplit(url)
    socks = []
    for i in range(1000):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex((u.hostname, u.port))
        socks.append(s)
        if i % 100 == 99:
            time.sleep(0.1)
    time.sleep(1.5)
    held = refused = other = 0
    for s in socks:
        try:
            got = s.recv(13)
        except BlockingIOError:
            held += 1
            continue
        except OSError:
            got = b""
        if got == b"HTTP/1.1 429 ":
            refused += 1
        else:
            other += 1
    if held > 8 or refused < 1000 - 8 - 8:
        fail("1000 connections from one address: %d held, %d answered 429, %d other (the cap "
             "is 8 at once per address)" % (held, refused, other))
    for s in socks:
        s.close()
    print("   1000 connections within a second from one address: %d held (8 at once per "
          "address), %d answered 429, %d other" % (held, refused, other))
    served(url, "1000 connections")

    # A client that sends half a request, and one that reads nothing.
    slow = socket.create_connection((u.hostname, u.port))
    slow.sendall(b"GET /debug/pprof/profile?seconds=1 HTTP/1.1\r\nHost: x\r\n")
    deaf = socket.create_connection((u.hostname, u.port))
    deaf.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    deaf.sendall(b"GET /debug/pprof/profile?seconds=1 HTTP/1.1\r\nHost: x\r\n\r\n" * 50)
    served(url, "a slow client and a deaf one")
    # the gate answers 408 and closes after 5 s without a whole request
    slow.settimeout(25)
    t0 = time.time()
    try:
        while slow.recv(1024):
            pass
    except socket.timeout:
        fail("a half-sent request was not cut off within 25 s")
    except ConnectionResetError:
        pass
    waited = time.time() - t0
    deaf.close()
    slow.close()
    print("   a half-sent request is cut off after %.0f s; a client that reads nothing does "
          "not stop others" % waited)
    served(url, "the slow clients")


def cmd_limits(url, maxscrapes):
    maxscrapes = int(maxscrapes)
    out = []
    ts = [threading.Thread(target=lambda: out.append(request(url + "?seconds=3")[0]))
          for _ in range(maxscrapes)]
    for t in ts:
        t.start()
    time.sleep(1)
    expect(url + "?seconds=1", 503, "a scrape over http_max_scrapes", text="http_max_scrapes")
    for t in ts:
        t.join()
    if out != [200] * maxscrapes:
        fail("%d scrapes at once: %s" % (maxscrapes, out))
    print("   %d scrapes at once served, one more: 503" % maxscrapes)


def cmd_offcpu(url, secs):
    st, h, body = request("%s?seconds=%s" % (url, secs), timeout=int(secs) + 10)
    if st != 200 or alloy_body_ok(h, body):
        fail("offcpu: status %d: %r" % (st, body[:200]))
    p = parse_profile(body)
    if p["sample_type"] != [("off_cpu", "nanoseconds")]:
        fail("offcpu: sample types %s" % p["sample_type"])
    sleeper = [s for s in p["samples"] if s["labels"].get("thread") == "sleeper"]
    ns = sum(s["values"][0] for s in sleeper)
    # libc has no frame pointers: a blocked stack reads libc, a_mid, a_outer
    good = sum(s["values"][0] for s in sleeper
               if "a_mid" in [f[0] for f in frames(p, s)] and
               "a_outer" in [f[0] for f in frames(p, s)])
    if not ns:
        fail("offcpu: no off-CPU time of the sleeper thread")
    if good < 0.9 * ns:
        fail("offcpu: the sleeper's chain (a_mid, a_outer) in %d of its %d ns" % (good, ns))
    # an interval counts whole where it ends: at most one 200 ms sleep more than the window
    if ns > p["duration_nanos"] + 250 * 10**6:
        fail("offcpu: the sleeper was off the CPU %.3f s in a window of %.3f s"
             % (ns / 1e9, p["duration_nanos"] / 1e9))
    print("   offcpu: the sleeper off the CPU %.3f s of the %.3f s window, %.0f %% under its "
          "chain" % (ns / 1e9, p["duration_nanos"] / 1e9, 100.0 * good / ns))


def cmd_token(url, token):
    for hdr, what in (({}, "no token"), ({"Authorization": "Bearer wrong"}, "a wrong token"),
                      ({"Authorization": "Bearer " + token + "x"}, "a longer token"),
                      ({"Authorization": "Basic " + token}, "another scheme")):
        st, h, body = expect(url + "?seconds=1", 401, what)
        if body[:2] == b"\x1f\x8b" or b"demo" in body:
            fail("%s: the 401 carries data" % what)
    st, h, body = request(url + "?seconds=2", headers={"Authorization": "Bearer " + token})
    p = check_profile_answer(st, h, body, "with the token")
    n, good = demo_share(p)
    if not n:
        fail("with the token: no demo sample")
    print("   no, wrong, longer token, other scheme: 401; the token: 200 with %d demo samples" % n)


def main():
    cmds = {"raw": cmd_raw, "cadence": cmd_cadence, "bad": cmd_bad, "limits": cmd_limits,
            "token": cmd_token, "profile": cmd_profile, "offcpu": cmd_offcpu}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        fail("usage: http_check.py %s ARGS" % "|".join(cmds))
    cmds[sys.argv[1]](*sys.argv[2:])


if __name__ == "__main__":
    main()
