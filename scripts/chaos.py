"""`make chaos`: the real stack under load, with faults injected at seeded random moments.

The five services run from their binaries (scripts/stack.py), rates-fetcher with mock feeds and Bitso's
mock polled every `--flood-period` seconds (by default 0.005: 200 polls, 1,200 quotes a second; 0 flat
out; `--no-flood` its demo period of a second). The converter and the portfolio run in a network namespace of their
own, joined to the others by a veth pair, so the link can be delayed, made lossy (tc netem) and cut; the
portfolio's database lives on a small ext4 file system of its own (a loop-mounted image) that can be
filled and turned read-only. Everything created here (namespace, veth, mount, image) is removed at the
end, also when the run fails or is interrupted.

Load, all the time: two traders adding trades (`trades.add`, each with its own `requestId`, retried with
the same id until acknowledged), a reader (`convert`, `holdings`, the presenter's `portfolio` view), two
SSE clients of the presenter's `/events` (one of which the harness uses to see the presenter's prices),
and two Python subscribers of the converter's `price.` (the tickwire package of clients/python), one of which is made
to stop reading.

Faults, one at a time, drawn from the seed (`--seed`): their kinds (every kind once per round, in a
seeded order), targets, durations and the pauses between them:

- kill: kill -9 of a service, restarted at once on the same endpoints and data (as systemd would);
- stop: SIGSTOP of a service for 1-4 s, then SIGCONT (a hung peer);
- netem: 50-250 ms delay with 1-10 % loss on the namespace's link for 3-6 s;
- cut: the link down for 2-5 s;
- stall: the second Python subscriber stops reading for 3-8 s while prices flood in;
- disk-full: the portfolio's file system filled for 3-5 s;
- disk-ro: the portfolio's file system turned read-only (ext4's emergency read-only, as on an I/O
  error); an operator's repair follows: the portfolio stopped, the file system checked and mounted
  again, the portfolio started;
- pg-restart (with `--postgres`): the portfolio's PostgreSQL stopped (a fast shutdown, or an immediate
  one, PostgreSQL's crash: no checkpoint, recovery from the WAL at the next start) for 1-4 s, then
  started again.

With `--postgres` the portfolio keeps its activities in a PostgreSQL server of the run's own (Debian's
postgresql package: initdb into the work directory, run as the user postgres when the harness is root),
listening on the loopback and the veth address the portfolio's namespace reaches, so netem and cut
also come between the portfolio and its database; the disk faults are left out (the portfolio's
SQLite file is not in use).

After every fault, once healed, and at the end, the invariants:

- no acknowledged trade lost or duplicated: `trades.list` holds every acknowledged trade's id exactly
  once, and every trade's marker (its price is the trader's request number) at most once;
- every subscriber converges to its publisher's snapshot: the Python subscribers reach every topic's
  `seq` of a `snapshot` taken when the fault healed, and the presenter's SSE prices each equal that
  snapshot's price or a newer one (the time it took is the convergence time, bounded by `--bound`);
- clients recover without a restart: the same client objects answer again within the bound;
- no service exits but the one killed (or stopped for the repair);
- memory stays bounded (VmRSS under `--max-rss-mb`);
- during disk-full and disk-ro, a write gets a clear error (a JSON-RPC error naming the cause, never a
  timeout), reads (`holdings`, `trades.list`) keep being answered, and nothing acknowledged is lost;
- during pg-restart, a write gets -32000 (the database unavailable, safe to retry with the same
  `requestId`), never a timeout or an acknowledgement; the traders retry theirs until acknowledged.

Prints a summary with `lost 0` and `duplicated 0`, and writes the figures into --report
(bench/CHAOS.md, between its chaos markers). Exits 1 when an invariant failed.
"""
import argparse
import collections
import glob
import http.client
import json
import os
import pwd
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from decimal import Decimal
from urllib.parse import urlparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from stack import SERVICES, Stack, free_port, percentile  # noqa: E402
from tickwire import Client, RPCError, Subscriber, TickwireError, Unreachable  # noqa: E402
import zmq  # noqa: E402

KINDS = ["kill", "stop", "netem", "cut", "stall", "disk-full", "disk-ro", "pg-restart"]
ROOT_KINDS = {"netem", "cut", "disk-full", "disk-ro"}
DISK_KINDS = {"disk-full", "disk-ro"}
POSTGRES_KINDS = {"pg-restart"}
NAMESPACED = ["converter", "portfolio"]


def run(command, check=True):
    """Runs a system command (ip, tc, mount...), quietly; raises with its stderr when it fails."""
    result = subprocess.run(command, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {result.stderr.strip()}")
    return result


class Environment:
    """The network namespace with its veth link, and the portfolio's small ext4 file system."""

    def __init__(self, work_dir, with_root):
        self.work_dir, self.with_root = work_dir, with_root
        tag = os.getpid() % 100000
        self.netns = f"twchaos{tag}"
        self.veth_root, self.veth_ns = f"twc{tag}a", f"twc{tag}b"
        subnet = 10 + tag % 240
        self.root_ip, self.ns_ip = f"10.213.{subnet}.1", f"10.213.{subnet}.2"
        self.image = os.path.join(work_dir, "disk.img")
        self.disk = os.path.join(work_dir, "disk")
        self.made = []

    def create(self):
        """Makes the namespace and the disk; returns the fault kinds they allow (a machine without root, a
        network namespace or loop devices runs only the others)."""
        os.makedirs(self.disk, exist_ok=True)
        kinds = {"kill", "stop", "stall"}
        if not self.with_root:
            return kinds
        try:
            self.create_network()
            kinds |= {"netem", "cut"}
        except (RuntimeError, OSError) as error:
            print(f"chaos: no network namespace ({error}): no netem or cut faults", flush=True)
            self.destroy()
        try:
            run(["truncate", "-s", "48M", self.image])
            run(["mkfs.ext4", "-q", "-F", "-m", "0", self.image])
            self.mount()
            kinds |= {"disk-full", "disk-ro"}
        except (RuntimeError, OSError) as error:
            print(f"chaos: no loop-mounted disk ({error}): no disk faults", flush=True)
        return kinds

    def create_network(self):
        run(["ip", "netns", "add", self.netns])
        self.made.append("netns")
        run(["ip", "link", "add", self.veth_root, "type", "veth", "peer", "name", self.veth_ns])
        self.made.append("veth")
        run(["ip", "link", "set", self.veth_ns, "netns", self.netns])
        run(["ip", "addr", "add", f"{self.root_ip}/30", "dev", self.veth_root])
        run(["ip", "link", "set", self.veth_root, "up"])
        run(["ip", "-n", self.netns, "addr", "add", f"{self.ns_ip}/30", "dev", self.veth_ns])
        run(["ip", "-n", self.netns, "link", "set", self.veth_ns, "up"])
        run(["ip", "-n", self.netns, "link", "set", "lo", "up"])

    def mount(self):
        run(["mount", "-o", "loop,errors=remount-ro", self.image, self.disk])
        if "mount" not in self.made:
            self.made.append("mount")

    def link(self, up):
        for args in (["ip", "link", "set", self.veth_root], ["ip", "-n", self.netns, "link", "set", self.veth_ns]):
            run(args + ["up" if up else "down"])

    def netem(self, delay_ms, loss_percent):
        """Delay and loss on the link, both ways: tc netem where the kernel has it; else (a kernel built
        without CONFIG_NET_SCH_NETEM) a token bucket as slow as to queue about `delay_ms` under the flood, and
        iptables' `statistic` match dropping `loss_percent` of the packets."""
        self.netem_mode = "netem"
        for prefix, dev in self.qdisc_targets():
            if run(prefix + ["qdisc", "replace", "dev", dev, "root", "netem", "delay", f"{delay_ms}ms",
                             "loss", f"{loss_percent}%"], check=False).returncode != 0:
                self.netem_mode = "tbf+iptables"
                break
        if self.netem_mode == "netem":
            return
        for prefix, dev in self.qdisc_targets():
            run(prefix + ["qdisc", "replace", "dev", dev, "root", "tbf", "rate", "4mbit", "burst", "16kb",
                          "latency", f"{delay_ms}ms"])
        if not shutil.which("iptables"):
            self.netem_mode = "tbf (no iptables: no loss)"
            return
        probability = f"{loss_percent / 100:.3f}"
        for chain, flag in (("INPUT", "-i"), ("OUTPUT", "-o")):
            run(["ip", "netns", "exec", self.netns, "iptables", "-A", chain, flag, self.veth_ns, "-m", "statistic",
                 "--mode", "random", "--probability", probability, "-j", "DROP"])

    def qdisc_targets(self):
        return ((["tc"], self.veth_root), (["ip", "netns", "exec", self.netns, "tc"], self.veth_ns))

    def clear_netem(self):
        for prefix, dev in self.qdisc_targets():
            run(prefix + ["qdisc", "del", "dev", dev, "root"], check=False)
        run(["ip", "netns", "exec", self.netns, "iptables", "-F"], check=False)

    def fill(self):
        """Fills the disk: a file as large as the free space."""
        stats = os.statvfs(self.disk)
        free = stats.f_bavail * stats.f_frsize
        run(["fallocate", "-l", str(max(free, 4096)), os.path.join(self.disk, "filler")], check=False)
        try:
            with open(os.path.join(self.disk, "filler2"), "ab") as handle:  # whatever fallocate left
                while True:
                    handle.write(b"\0" * 65536)
                    handle.flush()
                    os.fsync(handle.fileno())
        except OSError:
            pass

    def unfill(self):
        """Frees the disk, and syncs: a deletion still in ext4's journal when a later fault turns the file system
        read-only would be undone by the repair, and the disk be full again."""
        for name in ("filler", "filler2"):
            try:
                os.remove(os.path.join(self.disk, name))
            except FileNotFoundError:
                pass
        os.sync()

    def read_only(self):
        """ext4's emergency read-only, as after an I/O error: writes fail with EROFS, reads go on."""
        device = os.path.basename(run(["findmnt", "-no", "SOURCE", self.disk]).stdout.strip())
        with open(f"/sys/fs/ext4/{device}/trigger_fs_error", "w") as handle:
            handle.write("1")

    def repair(self):
        """The operator's repair of the read-only file system (its writer stopped): unmount, check, mount."""
        run(["umount", self.disk])
        check = run(["e2fsck", "-fy", self.image], check=False)
        with open(os.path.join(self.work_dir, "e2fsck.log"), "a") as log:
            log.write(f"--- {datetime.now(timezone.utc).isoformat()} exit {check.returncode}\n{check.stdout}{check.stderr}")
        self.mount()

    def destroy(self):
        if "mount" in self.made:
            self.unfill()
            run(["umount", self.disk], check=False)
            run(["umount", "-l", self.disk], check=False)
        if "veth" in self.made:
            run(["ip", "link", "del", self.veth_root], check=False)
        if "netns" in self.made:
            run(["ip", "netns", "del", self.netns], check=False)
        self.made.clear()


class PostgresServer:
    """A throwaway PostgreSQL server for the portfolio: Debian's binaries (the newest of /usr/lib/postgresql/*/bin),
    a cluster made with initdb in `directory`, listening on `hosts` at `port`, the user `tickwire` trusted from the
    addresses `clients` (no password: nothing but this run reaches it). As root, every command runs as the user postgres (which
    the package makes), since postgres refuses to run as root."""

    def __init__(self, directory, hosts, clients, port):
        self.directory, self.hosts, self.clients, self.port = directory, hosts, clients, port
        self.data = os.path.join(directory, "data")
        self.log = os.path.join(directory, "postgres.log")
        self.started = 0
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
        if not found:
            raise RuntimeError("--postgres needs PostgreSQL's server (apt-get install postgresql, or make test's "
                               "WITH_POSTGRES=1 scripts/install-deps.sh)")
        self.bin = os.path.dirname(found[-1])
        self.user = None
        if os.geteuid() == 0:
            try:
                self.user = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("running as root, --postgres needs the user postgres (Debian's postgresql package makes it)")

    @property
    def url(self):
        """The portfolio's `--database`: the first host (the one its namespace reaches)."""
        return f"postgres://tickwire@{self.hosts[0]}:{self.port}/tickwire"

    def command(self, name, *args):
        command = [os.path.join(self.bin, name), *args]
        return ["runuser", "-u", "postgres", "--", *command] if self.user else command

    def create(self):
        os.makedirs(self.directory, exist_ok=True)
        if self.user:
            os.chown(self.directory, self.user.pw_uid, self.user.pw_gid)
        run(self.command("initdb", "-D", self.data, "-U", "tickwire", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"))
        with open(os.path.join(self.data, "pg_hba.conf"), "a") as hba:
            for client in self.clients:
                hba.write(f"host all tickwire {client}/32 trust\n")
        self.start()
        run(self.command("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "tickwire", "tickwire"))

    def start(self):
        options = f"-c listen_addresses={','.join(self.hosts)} -c port={self.port} -c unix_socket_directories={self.directory}"
        run(self.command("pg_ctl", "start", "-w", "-t", "60", "-D", self.data, "-l", self.log, "-o", options))
        self.started += 1

    def stop(self, mode="fast"):
        """Stops the server: `fast` (a checkpoint, then exit) or `immediate` (no checkpoint: a crash, as kill -9 of
        PostgreSQL would be; the next start recovers from the WAL)."""
        run(self.command("pg_ctl", "stop", "-w", "-t", "60", "-D", self.data, "-m", mode))

    def destroy(self):
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            run(self.command("pg_ctl", "stop", "-w", "-t", "30", "-D", self.data, "-m", "fast"), check=False)


class Record:
    """What the load saw, shared by the threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked = {}  # requestId -> (trade id, marker)
        self.acked_at = {}  # requestId -> monotonic time of the acknowledgement
        self.errors = collections.Counter()
        self.error_messages = {}
        self.last_ok = {}  # client -> monotonic time of its last answer

    def error(self, key, message=None):
        with self.lock:
            self.errors[key] += 1
            if message and key not in self.error_messages:
                self.error_messages[key] = message

    def ok(self, client):
        with self.lock:
            self.last_ok[client] = time.monotonic()


class Traders:
    """Trade writers: each trade has its own requestId and a unique marker (its price), and is retried with
    the same id until acknowledged."""

    def __init__(self, stack, record, seed, count=2):
        self.stack, self.record, self.seed = stack, record, seed
        self.numbers = iter(range(1, 10**9))
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.loop, args=(i,), daemon=True) for i in range(count)]

    def start(self):
        for thread in self.threads:
            thread.start()

    def next_trade(self):
        n = next(self.numbers)
        return {"asset": "BTC", "amount": "0.001", "price": str(n), "currency": "USD",
                "date": "2026-01-01T00:00:00.000Z", "requestId": f"chaos-{self.seed}-{n}"}

    def add(self, client, params, name, give_up_at=None):
        """Sends `params` until acknowledged (or `give_up_at`); returns the trade or None."""
        while give_up_at is None or time.monotonic() < give_up_at:
            try:
                trade = client.call("trades.add", params)
                if trade.get("price") is None or Decimal(trade["price"]) != Decimal(params["price"]):
                    self.record.error("trades.add:wrong-trade", json.dumps(trade))
                with self.record.lock:
                    self.record.acked[params["requestId"]] = (trade["id"], params["price"])
                    self.record.acked_at[params["requestId"]] = time.monotonic()
                self.record.ok(name)
                return trade
            except RPCError as error:
                self.record.error(f"trades.add:{error.code}", error.args[0] if error.args else str(error))
            except Unreachable:
                self.record.error("trades.add:unreachable")
            time.sleep(0.2)
        return None

    def loop(self, index):
        client = Client(self.stack.rep("portfolio"), timeout=1.0, retries=0)
        name = f"trader{index}"
        try:
            while not self.stop.is_set():
                params = self.next_trade()
                # The last trade in flight is finished (acknowledged) even when the run is stopping.
                self.add(client, params, name, give_up_at=None if not self.stop.is_set() else time.monotonic() + 60)
                self.stop.wait(0.05)
        finally:
            client.close()


def reader_loop(stack, record, stop):
    clients = {"convert": Client(stack.rep("converter"), timeout=1.0, retries=0),
               "holdings": Client(stack.rep("portfolio"), timeout=1.0, retries=0),
               "view": Client(stack.rep("presenter"), timeout=2.0, retries=0)}
    calls = {"convert": ("convert", {"amount": "10", "from": "USD", "to": "EUR"}),
             "holdings": ("holdings", {"currency": "USD"}),
             "view": ("view", {"screen": "portfolio"})}
    try:
        while not stop.is_set():
            for name, client in clients.items():
                method, params = calls[name]
                try:
                    client.call(method, params)
                    record.ok(name)
                except RPCError as error:
                    record.error(f"{name}:{error.code}", error.args[0] if error.args else str(error))
                except TickwireError:
                    record.error(f"{name}:unreachable")
            stop.wait(0.2)
    finally:
        for client in clients.values():
            client.close()


class PythonSubscriber:
    """A Python subscriber of the converter's prices in its own thread; `paused` stops it reading."""

    def __init__(self, stack, name, record):
        self.name, self.record = name, record
        self.lock = threading.Lock()
        self.paused = threading.Event()
        self.stop = threading.Event()
        self.context = zmq.Context()
        self.sub = Subscriber(stack.pub("converter"), stack.rep("converter"), ["price."], heartbeat_timeout=3.0,
                              context=self.context, client=Client(stack.rep("converter"), timeout=1.0, retries=0,
                                                                  context=self.context))
        self.history = collections.defaultdict(lambda: collections.deque(maxlen=400))  # topic -> (seq, price)
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        while not self.stop.is_set():
            if self.paused.is_set():
                self.stop.wait(0.05)
                continue
            with self.lock:
                changes = self.sub.poll(0.05)
                for topic, envelope in changes:
                    self.history[topic].append((envelope.get("seq"), envelope.get("data", {}).get("price")))
        self.sub.close()
        self.context.term()

    def state(self):
        with self.lock:
            return self.sub.synchronized, self.sub.instance, dict(self.sub.seqs), self.sub.resyncs, self.sub.gaps

    def newer_prices(self, topic, seq):
        """The prices this subscriber saw on `topic` at `seq` or later."""
        with self.lock:
            return {str(price) for s, price in self.history.get(topic, ()) if s is not None and s >= seq}


class SSEClient:
    """A client of the presenter's `/events` (USD): keeps the newest price of each asset; reconnects."""

    def __init__(self, stack, record, name, keep=True):
        self.url, self.record, self.name, self.keep = urlparse(stack.http), record, name, keep
        self.prices, self.lock = {}, threading.Lock()
        self.stop = threading.Event()
        self.connects = 0
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        while not self.stop.is_set():
            try:
                connection = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=3)
                connection.request("GET", "/events?currency=USD")
                response = connection.getresponse()
                self.connects += 1
                with self.lock:
                    self.prices = {}
                while not self.stop.is_set():
                    line = response.fp.readline()
                    if not line:
                        break
                    if line.startswith(b"data:") and self.keep:
                        event = json.loads(line[5:])
                        if "asset" in event and "raw" in event:
                            with self.lock:
                                self.prices[event["asset"]] = event["raw"]
                connection.close()
            except (OSError, http.client.HTTPException, ValueError):
                self.record.error(f"{self.name}:disconnected")
                self.stop.wait(0.5)

    def snapshot(self):
        with self.lock:
            return dict(self.prices)


def converter_snapshot(client):
    """The converter's `price.` snapshot: (instance, {topic: (seq, price)}), or None when unreachable."""
    try:
        result = client.call("snapshot", {"prefix": "price."})
    except TickwireError:
        return None
    entries = {}
    for entry in result["entries"]:
        body = json.loads(entry["body"])
        entries[entry["topic"]] = (entry["seq"], str(Decimal(body["data"]["price"])))
    return result["instance"], entries


def same_price(a, b):
    try:
        return Decimal(a) == Decimal(b)
    except Exception:
        return False


class Chaos:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.with_root = os.geteuid() == 0 and shutil.which("ip") and shutil.which("tc") and not args.no_root
        # --postgres: the PostgreSQL fault, and no disk faults (the portfolio's database is not on the disk);
        # without it, no PostgreSQL fault.
        excluded = DISK_KINDS if args.postgres else POSTGRES_KINDS
        self.kinds = [k for k in (args.kinds or KINDS) if (self.with_root or k not in ROOT_KINDS) and k not in excluded]
        self.postgres = None
        self.work_dir = args.work_dir
        self.env = Environment(self.work_dir, self.with_root)
        self.record = Record()
        self.faults = []  # dicts: kind, target, detail, seconds, convergence per observer, violations
        self.violations = []
        self.max_rss = collections.defaultdict(int)
        self.stop = threading.Event()

    def schedule(self):
        """The faults of the run, from the seed alone: rounds of every kind in a seeded order."""
        plan = []
        while len(plan) < self.args.faults:
            kinds = list(self.kinds)
            self.rng.shuffle(kinds)
            for kind in kinds:
                fault = {"kind": kind, "pause": round(self.rng.uniform(0.5, 2.0), 2)}
                if kind == "kill":
                    fault["target"] = self.rng.choice(SERVICES)
                elif kind == "stop":
                    fault.update(target=self.rng.choice(SERVICES), seconds=round(self.rng.uniform(1, 4), 2))
                elif kind == "netem":
                    fault.update(delay_ms=self.rng.randrange(50, 251), loss=self.rng.randrange(1, 11),
                                 seconds=round(self.rng.uniform(3, 6), 2))
                elif kind == "cut":
                    fault["seconds"] = round(self.rng.uniform(2, 5), 2)
                elif kind == "stall":
                    fault["seconds"] = round(self.rng.uniform(3, 8), 2)
                elif kind == "disk-full":
                    fault["seconds"] = round(self.rng.uniform(3, 5), 2)
                elif kind == "pg-restart":
                    fault.update(mode=self.rng.choice(["fast", "immediate"]), seconds=round(self.rng.uniform(1, 4), 2))
                plan.append(fault)
        return plan[: self.args.faults]

    # MARK: faults

    def inject(self, fault):
        kind, stack = fault["kind"], self.stack
        if kind == "kill":
            stack.kill_and_restart(fault["target"])
        elif kind == "stop":
            stack.signal(fault["target"], signal.SIGSTOP)
            time.sleep(fault["seconds"])
            stack.signal(fault["target"], signal.SIGCONT)
        elif kind == "netem":
            self.env.netem(fault["delay_ms"], fault["loss"])
            fault["mode"] = self.env.netem_mode
            time.sleep(fault["seconds"])
            self.env.clear_netem()
        elif kind == "cut":
            self.env.link(False)
            time.sleep(fault["seconds"])
            self.env.link(True)
        elif kind == "stall":
            self.slow.paused.set()
            time.sleep(fault["seconds"])
            self.slow.paused.clear()
        elif kind == "disk-full":
            self.env.fill()
            fault["during"] = self.probe_disk(fault)
            time.sleep(max(0.0, fault["seconds"] - 1))
            self.env.unfill()
        elif kind == "disk-ro":
            self.env.read_only()
            fault["during"] = self.probe_disk(fault)
            # The operator's repair: the writer stopped, the file system checked and mounted again.
            self.stack.signal("portfolio", signal.SIGTERM)
            try:
                self.stack.procs["portfolio"].wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.stack.signal("portfolio", signal.SIGKILL)
                self.stack.procs["portfolio"].wait()
            code = self.stack.procs["portfolio"].returncode
            if code not in (0, -signal.SIGTERM, 143):
                self.violation(fault, f"the portfolio exited with {code} on SIGTERM after the disk went read-only")
            self.env.repair()
            self.stack.start("portfolio")
        elif kind == "pg-restart":
            began = time.monotonic()
            self.postgres.stop(fault["mode"])
            fault["during"] = self.probe_postgres_down(fault)
            time.sleep(max(0.0, fault["seconds"] - (time.monotonic() - began)))
            self.postgres.start()

    def probe_write(self, client, fault, during, expected):
        """A trade written during a fault (`during`: "during the disk fault"): an acknowledged one joins the
        acknowledged trades, no answer is a violation (a timeout, not the `expected` error). Returns what the report
        says of it and the code of the error answered, if any, for the caller's own verdict."""
        params = self.traders.next_trade()
        code = None
        try:
            client.call("trades.add", params)
            outcome = "acknowledged"
            with self.record.lock:
                self.record.acked[params["requestId"]] = (None, params["price"])
        except RPCError as error:
            code = error.code
            outcome = f"error {error.code}: {error.args[0] if error.args else error}"
        except Unreachable:
            outcome = "no answer"
            self.violation(fault, f"a write {during} got no answer (a timeout, not {expected})")
        self.pending_probe = params
        return outcome, code

    def probe_disk(self, fault):
        """During a disk fault: a write must get a clear error (or succeed, when SQLite still had room), and
        reads must be answered."""
        seen = {}
        with Client(self.stack.rep("portfolio"), timeout=3.0, retries=0) as client:
            seen["write"], _ = self.probe_write(client, fault, "during the disk fault", "a clear error")
            for method, params in (("holdings", {"currency": "USD"}), ("trades.list", None)):
                try:
                    client.call(method, params)
                    seen[method] = "answered"
                except TickwireError as error:
                    seen[method] = f"failed: {error}"
                    self.violation(fault, f"{method} was not answered during the disk fault: {error}")
        return seen

    def probe_postgres_down(self, fault):
        """While PostgreSQL is down: a write must get -32000 (safe to retry), never an acknowledgement or a timeout."""
        seen = {}
        with Client(self.stack.rep("portfolio"), timeout=3.0, retries=0) as client:
            seen["write"], code = self.probe_write(client, fault, "while PostgreSQL was down", "-32000")
        if seen["write"] == "acknowledged":
            self.violation(fault, "a write was acknowledged while PostgreSQL was down")
        elif code is not None and code != -32000:
            self.violation(fault, f"a write while PostgreSQL was down got {seen['write']}, not -32000")
        return seen

    # MARK: invariants

    def violation(self, fault, text):
        entry = f"fault {fault.get('index', '-')} ({fault['kind']}): {text}"
        self.violations.append(entry)
        print(f"VIOLATION {entry}", flush=True)

    def check(self, fault, healed_at):
        """The invariants after `fault` healed at `healed_at` (monotonic); records convergence times."""
        bound = self.args.bound
        deadline = healed_at + bound
        convergence = {}
        with Client(self.stack.rep("converter"), timeout=1.0, retries=0) as converter:
            snapshot = None
            while snapshot is None and time.monotonic() < deadline:
                snapshot = converter_snapshot(converter)
            if snapshot is None:
                self.violation(fault, f"the converter's snapshot was not answered within {bound} s")
                return
            instance, entries = snapshot
            pending = {"python": self.fast, "python-stalled": self.slow, "presenter": self.sse}
            while pending and time.monotonic() < deadline:
                for name, observer in list(pending.items()):
                    if self.converged(observer, instance, entries):
                        convergence[name] = time.monotonic() - healed_at
                        del pending[name]
                time.sleep(0.02)
            for name in pending:
                self.violation(fault, f"{name} did not converge to the converter's snapshot within {bound} s")
        fault["convergence"] = convergence
        # Clients recover without a restart: each answered after the fault healed.
        late = ["(not checked: the bound passed while waiting for convergence)"]
        while time.monotonic() < deadline:
            with self.record.lock:
                late = [c for c in ("convert", "holdings", "view", "trader0", "trader1")
                        if self.record.last_ok.get(c, 0) < healed_at]
            if not late:
                break
            time.sleep(0.05)
        else:
            self.violation(fault, f"clients {late} did not answer again within {bound} s")
        fault["recovered_s"] = time.monotonic() - healed_at
        exited = self.stack.exited()
        if exited:
            self.violation(fault, f"services exited: {exited}")
            for name in exited:
                self.stack.start(name)
        for name in SERVICES:
            rss = self.stack.rss_kb(name) or 0
            self.max_rss[name] = max(self.max_rss[name], rss)
            if rss > self.args.max_rss_mb * 1024:
                self.violation(fault, f"{name} uses {rss / 1024:.0f} MB, above {self.args.max_rss_mb} MB")
        self.check_trades(fault)

    def converged(self, observer, instance, entries):
        if isinstance(observer, PythonSubscriber):
            synced, seen_instance, seqs, _, _ = observer.state()
            return synced and seen_instance == instance and all(seqs.get(t, 0) >= s for t, (s, _) in entries.items())
        prices = observer.snapshot()
        for topic, (seq, price) in entries.items():
            _, asset, currency = topic.split(".", 2)
            if currency != "USD":
                continue
            held = prices.get(asset)
            if held is None:
                return False
            if not same_price(held, price) and not any(same_price(held, p) for p in self.fast.newer_prices(topic, seq)):
                return False
        return True

    def check_trades(self, fault, final=False):
        """No acknowledged trade lost, none recorded twice."""
        # The acknowledged ones first: a trade acknowledged after the list was read is not in it.
        with self.record.lock:
            acked = dict(self.record.acked)
        with Client(self.stack.rep("portfolio"), timeout=2.0, retries=5) as client:
            try:
                trades = client.call("trades.list")
            except TickwireError as error:
                self.violation(fault, f"trades.list failed: {error}")
                return None
        ids = collections.Counter(t["id"] for t in trades)
        markers = collections.Counter(str(Decimal(t["price"])) for t in trades)
        lost = [rid for rid, (tid, marker) in acked.items()
                if markers[str(Decimal(marker))] == 0 or (tid is not None and ids[tid] == 0)]
        duplicated = sum(n - 1 for n in markers.values() if n > 1) + sum(n - 1 for n in ids.values() if n > 1)
        if lost:
            with self.record.lock:
                times = sorted(self.record.acked_at.get(rid, 0) for rid in lost)
            started = fault.get("started", 0)
            self.violation(fault, f"{len(lost)} acknowledged trades lost, e.g. {lost[:3]}, acknowledged from "
                                  f"{times[0] - started:+.2f} s to {times[-1] - started:+.2f} s of this fault's start")
        if duplicated:
            self.violation(fault, f"{duplicated} trades recorded twice")
        return {"acknowledged": len(acked), "lost": len(lost), "duplicated": duplicated, "listed": len(trades)}

    # MARK: the run

    def start_load(self):
        self.traders = Traders(self.stack, self.record, self.args.seed)
        self.traders.start()
        self.reader = threading.Thread(target=reader_loop, args=(self.stack, self.record, self.stop), daemon=True)
        self.reader.start()
        self.fast = PythonSubscriber(self.stack, "python", self.record)
        self.slow = PythonSubscriber(self.stack, "python-stalled", self.record)
        self.sse = SSEClient(self.stack, self.record, "sse")
        self.sse_load = SSEClient(self.stack, self.record, "sse-load", keep=False)
        for thread in (self.fast.thread, self.slow.thread, self.sse.thread, self.sse_load.thread):
            thread.start()

    def stop_load(self):
        self.traders.stop.set()
        self.stop.set()
        for thread in self.traders.threads:
            thread.join(timeout=90)
        for part in (self.fast, self.slow, self.sse, self.sse_load):
            part.stop.set()
        for part in (self.fast, self.slow, self.sse, self.sse_load):
            part.thread.join(timeout=5)

    def main(self):
        args = self.args
        plan = self.schedule()
        args.strict = not args.best_effort
        print(f"chaos: seed {args.seed}, {len(plan)} faults of {sorted({f['kind'] for f in plan})}, at most "
              f"{args.seconds} s" + ("" if self.with_root else " (not root: no network or disk faults)"), flush=True)
        os.makedirs(self.work_dir, exist_ok=True)
        began, totals = time.monotonic(), None
        try:
            available = self.env.create() | (POSTGRES_KINDS if args.postgres else set())
            missing = [kind for kind in self.kinds if kind not in available]
            if missing and args.strict:
                raise RuntimeError(f"fault kinds {missing} cannot run on this machine (run as root, with ip, tc, "
                                   "mkfs.ext4 and loop devices; or pass --best-effort)")
            if missing:
                self.kinds = [kind for kind in self.kinds if kind in available]
                plan = [fault for fault in plan if fault["kind"] in available]
                print(f"chaos: left out {missing}: {len(plan)} faults", flush=True)
            hosts, netns = {}, {}
            if "netem" in available:
                hosts = {name: (self.env.ns_ip if name in NAMESPACED else self.env.root_ip) for name in SERVICES}
                netns = {name: self.env.netns for name in NAMESPACED}
            portfolio_db = os.path.join(self.env.disk, "portfolio.sqlite")
            if args.postgres:
                # The portfolio's namespace reaches the harness's end of the veth; the loopback serves the rest.
                listen = [self.env.root_ip, "127.0.0.1"] if hosts else ["127.0.0.1"]
                clients = [self.env.ns_ip, "127.0.0.1"] if hosts else ["127.0.0.1"]
                self.postgres = PostgresServer(os.path.join(self.work_dir, "postgres"), listen, clients, free_port())
                self.postgres.create()
                portfolio_db = self.postgres.url
                print(f"chaos: the portfolio on PostgreSQL ({self.postgres.bin}) at {portfolio_db}", flush=True)
            self.stack = Stack(args.bin_dir, args.plugin_bin_dir, os.path.join(self.work_dir, "data"),
                               os.path.join(self.work_dir, "logs"),
                               fetcher_args=["--period", f"bitso={args.flood_period}"] if args.flood else [], hosts=hosts, netns=netns,
                               portfolio_db=portfolio_db)
            self.kinds_run = list(self.kinds)
            self.stack.start_all()
            self.warm_up()
            self.start_load()
            time.sleep(2)
            self.check({"kind": "start", "index": 0}, time.monotonic())
            for index, fault in enumerate(plan, 1):
                if time.monotonic() - began > args.seconds:
                    print(f"chaos: CHAOS_SECONDS ({args.seconds}) reached after {index - 1} faults", flush=True)
                    break
                fault["index"] = index
                time.sleep(fault["pause"])
                started = fault["started"] = time.monotonic()
                self.inject(fault)
                healed = time.monotonic()
                fault["fault_s"] = healed - started
                self.check(fault, healed)
                if getattr(self, "pending_probe", None):
                    probe, self.pending_probe = self.pending_probe, None
                    with Client(self.stack.rep("portfolio"), timeout=1.0, retries=0) as client:
                        self.traders.add(client, probe, "probe", give_up_at=time.monotonic() + args.bound)
                self.faults.append(fault)
                print(f"fault {index:3d} {self.describe(fault)}: converged "
                      + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in fault.get("convergence", {}).items())
                      + (f"; during: {fault['during']}" if "during" in fault else ""), flush=True)
            self.stop_load()
            totals = self.check_trades({"kind": "end", "index": "end"}, final=True)
            exited = self.stack.exited()
            if exited:
                self.violation({"kind": "end"}, f"services exited: {exited}")
        finally:
            self.stop.set()
            if hasattr(self, "traders"):
                self.traders.stop.set()
            if hasattr(self, "stack"):
                self.stack.stop()
            if self.postgres:
                self.postgres.destroy()
            self.env.clear_netem() if self.with_root and "veth" in self.env.made else None
            self.env.destroy()
        elapsed = time.monotonic() - began
        summary = self.summary(totals, elapsed)
        print(summary["text"], flush=True)
        if args.report:
            self.write_report(summary)
        return 0 if not self.violations and totals and totals["lost"] == 0 and totals["duplicated"] == 0 else 1

    def warm_up(self):
        deadline = time.monotonic() + 60
        with Client(self.stack.rep("portfolio"), timeout=1.0, retries=0) as portfolio:
            while time.monotonic() < deadline:
                try:
                    holdings = portfolio.call("holdings", {"currency": "USD"})
                    if holdings and not holdings.get("offline"):
                        return
                except TickwireError:
                    pass
                time.sleep(0.3)
        raise RuntimeError("the stack did not get its first prices within a minute")

    def describe(self, fault):
        detail = {"kill": lambda f: f"kill -9 {f['target']}", "stop": lambda f: f"SIGSTOP {f['target']} {f['seconds']} s",
                  "netem": lambda f: f"{f.get('mode', 'netem')} {f['delay_ms']} ms {f['loss']} % loss {f['seconds']} s",
                  "cut": lambda f: f"link cut {f['seconds']} s", "stall": lambda f: f"subscriber stalled {f['seconds']} s",
                  "disk-full": lambda f: f"disk full {f['seconds']} s", "disk-ro": lambda f: "disk read-only, repaired",
                  "pg-restart": lambda f: f"PostgreSQL {f['mode']} stop, down {f['seconds']} s"}
        return detail[fault["kind"]](fault)

    def summary(self, totals, elapsed):
        by_kind = collections.defaultdict(list)
        for fault in self.faults:
            by_kind[fault["kind"]].append(fault)
        rows = []
        for kind in KINDS:
            faults = by_kind.get(kind, [])
            samples = [v for f in faults for v in f.get("convergence", {}).values()]
            rows.append({"kind": kind, "faults": len(faults),
                         "p50_ms": percentile(samples, 0.5), "p99_ms": percentile(samples, 0.99),
                         "max_ms": max(samples) if samples else None})
        all_samples = [v for f in self.faults for v in f.get("convergence", {}).values()]
        totals = totals or {"acknowledged": len(self.record.acked), "lost": None, "duplicated": None, "listed": None}
        lines = [f"chaos seed {self.args.seed}: {len(self.faults)} faults in {elapsed:.0f} s "
                 "(" + ", ".join(f"{r['kind']} {r['faults']}" for r in rows) + ")",
                 f"trades acknowledged {totals['acknowledged']}, listed {totals['listed']}",
                 f"lost {totals['lost']}", f"duplicated {totals['duplicated']}",
                 "convergence (ms) p50/p99/max per kind: " + "; ".join(
                     f"{r['kind']} {fmt(r['p50_ms'])}/{fmt(r['p99_ms'])}/{fmt(r['max_ms'])}" for r in rows if r["faults"]),
                 f"convergence bound: max {fmt(max(all_samples) if all_samples else None)} ms (limit {self.args.bound * 1000:.0f} ms)",
                 "max RSS (MB): " + ", ".join(f"{n} {self.max_rss[n] / 1024:.1f}" for n in SERVICES),
                 "client errors: " + (", ".join(f"{k} {v}" for k, v in sorted(self.record.errors.items())) or "none"),
                 f"violations: {len(self.violations)}"] + [f"  {v}" for v in self.violations]
        return {"text": "\n".join(lines), "rows": rows, "totals": totals, "elapsed": elapsed}

    def load_description(self):
        """How hard the fetcher was driven during the run, for the report."""
        if not self.args.flood:
            return "the mock feeds at their demo periods"
        if self.args.flood_period == 0:
            return "Bitso's mock polled flat out"
        return f"Bitso's mock polled every {self.args.flood_period * 1000:g} ms ({6 / self.args.flood_period:,.0f} quotes/s)"

    def write_report(self, summary):
        fault_lines = "\n".join(
            f"| {f['index']} | {f['kind']} | {self.describe(f)} | "
            + ", ".join(f"{k} {v * 1000:.0f}" for k, v in f.get("convergence", {}).items())
            + f" | {f.get('during', '')} |" for f in self.faults)
        kind_lines = "\n".join(f"| {r['kind']} | {r['faults']} | {fmt(r['p50_ms'])} | {fmt(r['p99_ms'])} | {fmt(r['max_ms'])} |"
                               for r in summary["rows"])
        messages = "\n".join(f"- `{k}`: {v[:200]}" for k, v in sorted(self.record.error_messages.items()))
        name = "chaos-postgres" if self.args.postgres else "chaos"
        title = "Chaos run, the portfolio on PostgreSQL" if self.args.postgres else "Chaos run"
        section = f"""<!-- {name}:begin -->
## {title}

`{self.args.command}`, {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}, {summary['elapsed']:.0f} s
(load average at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {self.load_description()}).

```
{summary['text']}
```

| fault kind | injected | convergence p50 (ms) | p99 (ms) | max (ms) |
|---|---|---|---|---|
{kind_lines}

Convergence is measured from the moment a fault healed (the process restarted and answering `health`,
SIGCONT sent, netem removed, link up, the subscriber reading again, the disk emptied or repaired, PostgreSQL started) to the
moment each observer (the two Python subscribers and the presenter, seen through its `/events`) holds
the converter's snapshot taken then, or newer (listed per observer for every fault below). Client error messages (first of each kind):

{messages or '- none'}

<details><summary>Every fault</summary>

| # | kind | fault | convergence per observer (ms) | during the disk fault |
|---|---|---|---|---|
{fault_lines}

</details>
<!-- {name}:end -->"""
        replace_section(self.args.report, name, section)


def fmt(seconds):
    """Seconds as whole milliseconds, "-" for none."""
    return "-" if seconds is None else f"{seconds * 1000:.0f}"


def replace_section(path, name, section):
    """Puts `section` between the `<!-- name:begin -->` and `<!-- name:end -->` markers of `path`."""
    text = open(path).read() if os.path.exists(path) else "# Chaos and soak\n"
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin in text and end in text:
        text = text[: text.index(begin)] + section + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w") as handle:
        handle.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--plugin-bin-dir", required=True)
    parser.add_argument("--seed", type=int, default=int(os.environ.get("CHAOS_SEED", "11")))
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("CHAOS_SECONDS", "1200")))
    parser.add_argument("--faults", type=int, default=56, help="faults to inject (every kind once per round)")
    parser.add_argument("--kinds", type=lambda text: text.split(","), default=None,
                        help=f"comma-separated fault kinds (default all: {','.join(KINDS)})")
    parser.add_argument("--bound", type=float, default=30.0, help="seconds within which every observer must converge")
    parser.add_argument("--max-rss-mb", type=float, default=400.0)
    parser.add_argument("--flood-period", type=float, default=0.005,
                        help="Bitso's mock poll period in seconds under load (6 quotes a poll; 0: flat out)")
    parser.add_argument("--no-flood", dest="flood", action="store_false", help="Bitso at its demo period, no flood")
    parser.add_argument("--no-root", action="store_true", help="leave out the network and disk faults")
    parser.add_argument("--postgres", action="store_true",
                        help="the portfolio on a PostgreSQL server of the run's own, with the pg-restart fault (and no disk faults)")
    parser.add_argument("--best-effort", action="store_true",
                        help="leave out the fault kinds this machine cannot run instead of failing")
    parser.add_argument("--work-dir", default=None)
    parser.add_argument("--report", default="", help="Markdown file to write the figures into (e.g. bench/CHAOS.md)")
    parser.add_argument("--command", default="make chaos", help="the command named in the report")
    args = parser.parse_args()
    keep = args.work_dir is not None
    args.work_dir = os.path.abspath(args.work_dir or f"/tmp/tickwire-chaos-{os.getpid()}")
    chaos = Chaos(args)
    # SIGTERM (e.g. a CI timeout) takes the same way out as Ctrl-C: the finally clause cleans up.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    status = chaos.main()
    if status == 0 and not keep:
        shutil.rmtree(args.work_dir, ignore_errors=True)
    else:
        print(f"chaos: logs and data in {args.work_dir}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
