#!/usr/bin/env python3
"""bench/gpu_kernels.cpp's ops timed with PyTorch on the same GPU: fp32 with TF32 off,
cudnn.benchmark on, convolutions in channels_last (NHWC), so each row compares like with like.

Prints the same lines as bench_gpu_kernels:   GPUK <op> <value> <unit>
or, without a usable GPU or torch:            gpu_kernels: skipped: <why>   (exit status 0)

Timing: inputs are made on the GPU first; each op is warmed up (cudnn.benchmark searches then),
then run in batches, doubling, until a batch takes 0.2 s, with torch.cuda.synchronize() after
each batch. Nothing is copied back to the host inside the loop.
"""
import sys
import time

try:
    import torch
except ImportError as e:
    print(f"gpu_kernels: skipped: no torch ({e})")
    sys.exit(0)
if not torch.cuda.is_available():
    print("gpu_kernels: skipped: torch sees no GPU")
    sys.exit(0)

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True
dev = torch.device("cuda:0")


def seconds_per_run(fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    batch = 1
    while True:
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        torch.cuda.synchronize()
        s = time.perf_counter() - start
        if s >= 0.2 or batch >= 1 << 16:
            return s / batch
        batch *= 2


def report(name, value, unit):
    print(f"GPUK {name} {value:.4g} {unit}", flush=True)


def pattern(*shape, salt):
    n = 1
    for d in shape:
        n *= d
    i = torch.arange(n, device=dev, dtype=torch.int64)
    return (((i * 7 + salt) % 13).to(torch.float32) * 0.1 - 0.6).reshape(shape)


def main():
    print(f"gpu_kernels: torch {torch.__version__} on {torch.cuda.get_device_name(0)}",
          file=sys.stderr)
    with torch.no_grad():
        for n in (1024, 4096, 8192):
            a, b = pattern(n, n, salt=1), pattern(n, n, salt=2)
            report(f"matmul_{n}", 2.0 * n**3 / seconds_per_run(lambda: torch.mm(a, b)) / 1e12,
                   "TFLOP/s")
            del a, b

        big = 64 << 20
        gb = big * 4 / 1e9
        x, y = pattern(big, salt=3), pattern(big, salt=4)
        report("addv2_64m", 3 * gb / seconds_per_run(lambda: x + y), "GB/s")
        report("relu_64m", 2 * gb / seconds_per_run(lambda: torch.relu(x)), "GB/s")
        report("sum_64m", gb / seconds_per_run(lambda: torch.sum(x)), "GB/s")
        del x, y

        layers = [("conv_28x28x1_32_5x5", (100, 28, 28, 1), (5, 5, 1, 32)),
                  ("conv_14x14x32_64_5x5", (100, 14, 14, 32), (5, 5, 32, 64)),
                  ("conv_14x14x256_256_3x3", (64, 14, 14, 256), (3, 3, 256, 256))]
        for name, (n, h, w, c), (kh, kw, _, o) in layers:
            cl = torch.channels_last
            # NHWC activations, KRSC (channels_last OIHW) filters: cuDNN's NHWC layouts.
            x = pattern(n, h, w, c, salt=5).permute(0, 3, 1, 2).contiguous(memory_format=cl)
            wt = pattern(o, kh, kw, c, salt=6).permute(0, 3, 1, 2).contiguous(memory_format=cl)
            dy = pattern(n, h, w, o, salt=7).permute(0, 3, 1, 2).contiguous(memory_format=cl)
            pad = (kh // 2, kw // 2)  # SAME at stride 1 with odd windows
            conv = torch.ops.aten.convolution_backward
            report(f"{name}_fwd", seconds_per_run(
                lambda: torch.nn.functional.conv2d(x, wt, padding=pad)) * 1e3, "ms")
            report(f"{name}_bwd_input", seconds_per_run(
                lambda: conv(dy, x, wt, None, (1, 1), pad, (1, 1), False, (0, 0), 1,
                             (True, False, False))) * 1e3, "ms")
            report(f"{name}_bwd_filter", seconds_per_run(
                lambda: conv(dy, x, wt, None, (1, 1), pad, (1, 1), False, (0, 0), 1,
                             (False, True, False))) * 1e3, "ms")

        a, b = pattern(4, salt=8), pattern(4, salt=9)
        report("addv2_4_launch", seconds_per_run(lambda: a + b) * 1e6, "us")


if __name__ == "__main__":
    main()
