#!/usr/bin/env python3
"""Chaos soak: an hour of sync MLP training on 1 ps + 2 workers under random faults.

One cluster (each task in a network namespace of its own, bench/chaos_net.py) trains for
--epochs with checkpoints every --checkpoint-every steps into a small tmpfs. Every
--min-gap..--max-gap seconds (seeded) one fault is drawn from

  kill_ps kill_chief kill_worker      SIGKILL, then the same command again (an operator's restart)
  stop_ps stop_worker                 SIGSTOP for --stop-seconds, then SIGCONT
  link_delay link_loss link_bandwidth the ps's link shaped for --shape-seconds
  link_partition                      the ps cut off from worker 1 for --partition-seconds
  disk_full                           the checkpoint tmpfs filled for --disk-seconds
  hang_ps                             the chief's next step hangs a ps kernel past the step
                                      timeout (caflow-train --debug-stall-ps-on-signal, SIGUSR1)

and injected while training goes on; each is logged with the chief's step, what the processes
printed, and the checkpoint the chief restored from. At the end it checks:

  - the test accuracy is the clean run's within --tolerance (the clean run: the same cluster
    and flags without faults on loopback, beside the soak, unless --clean-accuracy gives its
    result; see CleanRun);
  - the steps lost (chief's step at a fault minus the step it restored) sum to at most
    faults x checkpoint interval;
  - no process of the cluster is left, no namespace and no mount;
  - no task's resident memory grew by --max-rss-growth or more over its life (from its first
    sample past --rss-warmup seconds to its last).

Prints the fault log, one RESULT line (value = minutes trained) and exits 1 on any miss.
Supervisor faults (caflow-train --task-processes) need another topology and are left to
bench/chaos.py. Needs root for namespaces and the tmpfs; says SKIP once without them.
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import chaos
import chaos_net

FAULTS = ["kill_ps", "kill_chief", "kill_worker", "stop_ps", "stop_worker", "link_delay",
          "link_loss", "link_bandwidth", "link_partition", "disk_full", "hang_ps"]
ROLE_OF = {"kill_ps": "ps", "kill_chief": "chief", "kill_worker": "worker1",
           "stop_ps": "ps", "stop_worker": "worker1"}


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class Soak(chaos.Run):
    def __init__(self, args, workdir):
        super().__init__(args, "soak", workdir)
        self.mounted = False
        self.rss = {}  # pid -> (Proc, start time, [(t, kB)])
        self.faults = []

    def in_namespaces(self):
        return True

    def train_flags(self):
        a = self.args
        return super().train_flags() + ["--max-recoveries", "1000",
                                        "--step-timeout", str(a.step_timeout)]

    def start_cluster(self):
        if os.geteuid() != 0:
            raise chaos_net.NetnsUnavailable("namespaces and a tmpfs need root")
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.args.disk_mb}m", "tmpfs",
                            self.ckpt], capture_output=True, text=True)
        if r.returncode != 0:
            raise chaos_net.NetnsUnavailable(f"cannot mount a tmpfs: {r.stderr.strip()}")
        self.mounted = True
        super().start_cluster()

    def extra_flags(self, role):
        # The chief is the one told to hang the ps (SIGUSR1), for longer than the step timeout.
        if role != "chief":
            return []
        return ["--debug-stall-ps-on-signal", "--debug-stall-seconds", str(self.args.stall_seconds)]

    def start(self, role, argv):
        p = super().start(role, argv)
        self.rss[p.p.pid] = (p, time.monotonic(), [])
        return p

    def sample_rss(self):
        now = time.monotonic()
        for pid, (p, born, samples) in self.rss.items():
            if p.p.poll() is not None:
                continue  # ended: its pid may be another process's by now
            kb = rss_kb(pid)
            if kb is not None and now - born >= self.args.rss_warmup:
                samples.append((now, kb))

    def reap_all(self):
        super().reap_all()
        if self.mounted:
            subprocess.run(["umount", "-l", self.ckpt], capture_output=True)
            self.mounted = False

    def chief_step(self):
        """The chief's step now: its last progress line plus the steps it ran since, at the
        rate of its lines before (as bench/chaos.py counts a fault's step)."""
        for t, r, l in reversed(self.snapshot()):
            if r == "chief":
                s = self.progress_step(l)
                if s is not None:
                    return s + self.steps_since(t, s, time.monotonic())
        return 0

    # --- faults ---------------------------------------------------------------------------
    def fill_disk(self):
        """Writes a filler file until the tmpfs is full; returns its path."""
        path = os.path.join(self.ckpt, "filler")
        chunk = b"\0" * (1 << 20)
        with open(path, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(chunk)
            except OSError:
                pass
        return path

    def inject_fault(self, fault):
        """Injects `fault`; returns a function that ends it (or None), to be called after its
        duration."""
        if fault in ("kill_ps", "kill_chief", "kill_worker"):
            self.restart_after_kill(ROLE_OF[fault])
            return None
        if fault in ("stop_ps", "stop_worker"):
            pid = self.procs[ROLE_OF[fault]].p.pid
            os.kill(pid, signal.SIGSTOP)
            return lambda: os.kill(pid, signal.SIGCONT)
        if fault == "link_partition":
            self.net.partition("ps", "worker1")
            return lambda: self.net.heal("ps", "worker1")
        if fault in chaos.LINK_FAULTS:
            self.net.shape(fault, "ps")
            return lambda: self.net.unshape(fault, "ps")
        if fault == "disk_full":
            path = self.fill_disk()
            return lambda: os.remove(path)
        if fault == "hang_ps":
            os.kill(self.procs["chief"].p.pid, signal.SIGUSR1)
            return None
        raise ValueError(f"unknown fault {fault}")

    def duration(self, fault):
        a = self.args
        return {"stop_ps": a.stop_seconds, "stop_worker": a.stop_seconds,
                "link_partition": a.partition_seconds, "disk_full": a.disk_seconds}.get(
                    fault, a.shape_seconds if fault in chaos.LINK_FAULTS else 0)

    def clients_done(self):
        return all(self.procs[r].p.poll() is not None for r in ("chief", "worker1"))

    def client_ended(self):
        """Once a client has ended (training over), faults stop: a signal could meet a pid the
        system has handed to another process, and a restarted worker would wait forever."""
        return any(self.procs[r].p.poll() is not None for r in ("chief", "worker1"))

    def check_clients(self):
        """A client that ended while the other trains on has given up: the soak failed."""
        for r in ("chief", "worker1"):
            rc = self.procs[r].p.poll()
            if rc is not None and rc != 0:
                raise RuntimeError(f"{r} exited with {rc} during the soak")


def explain(run, f, t_fault, t_next):
    """What followed one fault: the first restore of the chief before the next fault, whether
    any process saw a loss, and the lines users saw."""
    lines = [(t, r, l) for t, r, l in run.snapshot() if t_fault <= t < t_next]
    restored = next((int(m.group(1)) for t, r, l in lines if r == "chief"
                     for m in [chaos.RESTORED.search(l)] if m), None)
    detect = next((t - t_fault for t, r, l in lines if chaos.DETECTED.search(l)), None)
    f.update(restored=restored, detect=detect,
             # A restore past the fault's step (a checkpoint written as the fault hit) lost none.
             lost=None if restored is None else max(0, f["step"] - restored),
             seen=[f"+{t - t_fault:.1f}s {r}: {l}" for t, r, l in lines
                   if not chaos.ROUTINE.search(l)][:4])


class CleanRun:
    """The clean run the soak's accuracy is held to. "sync" (the default): the same cluster,
    flags and epochs without faults, on loopback (bench/chaos.py --faults none); "local": the
    same model, global batch (two workers' batches) and epochs in one process, which takes a
    fraction of the time but follows another trajectory (one data order, no replicas), so after
    many epochs of overfitting its accuracy may differ by more than the tolerance. It runs
    beside the soak at a lower priority (nice 10): its result does not depend on its speed, and
    the soak's faults must hold under load anyway."""

    def __init__(self, args, workdir):
        here = os.path.dirname(os.path.abspath(__file__))
        if args.clean_mode == "sync":
            cmd = [sys.executable, os.path.join(here, "chaos.py"), "--train", args.train,
                   "--faults", "none", "--epochs", str(args.epochs),
                   "--checkpoint-every", str(args.checkpoint_every),
                   "--recovery-timeout", str(args.recovery_timeout),
                   "--timeout", str((args.minutes + args.clean_minutes) * 60),
                   "--min-accuracy", "0"]
            self.accuracy_re = re.compile(r"^RESULT chaos_none .*accuracy=([0-9.]+)")
        else:
            cmd = [args.train, "--model", "mlp", "--mode", "local",
                   "--epochs", str(args.epochs), "--batch-size", str(2 * args.batch_size),
                   "--threads", "1", "--no-progress"]
            self.accuracy_re = chaos.ACCURACY
        argv = chaos.DIE_WITH_DRIVER + ["nice", "-n", "10"] + cmd
        print(f"soak: clean run ({args.clean_mode}): {' '.join(argv)}", flush=True)
        # Into a file, not a pipe: a pipe nobody reads for an hour fills and stops the run.
        self.out = os.path.join(workdir, "clean.txt")
        with open(self.out, "w") as f:
            self.p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL)

    def accuracy(self, timeout):
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise RuntimeError("the clean run did not finish")
        with open(self.out) as f:
            out = f.read()
        for line in out.splitlines():
            m = self.accuracy_re.match(line)
            if m:
                return float(m.group(1))
        raise RuntimeError(f"the clean run printed no accuracy: {out[-500:]}")

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def leftovers(run):
    """Processes of the cluster still alive, namespaces and mounts still there."""
    left = []
    for p in run.every:
        if p.p.poll() is None:
            left.append(f"{p.role} pid {p.p.pid}")
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    if run.net is not None:
        left += [n.split()[0] for n in names.splitlines() if n.startswith(run.net.prefix)]
    with open("/proc/mounts") as m:
        left += [line.split()[1] for line in m if run.ckpt in line]
    return left


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", default="build/release/apps/caflow-train")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=90,
                    help="the run fails if training has not ended by then")
    # 700 epochs took 53 minutes on two cores with the clean run beside (and other work on
    # the machine for half of it); 1800 would take about two and a half hours there.
    ap.add_argument("--epochs", type=int, default=800,
                    help="about an hour of sync training on two cores with the faults and the "
                         "clean run beside")
    ap.add_argument("--batch-size", type=int, default=100)
    ap.add_argument("--checkpoint-every", type=int, default=100)
    ap.add_argument("--min-gap", type=float, default=120)
    ap.add_argument("--max-gap", type=float, default=300)
    ap.add_argument("--first-fault", type=float, default=60)
    ap.add_argument("--faults", default=",".join(FAULTS))
    ap.add_argument("--stop-seconds", type=float, default=10)
    ap.add_argument("--shape-seconds", type=float, default=20)
    ap.add_argument("--partition-seconds", type=float, default=15)
    ap.add_argument("--disk-seconds", type=float, default=30)
    ap.add_argument("--disk-mb", type=int, default=64)
    ap.add_argument("--stall-seconds", type=float, default=90)
    ap.add_argument("--step-timeout", type=int, default=60)
    ap.add_argument("--recovery-timeout", type=int, default=60)
    ap.add_argument("--clean-accuracy", type=float, default=None,
                    help="the clean run's accuracy, measured before: no clean run beside")
    ap.add_argument("--clean-mode", choices=["sync", "local"], default="sync")
    ap.add_argument("--clean-minutes", type=float, default=60,
                    help="how long the clean run may go on past --minutes (it ran at a lower "
                         "priority beside the soak)")
    ap.add_argument("--tolerance", type=float, default=0.005)
    ap.add_argument("--rss-warmup", type=float, default=120)
    ap.add_argument("--max-rss-growth", type=float, default=0.05)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    faults = [f for f in args.faults.split(",") if f]
    for f in faults:
        if f not in FAULTS:
            ap.error(f"unknown fault '{f}' (have: {', '.join(FAULTS)})")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    rng = random.Random(args.seed)
    workdir = tempfile.mkdtemp(prefix="caflow_soak.")
    clean_run = CleanRun(args, workdir) if args.clean_accuracy is None else None
    try:
        return soak(args, rng, faults, workdir, clean_run)
    finally:
        if clean_run:
            clean_run.kill()  # a no-op once it finished; else a SIGTERM or an error ended us


def soak(args, rng, faults, workdir, clean_run):
    why = []
    run = Soak(args, workdir)
    t_start = time.monotonic()
    deadline = t_start + args.minutes * 60
    try:
        try:
            run.start_cluster()
        except chaos_net.NetnsUnavailable as e:
            print(f"SKIP chaos_soak: {e}", flush=True)
            shutil.rmtree(workdir, ignore_errors=True)
            return 0
        print(f"soak: seed {args.seed}, {args.epochs} epochs, logs in {run.log.name}", flush=True)
        next_fault = t_start + args.first_fault
        last_sample = 0.0
        while not run.clients_done():
            now = time.monotonic()
            if now > deadline:
                raise TimeoutError(f"training did not end within {args.minutes} minutes")
            run.check_clients()
            if now - last_sample >= 10:
                run.sample_rss()
                last_sample = now
            if now >= next_fault and not run.client_ended():
                kind = rng.choice(faults)
                f = {"kind": kind, "t": now, "step": run.chief_step()}
                # Each task's memory as the fault hits: which faults leave memory behind.
                rss = ", ".join(f"{r} {(rss_kb(p.p.pid) or 0) // 1024} MB"
                                for r, p in run.procs.items() if p.p.poll() is None)
                print(f"soak: +{(now - t_start) / 60:5.1f} min  {kind} at chief step {f['step']} "
                      f"(RSS: {rss})", flush=True)
                try:
                    end = run.inject_fault(kind)
                    if end:
                        time.sleep(run.duration(kind))
                        end()
                except (OSError, RuntimeError, chaos_net.NetnsUnavailable) as e:
                    # A fault that could not be made or healed ends the soak: its result would
                    # not be what it says.
                    raise RuntimeError(f"fault {kind} failed: {e}")
                run.faults.append(f)
                next_fault = time.monotonic() + rng.uniform(args.min_gap, args.max_gap)
            time.sleep(0.2)
        codes = {r: run.procs[r].p.returncode for r in ("chief", "worker1")}
        bad = {r: c for r, c in codes.items() if c != 0}
        if bad:
            why.append("exit codes " + ", ".join(f"{r}={c}" for r, c in bad.items()))
    except (TimeoutError, RuntimeError, OSError, subprocess.TimeoutExpired,
            chaos_net.NetnsUnavailable) as e:
        why.append(str(e))
    finally:
        minutes = (time.monotonic() - t_start) / 60
        run.reap_all()
    clean = args.clean_accuracy
    if clean_run:
        try:
            clean = clean_run.accuracy(timeout=max(60, deadline - time.monotonic()) +
                                       args.clean_minutes * 60)
        except RuntimeError as e:
            why.append(str(e))
            clean = float("nan")
    left = leftovers(run)
    if left:
        why.append("left behind: " + ", ".join(left))

    times = [f["t"] for f in run.faults] + [float("inf")]
    for i, f in enumerate(run.faults):
        explain(run, f, times[i], times[i + 1])
    acc = run.measure(0, 0)[3]
    lost = sum(f["lost"] or 0 for f in run.faults)
    budget = len(run.faults) * args.checkpoint_every
    growth = []
    for pid, (proc, born, samples) in run.rss.items():
        role = proc.role
        if len(samples) >= 2 and samples[-1][0] - samples[0][0] >= 600:
            growth.append((samples[-1][1] / samples[0][1] - 1, role, pid,
                           (samples[-1][0] - samples[0][0]) / 60, samples[0][1], samples[-1][1]))
    worst = max(growth, default=None)
    if acc is None:
        why.append("no test accuracy")
    elif abs(acc - clean) > args.tolerance:
        why.append(f"accuracy {acc:.4f} differs from the clean {clean:.4f} by more than "
                   f"{args.tolerance}")
    if lost > budget:
        why.append(f"lost {lost} steps > {len(run.faults)} faults x {args.checkpoint_every}")
    if worst and worst[0] >= args.max_rss_growth:
        why.append(f"{worst[1]} (pid {worst[2]}) grew {worst[0] * 100:.1f}% over "
                   f"{worst[3]:.0f} minutes")

    print("\n| # | min | fault | chief step | detect s | restored | steps lost | first lines seen |")
    print("|---|---|---|---|---|---|---|---|")
    for i, f in enumerate(run.faults):
        seen = " / ".join(f["seen"][:2]).replace("|", "/") or "-"
        print(f"| {i + 1} | {(f['t'] - t_start) / 60:.1f} | {f['kind']} | {f['step']} | "
              f"{chaos.fmt(f['detect'], '.1f')} | {chaos.fmt(f['restored'], 'd')} | "
              f"{chaos.fmt(f['lost'], 'd')} | {seen[:160]} |")
    rss = ", ".join(f"{r} {first // 1024}->{last // 1024} MB ({g * 100:+.1f}%) over {m:.0f} min"
                    for g, r, p, m, first, last in sorted(growth))
    print(f"\nsoak: {len(run.faults)} faults in {minutes:.1f} minutes; accuracy "
          f"{chaos.fmt(acc, '.4f')} (clean {clean:.4f}); steps lost {lost} (budget {budget}); "
          f"RSS growth: {rss or 'no process lived 10 minutes past its warm-up'}; "
          f"left behind: {', '.join(left) or 'nothing'}", flush=True)
    ok = not why
    print(f"RESULT chaos_soak value={minutes:.1f} unit=min faults={len(run.faults)} "
          f"accuracy={chaos.fmt(acc, '.4f')} clean={clean:.4f} steps_lost={lost} ok={int(ok)}"
          + ("" if ok else f" why={'; '.join(why)!r}"), flush=True)
    if ok and not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        print(f"soak: logs in {workdir}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
