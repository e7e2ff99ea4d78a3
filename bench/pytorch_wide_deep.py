#!/usr/bin/env python3
"""PyTorch baseline of bench_wide_deep_samples_per_s: the wide-deep click-through model of
caflow-train --model wide-deep trained by PyTorch's own parameter server on the same examples,
batch size, thread count, optimizer and step count.

  pytorch_wide_deep.py --data FILE [--steps N] [--warmup N] [--threads N] [--dim D]
                       [--hidden H] [--learning-rate LR] [--port P]

The cluster is torch.distributed.rpc (TensorPipe on 127.0.0.1), five processes: 2 ps, 2
trainers and an idle coordinator that builds the model and starts the trainers:
  - every table is split over the 2 ps as caflow's "mod" strategy splits it (id % 2 picks the
    ps, id // 2 the row there), each shard an nn.EmbeddingBag(sparse=True) inside one
    RemoteModule per ps, so each ps answers one RPC per step with all its rows;
  - the dense tower (concat -> hidden ReLU -> 1) is a RemoteModule on ps 0;
  - each trainer runs its steps in a distributed autograd context and applies the gradients
    with a DistributedOptimizer over torch.optim.Adagrad (sparse rows for the tables, as
    caflow's SparseApplyAdagrad), asynchronously: trainers never wait for each other.
Every process runs torch.set_num_threads(--threads).

FILE is written by `bench_wide_deep_samples_per_s --write-data FILE` (layout in that source):
trainer w takes batch b of its own block, in order, exactly as the caflow workers do.
Prints one line that bench/run reads:
  PYTORCH model=wide-deep threads=<t> steps=<n> seconds=<s> samples_per_s=<v> loss=<a>-><b>
"""
import argparse
import os
import struct
import sys
import time

import torch
import torch.distributed.autograd as dist_autograd
import torch.distributed.rpc as rpc
import torch.multiprocessing as mp
from torch import nn
from torch.distributed.nn import RemoteModule
from torch.distributed.optim import DistributedOptimizer

PS = 2
TRAINERS = 2


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"CFWD":
        sys.exit(f"pytorch_wide_deep.py: {path} is not a wide-deep data file (bad magic)")
    columns, batch, batches, workers = struct.unpack_from("<IIII", data, 4)
    rows, = struct.unpack_from("<Q", data, 20)
    n = batch * batches * workers
    offset = 28
    ids = torch.frombuffer(bytearray(data[offset:offset + n * columns * 8]), dtype=torch.int64)
    offset += n * columns * 8
    labels = torch.frombuffer(bytearray(data[offset:offset + n * 4]), dtype=torch.int32)
    return dict(columns=columns, batch=batch, batches=batches, workers=workers, rows=rows,
                ids=ids.reshape(n, columns), labels=labels.float())


def shard_rows(rows, k):
    """Rows of shard k of PS under "mod": the ids with id % PS == k."""
    return rows // PS + (1 if k < rows % PS else 0)


class PsShard(nn.Module):
    """Shard k of every embedding table and of the linear table."""

    def __init__(self, columns, rows, dim, k, seed):
        super().__init__()
        torch.manual_seed(seed + k)
        self.emb = nn.ModuleList(
            nn.EmbeddingBag(shard_rows(rows, k), dim, mode="sum", sparse=True)
            for _ in range(columns))
        for e in self.emb:
            nn.init.trunc_normal_(e.weight, std=dim ** -0.5, a=-2 * dim ** -0.5, b=2 * dim ** -0.5)
        self.linear = nn.EmbeddingBag(shard_rows(columns * rows, k), 1, mode="sum", sparse=True)
        nn.init.zeros_(self.linear.weight)

    def forward(self, ids, offsets, wide_ids, wide_offsets):
        # One bag per looked-up id for the embeddings; one bag per example for the linear part.
        deep = torch.cat([e(i, o) for e, i, o in zip(self.emb, ids, offsets)])
        return deep, self.linear(wide_ids, wide_offsets)


class Tower(nn.Module):
    def __init__(self, width, hidden, seed):
        super().__init__()
        torch.manual_seed(seed)
        self.net = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        for m in self.net:
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        # Each step reads a copy of the weights, as a worker reads variables from a ps in TF:
        # another trainer's update between this step's forward and backward then leaves the
        # tensors saved for backward intact (in place, autograd would refuse the backward).
        first, _, last = self.net
        h = torch.relu(nn.functional.linear(x, first.weight.clone(), first.bias.clone()))
        return nn.functional.linear(h, last.weight.clone(), last.bias.clone())


def split_by_ps(ids, rows, columns):
    """Per ps: the lookups it serves for a batch, and how to put the answers back in order."""
    batch = ids.shape[0]
    col_offsets = torch.arange(columns, dtype=torch.int64) * rows
    wide = ids + col_offsets  # [batch, columns]: row c*rows + id of the linear table
    requests, inverse = [], []
    for k in range(PS):
        per_col, per_off = [], []
        for c in range(columns):
            mine = ids[:, c] % PS == k
            local = ids[mine, c] // PS
            per_col.append(local)
            per_off.append(torch.arange(local.numel(), dtype=torch.int64))
        mask = wide % PS == k
        counts = mask.sum(1)
        offsets = torch.zeros(batch, dtype=torch.int64)
        offsets[1:] = torch.cumsum(counts, 0)[:-1]
        requests.append((per_col, per_off, wide[mask] // PS, offsets))
    # Column c's rows come back as [ps 0's, ps 1's]: the permutation that restores batch order.
    for c in range(columns):
        order = torch.cat([torch.nonzero(ids[:, c] % PS == k).flatten() for k in range(PS)])
        inverse.append(torch.argsort(order))
    return requests, inverse


def trainer(rank, shards, tower, cfg):
    torch.set_num_threads(cfg["threads"])
    data = load(cfg["data"])
    columns, batch, rows = data["columns"], data["batch"], data["rows"]
    w = rank
    params = [p for s in shards for p in s.remote_parameters()] + tower.remote_parameters()
    opt = DistributedOptimizer(torch.optim.Adagrad, params, lr=cfg["learning_rate"],
                               initial_accumulator_value=0.001)
    first = last = None
    start = None
    total = cfg["warmup"] + cfg["steps"]
    for step in range(total):
        if step == cfg["warmup"]:
            start = time.perf_counter()
        b = step % data["batches"]
        lo = (w * data["batches"] + b) * batch
        ids = data["ids"][lo:lo + batch]
        labels = data["labels"][lo:lo + batch]
        requests, inverse = split_by_ps(ids, rows, columns)
        with dist_autograd.context() as ctx:
            futures = [s.forward_async(*r) for s, r in zip(shards, requests)]
            answers = [f.wait() for f in futures]
            sizes = [[r[0][c].numel() for c in range(columns)] for r in requests]
            parts = [torch.split(a[0], sz) for a, sz in zip(answers, sizes)]
            embedded = [torch.cat([parts[k][c] for k in range(PS)])[inverse[c]]
                        for c in range(columns)]
            deep = tower.forward(torch.cat(embedded, 1)).squeeze(1)
            logit = deep + sum(a[1].squeeze(1) for a in answers)
            loss = nn.functional.binary_cross_entropy_with_logits(logit, labels)
            dist_autograd.backward(ctx, [loss])
            opt.step(ctx)
        value = float(loss)
        first = value if first is None else first
        last = value
    return time.perf_counter() - start, first, last


def run(rank, cfg):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(cfg["port"])
    torch.set_num_threads(cfg["threads"])
    names = ["coordinator"] + [f"ps{k}" for k in range(PS)] + [f"trainer{w}" for w in range(TRAINERS)]
    options = rpc.TensorPipeRpcBackendOptions(num_worker_threads=8, rpc_timeout=600)
    rpc.init_rpc(names[rank], rank=rank, world_size=len(names), rpc_backend_options=options)
    if rank == 0:
        data = load(cfg["data"])
        shards = [RemoteModule(f"ps{k}/cpu", PsShard,
                               args=(data["columns"], data["rows"], cfg["dim"], k, 1000))
                  for k in range(PS)]
        tower = RemoteModule("ps0/cpu", Tower,
                             args=(data["columns"] * cfg["dim"], cfg["hidden"], 2000))
        futures = [rpc.rpc_async(f"trainer{w}", trainer, args=(w, shards, tower, cfg))
                   for w in range(TRAINERS)]
        results = [f.wait() for f in futures]
        seconds = max(r[0] for r in results)
        samples = TRAINERS * cfg["steps"] * data["batch"]
        print(f"PYTORCH model=wide-deep threads={cfg['threads']} steps={cfg['steps']} "
              f"seconds={seconds:.3f} samples_per_s={samples / seconds:.1f} "
              f"loss={results[0][1]:.4f}->{results[0][2]:.4f}", flush=True)
    rpc.shutdown()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True)
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--learning-rate", type=float, default=0.1)
    p.add_argument("--port", type=int, default=29517)
    a = p.parse_args()
    cfg = dict(data=a.data, steps=a.steps, warmup=a.warmup, threads=a.threads, dim=a.dim,
               hidden=a.hidden, learning_rate=a.learning_rate, port=a.port)
    mp.spawn(run, args=(cfg,), nprocs=1 + PS + TRAINERS, join=True)


if __name__ == "__main__":
    main()
