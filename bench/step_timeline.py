#!/usr/bin/env python3
"""Where a distributed step's time goes, from a node trace (CAFLOW_BENCH_TRACE's PREFIX.<model>.tsv
or the console's `trace save`): one tab-separated line per node run (task, device, node, op,
step id, start us, duration us, bytes).

Per task: the steps it ran in the window, the median wall span of one of its steps (first node
start to last node end), and per step on average: the wall time during which nodes of each kind ran
(receives, sends, each device type's other nodes; overlapping nodes count once), the part of the span no node covers (the queue, the messages
between tasks, the executor's own work), and its ten longest nodes (summed durations, so concurrent waits add up).

    bench/step_timeline.py TRACE.tsv [TRACE.tsv...]
"""
import collections
import statistics
import sys


def kind(op, device):
    if op in ("_Recv", "_HostRecv"):
        return "recv"
    if op in ("_Send", "_HostSend"):
        return "send"
    dev = device.rsplit("device:", 1)[-1].split(":")[0] if "device:" in device else device
    return "other on " + (dev or "?")


def covered(intervals):
    """Length of the union of [start, end) intervals."""
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def summarize(path):
    rows = []
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 8:
                continue
            try:
                rows.append((p[0], p[1], p[2], p[3], int(p[4]), int(p[5]), int(p[6])))
            except ValueError:
                continue
    print(f"== {path}: {len(rows)} node runs")
    by_task = collections.defaultdict(lambda: collections.defaultdict(list))
    for task, device, node, op, step, start, dur in rows:
        by_task[task][step].append((device, node, op, start, dur))
    for task in sorted(by_task):
        steps = by_task[task]
        spans, gaps = [], []
        kinds = collections.Counter()
        nodes = collections.Counter()
        for runs in steps.values():
            first = min(r[3] for r in runs)
            last = max(r[3] + r[4] for r in runs)
            spans.append(last - first)
            gaps.append((last - first) - covered([(r[3], r[3] + r[4]) for r in runs]))
            per_kind = collections.defaultdict(list)
            for device, node, op, start, dur in runs:
                per_kind[kind(op, device)].append((start, start + dur))
                nodes[f"{node} ({op})"] += dur
            for k, intervals in per_kind.items():
                kinds[k] += covered(intervals)
        n = len(steps)
        print(f"-- {task}: {n} steps, span median {statistics.median(spans):.0f} us, "
              f"uncovered median {statistics.median(gaps):.0f} us")
        for k, v in kinds.most_common():
            print(f"   {v / n:9.0f} us/step  {k}")
        for name, v in nodes.most_common(10):
            print(f"   {v / n:9.0f} us/step    {name}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        summarize(path)


if __name__ == "__main__":
    main()
