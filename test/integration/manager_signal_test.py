#!/usr/bin/env python3
"""SIGTERM/SIGINT handling of a manager process (manager_signal_main):

1. SIGTERM while a slow work item is in flight: the item finishes, the
   process exits 0 within the graceful shutdown timeout.
2. A second signal during the graceful stop: exit 1 at once.
3. Work longer than --graceful-shutdown-timeout: cancelled, exit 1.
4. SIGTERM while the process still sets up (between from_flags and run):
   held until run() has its handler, then a clean stop, exit 0.

Waits on the child's stderr markers, never on sleeps; every wait is bounded.
Usage: manager_signal_test.py <manager_signal_main>
"""
import queue
import signal
import subprocess
import sys
import threading
import time

EXE = sys.argv[1]
COMMON = ["--metrics-bind-address=0", "--health-probe-bind-address=0", "--log-format=console"]


class Child:
    def __init__(self, *args):
        self.proc = subprocess.Popen([EXE, *COMMON, *args], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, text, timeout=20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            if text in line:
                return True
        raise AssertionError(f"did not see {text!r}; output:\n" + "\n".join(self.seen))

    def exit_code(self, timeout):
        start = time.monotonic()
        code = self.proc.wait(timeout=timeout)
        # drain what is left
        while True:
            line = self.lines.get(timeout=5)
            if line is None:
                break
            self.seen.append(line)
        return code, time.monotonic() - start

    def has(self, text):
        return any(text in line for line in self.seen)


def check(cond, msg, child):
    if not cond:
        print("FAIL:", msg)
        print("\n".join(child.seen))
        sys.exit(1)


def graceful():
    c = Child("--work-ms=1500", "--graceful-shutdown-timeout=20s", "--leader-elect",
              "--leader-election-id=signal-test", "--leader-election-namespace=default",
              "--leader-elect-release-on-cancel")
    c.wait_for("marker: item begin")
    c.proc.send_signal(signal.SIGTERM)
    code, took = c.exit_code(timeout=20)
    check(code == 0, f"exit code {code}, want 0", c)
    check(c.has("marker: item done"), "the in-flight item did not finish", c)
    check(c.has("marker: stopped"), "the runnable did not stop cleanly", c)
    check(not c.has("marker: cancelled"), "the in-flight item was cancelled", c)
    check(c.has("received signal, stopping"), "no log line for the signal", c)
    check(c.has("released leader lease"), "the lease was not released", c)
    print(f"ok: SIGTERM during work: in-flight item finished, exit 0 after {took:.2f}s")


def second_signal():
    c = Child("--work-ms=60000", "--graceful-shutdown-timeout=60s")
    c.wait_for("marker: item begin")
    c.proc.send_signal(signal.SIGINT)
    c.wait_for("received signal, stopping")
    c.proc.send_signal(signal.SIGTERM)
    code, took = c.exit_code(timeout=10)
    check(code == 1, f"exit code {code}, want 1", c)
    check(not c.has("marker: item done"), "the item finished: the second signal did not exit at once", c)
    print(f"ok: second signal exits at once with 1 after {took:.2f}s")


def deadline():
    c = Child("--work-ms=60000", "--graceful-shutdown-timeout=500ms")
    c.wait_for("marker: item begin")
    c.proc.send_signal(signal.SIGTERM)
    code, took = c.exit_code(timeout=20)
    check(code == 1, f"exit code {code}, want 1", c)
    check(c.has("marker: cancelled"), "the item past the deadline was not cancelled", c)
    print(f"ok: work past --graceful-shutdown-timeout is cancelled, exit 1 after {took:.2f}s")


def during_startup():
    # SIGTERM between from_flags and run(): held, then a clean stop (exit
    # 0), not a death by the signal (143) in the middle of the set-up.
    c = Child("--startup-ms=1500", "--work-ms=100")
    c.wait_for("marker: setting up")
    c.proc.send_signal(signal.SIGTERM)
    code, took = c.exit_code(timeout=20)
    check(code == 0, f"exit code {code}, want 0", c)
    check(c.has("received signal, stopping"), "the held signal did not reach the manager", c)
    print(f"ok: SIGTERM during start-up is held until run(): exit 0 after {took:.2f}s")


graceful()
second_signal()
deadline()
during_startup()
