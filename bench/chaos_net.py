"""Network namespaces with shaped links for bench/chaos.py.

Every task runs in a namespace of its own, joined to a bridge in a hub namespace by a veth
pair, so each has a real address and its link can be slowed, made lossy, capped or cut
without touching the host:

    <prefix>-ps       10.201.X.1 --+
    <prefix>-chief    10.201.X.2 --+-- br0 in <prefix>-hub
    <prefix>-worker1  10.201.X.3 --+

A link fault acts on both directions of one task's link, so a packet to or from that task
meets it once each way. These kernels may lack netem, so each fault uses what a stock kernel
has: latency from a netfilter queue whose packets bench/chaos_delay.py holds back, loss from
iptables' random match, bandwidth from a token bucket (tc tbf) on both ends of the pair, a
partition from blackhole routes. The bridge lives in a namespace of its own rather than on the
host, so host firewall rules cannot drop the traffic, and deleting the namespaces removes every
link, rule and queue with them.
"""
import os
import shutil
import subprocess
import sys

ROLES = ["ps", "chief", "worker1"]
PORT = 2222  # each namespace is fresh, so a fixed port is free in it

# The link faults and what each does to a link.
SHAPES = {
    "link_delay": "20 ms +- 5 ms each way",
    "link_loss": "2% of packets each way",
    "link_bandwidth": "100 Mbit/s each way",
    "link_partition": "no packet between the two tasks",
}
DELAY_QUEUE = 7
# A token bucket: 100 Mbit/s with a burst of a few MTUs and a queue of at most 50 ms.
TBF = ["tbf", "rate", "100mbit", "burst", "32kb", "latency", "50ms"]


class NetnsUnavailable(Exception):
    """This machine cannot make namespaces (not root, no iproute2, no veth): a skip."""


class LinkLab:
    def __init__(self, tag):
        if os.geteuid() != 0:
            raise NetnsUnavailable(f"network namespaces need root (running as uid {os.geteuid()})")
        self.prefix = f"cfchaos-{os.getpid()}-{tag}"[:24]
        self.net = f"10.201.{os.getpid() % 256}"
        self.hub = f"{self.prefix}-hub"
        self.ns = {role: f"{self.prefix}-{i}" for i, role in enumerate(ROLES)}
        self.addr = {role: f"{self.net}.{i + 1}" for i, role in enumerate(ROLES)}
        self.hub_dev = {role: f"veth{i}" for i, role in enumerate(ROLES)}
        self.created = []
        self.delayers = []  # bench/chaos_delay.py processes
        self.reports = []   # their closing lines, and any that died early
        try:
            self._build()
        except NetnsUnavailable:
            self.close()
            raise

    def _ip(self, *args, check=True):
        try:
            r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise NetnsUnavailable(f"'ip {' '.join(args)}' failed: {e}")
        if check and r.returncode != 0:
            raise NetnsUnavailable(f"'ip {' '.join(args)}' failed: {r.stderr.strip()}")
        return r

    def _build(self):
        for ns in [self.hub, *self.ns.values()]:
            self._ip("netns", "add", ns)
            self.created.append(ns)
            self._ip("-n", ns, "link", "set", "lo", "up")
        self._ip("-n", self.hub, "link", "add", "br0", "type", "bridge")
        self._ip("-n", self.hub, "link", "set", "br0", "up")
        for role in ROLES:
            dev, ns = self.hub_dev[role], self.ns[role]
            self._ip("-n", self.hub, "link", "add", dev, "type", "veth", "peer", "name", "eth0",
                     "netns", ns)
            self._ip("-n", self.hub, "link", "set", dev, "master", "br0")
            self._ip("-n", self.hub, "link", "set", dev, "up")
            self._ip("-n", ns, "addr", "add", f"{self.addr[role]}/24", "dev", "eth0")
            self._ip("-n", ns, "link", "set", "eth0", "up")

    def exec_prefix(self, role):
        """argv prefix that runs a command in the task's namespace (exec'd in place: the pid is
        the task's)."""
        return ["ip", "netns", "exec", self.ns[role]]

    def endpoint(self, role):
        return f"{self.addr[role]}:{PORT}"

    def _tc(self, ns, *args):
        r = subprocess.run(["ip", "netns", "exec", ns, "tc", *args], capture_output=True,
                           text=True, timeout=10)
        if r.returncode != 0:
            raise RuntimeError(f"tc {' '.join(args)} in {ns}: {r.stderr.strip()}")

    def _link_ends(self, role):
        return [(self.ns[role], "eth0"), (self.hub, self.hub_dev[role])]

    def _arrivals(self, role):
        """Where each direction of `role`'s link ends, as (namespace, iptables match): what
        arrives at the task, and what arrives from it at every other task. Faults act where
        packets arrive: held or dropped on the way out, a packet would still count against the
        sender's socket (TCP small queues), which throttles it far below the link."""
        ends = [(self.ns[role], ["-i", "eth0"])]
        ends += [(self.ns[r], ["-s", self.addr[role]]) for r in ROLES if r != role]
        return ends

    def _iptables(self, role, verb, *rule):
        tool = shutil.which("iptables-legacy") or shutil.which("iptables")
        if not tool:
            raise RuntimeError("iptables is not installed (Debian's iptables package)")
        for ns, match in self._arrivals(role):
            r = subprocess.run(["ip", "netns", "exec", ns, tool, verb, "INPUT", *match, *rule],
                               capture_output=True, text=True, timeout=10)
            if r.returncode != 0:
                raise RuntimeError(f"iptables {verb} INPUT in {ns}: {r.stderr.strip()}")

    def shape(self, fault, role):
        """Applies `fault` (a SHAPES key other than the partition) to `role`'s link."""
        if fault == "link_delay":
            # One delayer per namespace where packets arrive (a queue belongs to one).
            here = os.path.dirname(os.path.abspath(__file__))
            for seed, (ns, _) in enumerate(self._arrivals(role)):
                p = subprocess.Popen(
                    ["ip", "netns", "exec", ns, sys.executable, os.path.join(here, "chaos_delay.py"),
                     "--queue", str(DELAY_QUEUE), "--delay-ms", "20", "--jitter-ms", "5",
                     "--seed", str(seed + 1)],
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                self.delayers.append(p)
                ready = p.stdout.readline().strip()
                if ready != "ready":
                    raise RuntimeError(f"chaos_delay.py in {ns} did not start: {ready}")
            self._iptables(role, "-A", "-j", "NFQUEUE", "--queue-num", str(DELAY_QUEUE))
        elif fault == "link_loss":
            self._iptables(role, "-A", "-m", "statistic", "--mode", "random", "--probability",
                           "0.02", "-j", "DROP")
        elif fault == "link_bandwidth":
            for ns, dev in self._link_ends(role):
                self._tc(ns, "qdisc", "add", "dev", dev, "root", *TBF)
        else:
            raise ValueError(f"{fault} is not a shape")

    def unshape(self, fault, role):
        if fault == "link_delay":
            # The rules first: a queue nobody reads drops what comes.
            self._iptables(role, "-D", "-j", "NFQUEUE", "--queue-num", str(DELAY_QUEUE))
            self._stop_delayers()
        elif fault == "link_loss":
            self._iptables(role, "-D", "-m", "statistic", "--mode", "random", "--probability",
                           "0.02", "-j", "DROP")
        elif fault == "link_bandwidth":
            for ns, dev in self._link_ends(role):
                self._tc(ns, "qdisc", "del", "dev", dev, "root")

    def _stop_delayers(self):
        for p in self.delayers:
            died = p.poll()
            p.terminate()
            try:
                out, _ = p.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
            # One that ended before its SIGTERM left its queue unread: the link was cut, not
            # delayed, from then on.
            tail = out.strip().splitlines()[-3:] if out else []
            self.reports.append(("DIED early: " if died is not None else "") + " | ".join(tail))
        self.delayers = []

    def _routes(self, verb, a, b):
        # A blackhole drops silently, as a cut cable or a dead switch does: no RST, no ICMP
        # that would tell TCP at once.
        self._ip("-n", self.ns[a], "route", verb, "blackhole", f"{self.addr[b]}/32")
        self._ip("-n", self.ns[b], "route", verb, "blackhole", f"{self.addr[a]}/32")

    def partition(self, a, b):
        """a and b can no longer reach each other; everyone else still reaches both."""
        self._routes("add", a, b)

    def heal(self, a, b):
        self._routes("del", a, b)

    def close(self):
        self._stop_delayers()
        for ns in reversed(self.created):
            subprocess.run(["ip", "netns", "delete", ns], capture_output=True, timeout=10)
        self.created = []
