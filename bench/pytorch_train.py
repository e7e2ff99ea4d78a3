#!/usr/bin/env python3
"""PyTorch baseline of bench_train_samples_per_s: caflow-train's MLP or CNN trained in PyTorch
on the same batches, batch size, thread counts, optimizer, step count and warmup.

  pytorch_train.py --model mlp|cnn --batches FILE [--steps N] [--warmup N] [--threads N]
                   [--device cpu|cuda] [--flush-denormal 0|1]

On the CPU denormals are flushed to zero (torch.set_flush_denormal), as caflow and TensorFlow
run their CPU kernels, unless --flush-denormal 0: PyTorch's default keeps them, about 15% slower
on the MLP here.

On cuda: the model and every batch live on GPU 0, fp32 with TF32 off, cudnn.benchmark on, the
CNN in channels_last (NHWC) when that is faster, as a user at their best would run it; blas=
then names the GPU.

FILE is written by `bench_train_samples_per_s --write-batches FILE` (layout in that source).
Prints one line that bench/run reads:
  PYTORCH model=<m> threads=<t> steps=<n> seconds=<s> samples_per_s=<v> loss=<first>-><last> blas=<b>
where <b> is the BLAS that ran: OpenBLAS's own config string and core name when PyTorch uses
OpenBLAS (bench/run unsets OPENBLAS_CORETYPE for this command, so that is the CPU's own kernel).
Needs only python3 and python3-torch (no numpy).
"""
import argparse
import ctypes
import struct
import sys
import time

import torch
from torch import nn


def blas_in_use():
    """OpenBLAS's config string and core, read from the library this process loaded."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "openblas" in line.split()[-1]}
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_config.restype = ctypes.c_char_p
            lib.openblas_get_corename.restype = ctypes.c_char_p
            config = lib.openblas_get_config().decode()
            core = lib.openblas_get_corename().decode()
            return f"OpenBLAS:{core}:" + config.replace(" ", "_")
        except (OSError, AttributeError):
            continue
    return "not-OpenBLAS"


def load_batches(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"CFTB":
        sys.exit(f"pytorch_train.py: {path} is not a batch file (bad magic)")
    count, size = struct.unpack_from("<II", data, 4)
    n = count * size
    offset = 12
    images = torch.frombuffer(bytearray(data[offset:offset + n * 784 * 4]), dtype=torch.float32)
    offset += n * 784 * 4
    labels = torch.frombuffer(bytearray(data[offset:offset + n * 4]), dtype=torch.int32)
    # The file holds NHWC with one channel, which is NCHW's layout too.
    images = images.reshape(count, size, 1, 28, 28)
    labels = labels.reshape(count, size).long()
    return [(images[b].contiguous(), labels[b].contiguous()) for b in range(count)]


def mlp():
    # 784 -> 256 -> 128 -> 100 -> 10, ReLU (apps/train/model.cpp).
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(784, 256), nn.ReLU(),
        nn.Linear(256, 128), nn.ReLU(),
        nn.Linear(128, 100), nn.ReLU(),
        nn.Linear(100, 10))


def cnn():
    # TF's convnet.py: 5x5 convolutions with SAME padding (2 for stride 1), 2x2 max pools,
    # dense 1024, dropout 0.4 (active: the model stays in training mode), dense 10.
    return nn.Sequential(
        nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(7 * 7 * 64, 1024), nn.ReLU(),
        nn.Dropout(0.4),
        nn.Linear(1024, 10))


def glorot_init(model):
    # The same initialization as caflow's create_params: glorot-uniform kernels, zero biases.
    for m in model.modules():
        if isinstance(m, (nn.Linear, nn.Conv2d)):
            nn.init.xavier_uniform_(m.weight)
            nn.init.zeros_(m.bias)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["mlp", "cnn"], required=True)
    parser.add_argument("--batches", required=True)
    parser.add_argument("--steps", type=int, default=0)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--channels-last", type=int, default=1)
    parser.add_argument("--flush-denormal", type=int, default=1)
    a = parser.parse_args()
    steps = a.steps or (4500 if a.model == "mlp" else 80)

    torch.set_num_threads(a.threads)
    torch.set_num_interop_threads(1)
    # Denormals flushed to zero, as caflow and TensorFlow run their CPU kernels: Adam's second
    # moments decay into denormals, and each op on one costs a microcode assist. PyTorch's
    # default keeps them; flushed is PyTorch at its best (--flush-denormal 0 for its default).
    if a.device == "cpu":
        torch.set_flush_denormal(bool(a.flush_denormal))
    torch.manual_seed(1)
    batches = load_batches(a.batches)
    model = (mlp if a.model == "mlp" else cnn)()
    glorot_init(model)
    model.train()
    backend = None
    if a.device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = True
        fmt = torch.channels_last if a.model == "cnn" and a.channels_last else torch.contiguous_format
        model = model.cuda().to(memory_format=fmt)
        batches = [(i.cuda().contiguous(memory_format=fmt), l.cuda()) for i, l in batches]
        backend = "cuda:" + torch.cuda.get_device_name(0).replace(" ", "_") + (
            ":channels_last" if fmt == torch.channels_last else "")
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001, betas=(0.9, 0.999), eps=1e-8)
    loss_fn = nn.CrossEntropyLoss()

    losses = []

    def step(i):
        images, labels = batches[i % len(batches)]
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

    for i in range(a.warmup):
        step(i)
    start = time.perf_counter()
    for i in range(steps):
        step(a.warmup + i)
    seconds = time.perf_counter() - start
    size = batches[0][1].numel()
    print(f"PYTORCH model={a.model} threads={a.threads} steps={steps} seconds={seconds:.3f} "
          f"samples_per_s={steps * size / seconds:.2f} loss={losses[0]:.3f}->{losses[-1]:.3f} "
          f"blas={backend or blas_in_use()}")


if __name__ == "__main__":
    main()
