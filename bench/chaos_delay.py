#!/usr/bin/env python3
"""Delays every packet of one netfilter queue: a link's latency where the kernel lacks netem.

    chaos_delay.py --queue N --delay-ms 20 --jitter-ms 5

Run inside the namespace whose iptables rules send packets to queue N (-j NFQUEUE). Each
packet is held for a normally distributed delay (mean --delay-ms, deviation --jitter-ms, never
below 0) and then accepted, in arrival order: like netem with a rate, jitter never reorders
packets (TCP would read reordering as loss). Speaks nfnetlink_queue over a raw netlink socket,
so it needs nothing beyond Python. Prints "ready" once bound; on SIGTERM prints one line of
what it did (packets held, the most held at once, how late the latest release was against its
due time, notices of messages the kernel could not queue to it) and exits: a delayer that
falls behind would add delay (or loss) the run did not ask for, and the line shows it.
"""
import errno
import argparse
import heapq
import os
import random
import select
import signal
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET, NFQNL_MSG_VERDICT, NFQNL_MSG_CONFIG = 0, 1, 2
NFQA_CFG_CMD, NFQA_CFG_PARAMS, NFQA_CFG_QUEUE_MAXLEN, NFQA_CFG_MASK, NFQA_CFG_FLAGS = 1, 2, 3, 4, 5
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NFQA_CFG_F_GSO = 1 << 2  # hand over GSO packets whole: no segmenting just to hold them
NFQA_PACKET_HDR, NFQA_VERDICT_HDR = 1, 2
NF_ACCEPT = 1
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLMSG_ERROR = 2
SOL_NETLINK, NETLINK_NO_ENOBUFS = 270, 5


def attr(kind, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def message(msg, queue, attrs, flags=NLM_F_REQUEST):
    body = struct.pack("=BBH", socket.AF_UNSPEC, 0, socket.htons(queue)) + b"".join(attrs)
    return struct.pack("=IHHII", 16 + len(body), (NFNL_SUBSYS_QUEUE << 8) | msg, flags, 0, 0) + body


def attrs_of(data):
    out, off = {}, 0
    while off + 4 <= len(data):
        length, kind = struct.unpack_from("=HH", data, off)
        if length < 4:
            break
        out[kind & 0x7fff] = data[off + 4:off + length]
        off += (length + 3) & ~3
    return out


def configure(sock, queue):
    for attrs in ([attr(NFQA_CFG_CMD, struct.pack("!BxH", NFQNL_CFG_CMD_BIND, socket.AF_INET))],
                  [attr(NFQA_CFG_PARAMS, struct.pack("!IB", 0, NFQNL_COPY_META)),
                   attr(NFQA_CFG_QUEUE_MAXLEN, struct.pack("!I", 65536)),
                   attr(NFQA_CFG_MASK, struct.pack("!I", NFQA_CFG_F_GSO)),
                   attr(NFQA_CFG_FLAGS, struct.pack("!I", NFQA_CFG_F_GSO))]):
        sock.send(message(NFQNL_MSG_CONFIG, queue, attrs, NLM_F_REQUEST | NLM_F_ACK))
        reply = sock.recv(65536)
        kind = struct.unpack_from("=H", reply, 4)[0]
        if kind == NLMSG_ERROR:
            err = struct.unpack_from("=i", reply, 16)[0]
            if err:
                raise OSError(-err, f"binding netfilter queue {queue}: {os.strerror(-err)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queue", type=int, required=True)
    ap.add_argument("--delay-ms", type=float, default=20)
    ap.add_argument("--jitter-ms", type=float, default=5)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    stats = {"packets": 0, "most_held": 0, "late_ms": 0.0, "overruns": 0}

    def report(*_):
        print(f"delayer: {stats['packets']} packets, at most {stats['most_held']} held at once, "
              f"released at most {stats['late_ms']:.1f} ms past due, {stats['overruns']} "
              f"receive overruns", flush=True)
        sys.exit(0)
    signal.signal(signal.SIGTERM, report)
    rng = random.Random(a.seed)
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    # An overrun (the kernel could not queue a packet's message to us) is counted, not fatal:
    # the packet itself stays queued in the kernel until its verdict.
    try:
        sock.setsockopt(SOL_NETLINK, NETLINK_NO_ENOBUFS, 1)
    except OSError:
        pass
    sock.bind((0, 0))
    configure(sock, a.queue)
    print("ready", flush=True)
    held = []  # (release time, packet id)
    last = 0.0
    while True:
        timeout = max(0.0, held[0][0] - time.monotonic()) if held else None
        readable, _, _ = select.select([sock], [], [], timeout)
        if readable:
            try:
                data = sock.recv(1 << 20)
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    raise
                stats["overruns"] += 1
                data = b""
            off = 0
            while off + 16 <= len(data):
                length, kind = struct.unpack_from("=IH", data, off)
                if length < 16:
                    break
                if kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
                    hdr = attrs_of(data[off + 20:off + length]).get(NFQA_PACKET_HDR)
                    if hdr:
                        packet_id = struct.unpack_from("!I", hdr)[0]
                        # In order: a packet never leaves before the one ahead of it.
                        last = max(last, time.monotonic() +
                                   max(0.0, rng.gauss(a.delay_ms, a.jitter_ms)) / 1000)
                        heapq.heappush(held, (last, packet_id))
                        stats["packets"] += 1
                        stats["most_held"] = max(stats["most_held"], len(held))
                off += (length + 3) & ~3
        now = time.monotonic()
        while held and held[0][0] <= now:
            due, packet_id = heapq.heappop(held)
            stats["late_ms"] = max(stats["late_ms"], (now - due) * 1000)
            sock.send(message(NFQNL_MSG_VERDICT, a.queue,
                              [attr(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT, packet_id))]))


if __name__ == "__main__":
    sys.exit(main())
