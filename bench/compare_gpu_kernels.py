#!/usr/bin/env python3
"""Puts bench_gpu_kernels' lines (caflow) beside pytorch_gpu_kernels.py's (the baseline):

    bench/compare_gpu_kernels.py CAFLOW_FILE PYTORCH_FILE

prints one RESULT line per op in bench/run's format, with the ratio as "caflow's speed over
PyTorch's" (above 1: caflow faster): value / baseline for rates (TFLOP/s, GB/s), baseline / value
for times (ms, us). Skip lines in either file are passed through; an op missing on one side gets
no ratio. Exit status 1 when the caflow file has no results.
"""
import sys

TIMES = {"ms", "us", "s"}


def read(path):
    rows, skips = {}, []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and parts[0] == "GPUK":
                rows[parts[1]] = (float(parts[2]), parts[3])
            elif "skipped" in line:
                skips.append(line.rstrip("\n"))
    return rows, skips


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ours, our_skips = read(argv[1])
    theirs, their_skips = read(argv[2])
    for s in our_skips:
        print(s)
    for s in their_skips:
        print("pytorch baseline: " + s)
    for name, (value, unit) in ours.items():
        base = theirs.get(name)
        if base is None or base[1] != unit or value <= 0 or base[0] <= 0:
            print(f"RESULT gpu_kernels.{name} value={value:.4g} unit={unit}")
            continue
        ratio = base[0] / value if unit in TIMES else value / base[0]
        print(f"RESULT gpu_kernels.{name} value={value:.4g} unit={unit} "
              f"baseline={base[0]:.4g} ratio={ratio:.3f}")
    return 0 if ours else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
