#!/usr/bin/env python3
"""configmap-mirror sharded over 1, 2 and 4 replicas (issue 24's benchmark).

For each filtering mode and ring size: the kcoro-apiserver binary (TLS, its
own process; in `server` mode with --feature-gates=ShardedListAndWatch=true,
so the replicas' primary informers list and watch their share with a
KEP-5866 shardSelector; in `client` mode without it, so each replica lists
everything and drops what is not its share right after decoding) preloaded
with N parents (about 1.4 KB each, as mirror_bench's), then R configmap-mirror
replicas started together with --sharding-ring=mirror. The sync ends when the
server's request log shows the N-th child created. Then, per replica: the
parents its primary cache holds (kcoro_shard_owned_keys: kcoro_informer_cache_objects
is one series per resource, which the parents' and children's informers
share), RssAnon and CPU
(/proc/PID/status and stat), the bytes it received (`ss -tinp`'s
bytes_received of its TCP connections, sampled every 0.2 s while it syncs:
its TLS streams from the server, nearly all list and watch bodies;
/proc/PID/io's rchar does not count recvmsg). With 4
replicas, one is then killed (SIGKILL) and the handover time is measured:
until the survivors' kcoro_shard_owned_keys add up to N again (its keys
cached and owned by the others, each of its keys re-reconciled).

Prints one table row per run and the ratios the issue asks for: per-replica
RssAnon, CPU and bytes read against (1-replica figure)/R.

  sharded_mirror_bench.py APISERVER MIRROR [--parents N] [--replicas 1,2,4]
                          [--modes server,client] [--timeout S] [--stagger S] [--keep]
                          [--csv docs/img/shard_bench.csv]
"""
import argparse
import csv
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

LEASE = ["--leader-elect-lease-duration=6s", "--leader-elect-renew-deadline=4s",
         "--leader-elect-retry-period=1s"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def metrics(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            return r.read().decode()
    except OSError:
        return ""


def metric_sum(text, name, labels=""):
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name) or line.startswith("#"):
            continue
        rest = line[len(name):]
        if rest[:1] not in ("{", " "):
            continue
        if labels and labels not in line:
            continue
        total += float(line.rsplit(" ", 1)[1])
    return total


def proc(pid, sockets):
    out = {"cpu": 0.0, "anon_kb": 0, "rchar": 0}
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tck = os.sysconf("SC_CLK_TCK")
    out["cpu"] = (int(fields[11]) + int(fields[12])) / tck
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                out["anon_kb"] = int(line.split()[1])
    sockets.sample([pid])
    out["rchar"] = sockets.total(pid)
    return out


class SocketBytes:
    """bytes_received per TCP connection of the replicas (ss -tinp), sampled
    while they run: the largest figure seen of each connection counts, so a
    list's connection closed before the end is not lost (what is read
    between its last sample and its close is)."""

    def __init__(self):
        self.seen = {}  # (pid, local, peer) -> bytes_received

    def sample(self, pids):
        try:
            text = subprocess.run(["ss", "-tinpH"], capture_output=True, text=True, timeout=10).stdout
        except (OSError, subprocess.TimeoutExpired):
            return
        key = None
        for line in text.splitlines():
            if not line.startswith(("\t", " ")):
                f = line.split()
                key = None
                for pid in pids:
                    if f"pid={pid}," in line and len(f) >= 5:
                        key = (pid, f[3], f[4])
                continue
            if key:
                for field in line.split():
                    if field.startswith("bytes_received:"):
                        n = int(field.split(":", 1)[1])
                        self.seen[key] = max(self.seen.get(key, 0), n)

    def total(self, pid):
        return sum(n for (p, _, _), n in self.seen.items() if p == pid)


def parent_doc(i):
    data = {}
    for k in range(10):
        v = f"setting-{k}-{i}-"
        while len(v) < 100:
            v += "0123456789abcdef"
        data[f"key-{k}"] = v
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": f"parent-{i}", "namespace": "default",
                         "labels": {"app.example.io/managed": "true"}},
            "data": data}


class ChildCount:
    """Children created (201) as the server's request log tells, read incrementally."""

    def __init__(self, path):
        self.path, self.offset, self.n = path, 0, 0

    def read(self):
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            for line in f:
                if not line.endswith(b"\n"):
                    break
                self.offset += len(line)
                if b'"msg":"request"' in line and b'"verb":"create"' in line and b'"code":201' in line \
                        and b"/configmaps" in line:
                    self.n += 1
        return self.n


def run(cfg, mode, replicas, work):
    kc = os.path.join(work, f"kc-{mode}-{replicas}")
    slog = os.path.join(work, f"server-{mode}-{replicas}.log")
    args = [cfg.apiserver, "--listen", "127.0.0.1:0", "--tls", "--no-simulate-workloads",
            "--history", str(4 * cfg.parents + 10000), "--write-kubeconfig", kc, "--load", cfg.parents_file]
    if mode == "server":
        args.append("--feature-gates=ShardedListAndWatch=true")
    server = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=open(slog, "w"))
    procs = [server]
    try:
        t_load = time.monotonic()
        while not (os.path.exists(kc) and "client-key-data" in open(kc).read()):
            if server.poll() is not None or time.monotonic() - t_load > cfg.timeout:
                raise SystemExit(f"kcoro-apiserver did not start; see {slog}")
            time.sleep(0.1)
        count = ChildCount(slog)
        reps = []
        t0 = time.monotonic()
        for r in range(replicas):
            port = free_port()
            p = subprocess.Popen([cfg.mirror, "--kubeconfig", kc, "--sharding-ring=mirror",
                                  "--leader-election-namespace=default", f"--metrics-bind-address=127.0.0.1:{port}",
                                  "--health-probe-bind-address=0", *LEASE],
                                 stdout=subprocess.DEVNULL,
                                 stderr=open(os.path.join(work, f"mirror-{mode}-{replicas}-{r}.log"), "w"))
            procs.append(p)
            reps.append((p, port))
            if cfg.stagger and r + 1 < replicas:
                time.sleep(cfg.stagger)  # a rollout's pods do not start at one instant
        sockets = SocketBytes()
        while count.read() < cfg.parents:
            sockets.sample([p.pid for p, _ in reps])
            if time.monotonic() - t0 > cfg.timeout:
                raise SystemExit(f"{mode} x{replicas}: {count.n} of {cfg.parents} children after {cfg.timeout} s")
            for p, _ in reps:
                if p.poll() is not None:
                    raise SystemExit(f"a replica exited ({p.returncode}); see {work}")
            time.sleep(0.2)
        sync = time.monotonic() - t0
        rows = []
        for p, port in reps:
            f = proc(p.pid, sockets)
            m = metrics(port)
            f["owned"] = int(metric_sum(m, "kcoro_shard_owned_keys"))
            f["cached"] = f["owned"]
            f["server_filtered"] = "shard filtering by the server" in open(
                os.path.join(work, f"mirror-{mode}-{replicas}-{reps.index((p, port))}.log")).read()
            rows.append(f)
        handover = None
        if replicas == 4:
            victim, _ = reps[-1]
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            tk = time.monotonic()
            while True:
                owned = sum(metric_sum(metrics(port), "kcoro_shard_owned_keys") for _, port in reps[:-1])
                if owned >= cfg.parents:
                    handover = time.monotonic() - tk
                    break
                if time.monotonic() - tk > cfg.timeout:
                    break
                time.sleep(0.2)
        return {"sync": sync, "rows": rows, "handover": handover}
    finally:
        for p in procs[1:]:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs[1:]:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        server.send_signal(signal.SIGTERM)
        server.wait()


CSV_COLUMNS = ["parents", "mode", "replicas", "replica", "owned", "rss_anon_mb", "cpu_s", "mb_received",
               "sync_s", "stagger_s"]


def write_csv(cfg, mode, replicas, res):
    """One row per replica of this run, appended (the header once)."""
    new = not os.path.exists(cfg.csv) or os.path.getsize(cfg.csv) == 0
    with open(cfg.csv, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(CSV_COLUMNS)
        for i, r in enumerate(res["rows"]):
            w.writerow([cfg.parents, mode, replicas, i, r["owned"], f"{r['anon_kb'] / 1024:.1f}",
                        f"{r['cpu']:.2f}", f"{r['rchar'] / 1e6:.1f}", f"{res['sync']:.1f}", cfg.stagger])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("apiserver")
    ap.add_argument("mirror")
    ap.add_argument("--parents", type=int, default=100000)
    ap.add_argument("--replicas", default="1,2,4")
    ap.add_argument("--modes", default="server,client")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--keep", action="store_true", help="keep the work directory (the logs)")
    ap.add_argument("--stagger", type=float, default=0.0, help="seconds between the replicas' starts")
    ap.add_argument("--csv", help="append one row per replica per run to this file "
                                  "(docs/img/shard_bench.csv: scripts/bench-plot draws it)")
    cfg = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sharded-mirror-bench-")
    cfg.parents_file = os.path.join(work, "parents.yaml")
    with open(cfg.parents_file, "w") as f:
        for i in range(cfg.parents):
            f.write("---\n" + json.dumps(parent_doc(i)) + "\n")
    print(f"sharded_mirror_bench: {cfg.parents} parents, {os.cpu_count()} CPUs, lease 6 s / 4 s / 1 s, "
          f"replicas started {cfg.stagger} s apart")
    print("mode   R  sync_s  per replica: parents owned / RssAnon MB / CPU s / MB received   handover_s")
    ok = True
    for mode in cfg.modes.split(","):
        base = None
        for replicas in [int(x) for x in cfg.replicas.split(",")]:
            res = run(cfg, mode, replicas, work)
            rows = res["rows"]
            cells = "  ".join(f"{r['cached']}/{r['anon_kb'] / 1024:.0f}/{r['cpu']:.1f}/{r['rchar'] / 1e6:.1f}"
                              for r in rows)
            ho = f"{res['handover']:.1f}" if res["handover"] is not None else "-"
            print(f"{mode:6} {replicas}  {res['sync']:6.1f}  {cells}   {ho}", flush=True)
            if replicas == 4 and res["handover"] is None:
                print("  the survivors never owned every key again")
                ok = False
            if mode == "server" and not all(r["server_filtered"] for r in rows):
                print("  a replica did not use the server's shardSelector")
                ok = False
            if cfg.csv:
                write_csv(cfg, mode, replicas, res)
            if replicas == 1:
                base = rows[0]
            elif base:
                worst = {k: max(r[k] for r in rows) / (base[k] / replicas) for k in ("anon_kb", "cpu", "rchar")}
                print(f"       worst replica vs (1-replica)/{replicas}: RssAnon {worst['anon_kb']:.2f}x, "
                      f"CPU {worst['cpu']:.2f}x, bytes received {worst['rchar']:.2f}x", flush=True)
    if cfg.keep:
        print(f"logs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
