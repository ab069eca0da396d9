"""The Tickwire stack as real processes, for scripts/soak.py and scripts/chaos.py.

Starts rates-fetcher (mock feeds), converter, portfolio, presenter and price-alerts from their
binaries on free ports, each with its own log file, and can stop, kill, freeze and restart any of
them on the same endpoints (as systemd restarts a unit). A service may run inside a network namespace
(`netns`), reached at the address given for it; the others then bind an address that namespace
reaches too.
"""
import os
import random
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python", "src"))

from tickwire import Client, TickwireError  # noqa: E402

SERVICES = ["rates-fetcher", "converter", "portfolio", "presenter", "price-alerts"]
ENV_PREFIX = {"rates-fetcher": "RATES_FETCHER", "converter": "CONVERTER", "portfolio": "PORTFOLIO",
              "presenter": "PRESENTER", "price-alerts": "PRICE_ALERTS"}


_handed_out = set()
_port_choice = random.Random()  # its own generator: the chaos run's seeded one stays untouched


def free_port(host="127.0.0.1"):
    """A port nobody listens on now, below 32768 and not handed out before in this run. Not the kernel's choice:
    that comes from the ephemeral range (32768 and up), where libzmq's outgoing connections take their own
    ports, so a service restarted by the chaos run could find its port taken by a client's connection."""
    while True:
        port = _port_choice.randrange(20000, 32000)
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
        _handed_out.add(port)
        return port


def rss_kb(pid):
    """The resident set of process `pid` in kB (VmRSS), None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Stack:
    """The five services; `hosts` maps a service to the address it binds (default 127.0.0.1), `netns`
    a service to the network namespace it runs in."""

    def __init__(self, bin_dir, plugin_bin_dir, data_dir, log_dir, fetcher_args=None, hosts=None, netns=None,
                 portfolio_db=None, log_level="warning"):
        self.bin_dirs = {name: bin_dir for name in SERVICES}
        self.bin_dirs["price-alerts"] = plugin_bin_dir
        self.data_dir, self.log_dir = data_dir, log_dir
        self.hosts, self.netns = hosts or {}, netns or {}
        self.fetcher_args = fetcher_args or []
        self.portfolio_db = portfolio_db or os.path.join(data_dir, "portfolio.sqlite")
        os.makedirs(data_dir, exist_ok=True)
        os.makedirs(log_dir, exist_ok=True)
        # The services bind addresses of the harness's own network namespace (a veth, not loopback), in the
        # clear: without keys they refuse such binds unless told they may.
        self.env = dict(os.environ, TICKWIRE_LOG_LEVEL=log_level, TICKWIRE_INSECURE="1")
        self.endpoints = {}
        for name in SERVICES:
            host = self.host(name)
            rep, pub = f"tcp://{host}:{free_port()}", f"tcp://{host}:{free_port()}"
            self.endpoints[name] = {"rep": rep, "pub": pub}
            self.env[f"TICKWIRE_{ENV_PREFIX[name]}_REP"] = rep
            if name != "presenter":
                self.env[f"TICKWIRE_{ENV_PREFIX[name]}_PUB"] = pub
        self.http = f"http://{self.host('presenter')}:{free_port()}"
        self.env["TICKWIRE_PRESENTER_HTTP"] = self.http
        # rates-fetcher's ingest endpoint (feed plugins connect there) on a free port too, not the default one of a stack
        # that may be running beside.
        self.env["TICKWIRE_RATES_FETCHER_INGEST"] = f"tcp://{self.host('rates-fetcher')}:{free_port()}"
        # The presenter shows price-alerts' page from its `panel` (a plugin it is told of, not one it knows).
        self.env["TICKWIRE_PRESENTER_PLUGINS"] = f"price-alerts={self.rep('price-alerts')},{self.pub('price-alerts')}"
        self.procs = {}
        self.starts = {name: 0 for name in SERVICES}

    def host(self, name):
        return self.hosts.get(name, "127.0.0.1")

    def rep(self, name):
        return self.endpoints[name]["rep"]

    def pub(self, name):
        return self.endpoints[name]["pub"]

    def command(self, name):
        path = os.path.join(self.bin_dirs[name], name)
        args = {"rates-fetcher": ["--feeds", "mock"] + self.fetcher_args,
                "portfolio": ["--database", self.portfolio_db],
                "price-alerts": ["--database", os.path.join(self.data_dir, "price-alerts.sqlite")]}.get(name, [])
        command = [path] + args
        if name in self.netns:
            # nsenter joins only the network namespace (`ip netns exec` would also give the process a mount
            # namespace of its own, holding on to file systems unmounted outside).
            command = ["nsenter", f"--net=/run/netns/{self.netns[name]}", "--"] + command
        return command

    def start(self, name, wait=True):
        """Starts `name` (appending to its log) and waits for its `health` answer."""
        log = open(os.path.join(self.log_dir, f"{name}.log"), "ab")
        self.procs[name] = subprocess.Popen(self.command(name), env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        log.close()
        self.starts[name] += 1
        if wait and not self.wait_healthy(name):
            raise RuntimeError(f"{name} did not answer health within 30 s (log: {self.log_dir}/{name}.log)")

    def start_all(self):
        for name in SERVICES:
            self.start(name)

    def wait_healthy(self, name, seconds=30.0):
        deadline = time.monotonic() + seconds
        with Client(self.rep(name), timeout=0.3, retries=0) as client:
            while time.monotonic() < deadline:
                if self.procs[name].poll() is not None:
                    return False
                try:
                    client.call("health")
                    return True
                except TickwireError:
                    time.sleep(0.1)
        return False

    def pid(self, name):
        return self.procs[name].pid

    def alive(self, name):
        return name in self.procs and self.procs[name].poll() is None

    def rss_kb(self, name):
        return rss_kb(self.pid(name)) if self.alive(name) else None

    def signal(self, name, sig):
        self.procs[name].send_signal(sig)

    def kill_and_restart(self, name):
        """kill -9, then starts it again on the same endpoints and data, as systemd's Restart=always."""
        proc = self.procs[name]
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        self.start(name)

    def exited(self):
        """The services that are not running, with their exit codes."""
        return {name: proc.returncode for name, proc in self.procs.items() if proc.poll() is not None}

    def stop(self):
        for proc in self.procs.values():
            if proc.poll() is None:
                try:
                    proc.send_signal(signal.SIGCONT)
                    proc.send_signal(signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def percentile(samples, q):
    """The `q` quantile (0..1) of `samples` by nearest rank; None when empty."""
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, int(round(q * len(ordered) + 0.5)) - 1))]


def metric_lines(text, name):
    return [line for line in text.splitlines() if line.startswith(name + "{") or line.startswith(name + " ")]


def metric_sum(text, name):
    """The sum of every series of metric `name` in Prometheus text."""
    total = 0.0
    for line in metric_lines(text, name):
        try:
            total += float(line.rsplit(" ", 1)[1])
        except ValueError:
            pass
    return total
