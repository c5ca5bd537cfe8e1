#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""activate.py DIR CONFIG [RUNNER]: start DIR/fxsamplerd as systemd would
(socket activation: a listening socket at fd 3, LISTEN_PID/LISTEN_FDS;
Type=notify: NOTIFY_SOCKET), under RUNNER (qemu-user) if given. It must say
READY=1, answer `DIR/fxsampler status` on that socket, and on SIGTERM say
STOPPING=1 and exit 0. No BPF: the daemon loads it only for a session.
tests/cross.sh runs this against the static daemon, whose sd_* calls are
daemon/static/sd-daemon.c."""
import os
import signal
import socket
import subprocess
import sys
import tempfile


def fail(msg):
    sys.exit(f"FAIL: activate: {msg}")


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: activate.py DIR CONFIG [RUNNER]")
    bindir, config = sys.argv[1], sys.argv[2]
    runner = [sys.argv[3]] if len(sys.argv) == 4 and sys.argv[3] else []
    tmp = tempfile.mkdtemp(prefix="fxs-activate.")
    ctl, nfy, log = tmp + "/ctl.sock", tmp + "/notify.sock", tmp + "/log"
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(ctl)
    ls.listen(8)
    ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ns.bind(nfy)
    ns.settimeout(60)

    def at_fd3():
        os.dup2(ls.fileno(), 3)
        os.set_inheritable(3, True)

    env = dict(os.environ, LISTEN_FDS="1", NOTIFY_SOCKET=nfy)
    # LISTEN_PID is the pid that execs the daemon (qemu-user keeps it).
    cmd = ["sh", "-c", 'LISTEN_PID=$$ exec "$@"', "sh"] + runner + \
        [bindir + "/fxsamplerd", "--config", config, "-v"]
    with open(log, "w") as err:
        p = subprocess.Popen(cmd, env=env, preexec_fn=at_fd3, pass_fds=(3,), stderr=err)
    msgs = []

    def wait_for(state):
        while state not in msgs:
            try:
                msgs.append(ns.recv(256).decode())
            except socket.timeout:
                fail(f"no {state} from fxsamplerd (got {msgs}); log: {open(log).read()}")

    try:
        wait_for("READY=1")
        r = subprocess.run(runner + [bindir + "/fxsampler", "status"],
                           env=dict(os.environ, FXSAMPLER_SOCKET=ctl),
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0 or "idle" not in r.stdout:
            fail(f"status: exit {r.returncode}: {r.stdout} {r.stderr}")
        if "listening on the socket passed by systemd" not in open(log).read():
            fail(f"fxsamplerd did not take the passed socket: {open(log).read()}")
        p.send_signal(signal.SIGTERM)
        wait_for("STOPPING=1")
        rc = p.wait(timeout=60)
        if rc != 0:
            fail(f"fxsamplerd exited {rc} on SIGTERM: {open(log).read()}")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        for f in (ctl, nfy, log):
            if os.path.exists(f):
                os.unlink(f)
        os.rmdir(tmp)


main()
