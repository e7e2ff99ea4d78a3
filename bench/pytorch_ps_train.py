#!/usr/bin/env python3
"""PyTorch baseline of bench_train_ps_vs_pytorch: caflow-train's MLP trained synchronously by
PyTorch's own parameter server, on the same batches of 50 per trainer, optimizer (Adam 0.001)
and threads per process as caflow's 1 ps + 2 workers.

  pytorch_ps_train.py --batches FILE [--steps N] [--warmup N] [--threads N] [--port P]

The cluster is torch.distributed.rpc (TensorPipe on 127.0.0.1), three processes: the ps and 2
trainers. This is PyTorch's batch-updating parameter server, its fastest synchronous design
with one round trip per trainer and step:
  - each trainer computes its gradients on a local copy of the model and sends all of them in
    one RPC;
  - the ps sums both trainers' gradients, and when both are in it applies their mean with
    torch.optim.Adam and answers both RPCs with all the new parameters (async_execution, so
    no ps thread waits).
Every process runs torch.set_num_threads(--threads), with denormals flushed as in
pytorch_train.py.

FILE is written by `bench_train_samples_per_s --batch 50 --write-batches FILE`; trainer w takes
batches w, w + 2, w + 4, ... Prints one line that bench/run reads:
  PYTORCH model=mlp-ps threads=<t> steps=<n> seconds=<s> samples_per_s=<v> loss=<a>-><b>
(samples_per_s: global, both trainers' samples over trainer 0's timed steps).
"""
import argparse
import os
import sys
import threading
import time

import torch
import torch.distributed.rpc as rpc
import torch.multiprocessing as mp
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_train import glorot_init, load_batches, mlp  # noqa: E402

TRAINERS = 2


class ParameterServer:
    def __init__(self, threads):
        torch.set_num_threads(threads)
        torch.set_flush_denormal(True)
        torch.manual_seed(1)
        self.model = mlp()
        glorot_init(self.model)
        self.params = list(self.model.parameters())
        self.optimizer = torch.optim.Adam(self.params, lr=0.001, betas=(0.9, 0.999), eps=1e-8)
        self.lock = threading.Lock()
        self.pending = 0
        self.future = torch.futures.Future()

    def current(self):
        return [p.detach().clone() for p in self.params]

    @staticmethod
    @rpc.functions.async_execution
    def update_and_fetch(ps_rref, grads):
        self = ps_rref.local_value()
        with self.lock:
            for p, g in zip(self.params, grads):
                p.grad = g if p.grad is None else p.grad + g
            self.pending += 1
            future = self.future
            if self.pending == TRAINERS:
                for p in self.params:
                    p.grad /= TRAINERS
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
                self.pending = 0
                future.set_result(self.current())
                self.future = torch.futures.Future()
        return future


def fetch(ps_rref):
    return ps_rref.local_value().current()


def trainer(rank, ps_rref, a):
    torch.set_num_threads(a.threads)
    torch.set_flush_denormal(True)
    w = rank - 1
    batches = load_batches(a.batches)
    model = mlp()
    params = list(model.parameters())
    loss_fn = nn.CrossEntropyLoss()
    with torch.no_grad():
        for p, v in zip(params, rpc.rpc_sync(ps_rref.owner(), fetch, args=(ps_rref,))):
            p.copy_(v)
    losses = []
    start = None
    for i in range(a.warmup + a.steps):
        if i == a.warmup:
            start = time.perf_counter()
        images, labels = batches[(TRAINERS * i + w) % len(batches)]
        for p in params:
            p.grad = None
        loss = loss_fn(model(images), labels)
        loss.backward()
        losses.append(loss.item())
        fresh = rpc.rpc_sync(ps_rref.owner(), ParameterServer.update_and_fetch,
                             args=(ps_rref, [p.grad for p in params]))
        with torch.no_grad():
            for p, v in zip(params, fresh):
                p.copy_(v)
    seconds = time.perf_counter() - start
    size = batches[0][1].numel()
    return a.steps * size * TRAINERS / seconds, seconds, losses[0], losses[-1]


def run(rank, a):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(a.port)
    # TensorPipe's own choice of transports (shared memory between processes of one host,
    # where it has it): PyTorch at its best.
    opts = rpc.TensorPipeRpcBackendOptions(num_worker_threads=4, rpc_timeout=300)
    name = "ps" if rank == 0 else f"trainer{rank}"
    rpc.init_rpc(name, rank=rank, world_size=1 + TRAINERS, rpc_backend_options=opts)
    if rank == 0:
        ps_rref = rpc.RRef(ParameterServer(a.threads))
        futures = [rpc.rpc_async(f"trainer{r}", trainer, args=(r, ps_rref, a))
                   for r in range(1, 1 + TRAINERS)]
        rate, seconds, first, last = futures[0].wait()
        for f in futures[1:]:
            f.wait()
        print(f"PYTORCH model=mlp-ps threads={a.threads} steps={a.steps} seconds={seconds:.3f} "
              f"samples_per_s={rate:.2f} loss={first:.3f}->{last:.3f}", flush=True)
    rpc.shutdown()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", required=True)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--port", type=int, default=29531)
    a = parser.parse_args()
    mp.spawn(run, args=(a,), nprocs=1 + TRAINERS, join=True)


if __name__ == "__main__":
    main()
