#!/usr/bin/env python3
"""Plain PyTorch reference for Fanout's training step, on batches Fanout exported.

Usage: torch_reference.py DIR [--warmup W] [--threads T] [--device cpu|cuda]

DIR is written by `bin/fanout bench-train --export-batches DIR` (layout in
io.fanout.bench.train.PeerExport): config.json, params.npy (initial parameters) and
batch-NNNN/ folders of .npy arrays. The script trains the same GraphSAGE (mean
aggregation, concat form [x_dst | mean(x_src)] @ W + b, ReLU between layers,
inverted dropout on every layer's input) with torch.optim.Adam (L2 weight decay
added to the gradient) from the same initial parameters, one step per batch in
order. The first W steps are untimed.

On the CPU (the default) every batch is turned into tensors before the clock starts
and each step is timed alone. It prints one JSON line: per timed step the seconds
(`seconds`), per step the loss (`losses`), the torch version and thread count.

On CUDA (fp32, TF32 off) it trains three times over the same batches, each time from
the same initial parameters:
  resident   every batch's tensors in device memory before the clock;
  pinned     the batch's tensors in pinned host memory, copied with
             .to(device, non_blocking=True) inside the step;
  pipelined  batch k+1's tensors copied from pinned memory on a side stream while
             batch k computes (SALIENT's scheme), with no host sync inside the loop.
resident and pinned are timed per step (synchronised before and after each step) and,
in a second run each, as a loop of the timed steps with no sync inside, divided by the
steps; pipelined only as a loop (per-step times without a sync mean nothing). Losses
stay on the device and are read once, after the run. In the same process it times the
copy bound: each timed batch's x alone from pinned host memory to the device.
It prints one JSON line: per variant `seconds_per_step`, `loop_seconds_per_step` and
`losses`, with `pcie_copy_ms_per_batch`, `pcie_gbps`, the device name and torch version.
"""

import argparse
import json
import os
import sys
import time


def import_torch():
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        sys.exit(
            "torch_reference.py: %s cannot import torch and numpy (%s); run it with an "
            "interpreter that can" % (sys.executable, e)
        )


def load_batches(root, layers, torch, np):
    """Per batch (x, blocks, labels) as CPU tensors; blocks in application order (hop L first)."""
    names = sorted(d for d in os.listdir(root) if d.startswith("batch-"))
    batches = []
    for name in names:
        d = os.path.join(root, name)
        sizes = np.load(os.path.join(d, "layer_sizes.npy")).tolist()
        blocks = []
        for h in range(layers, 0, -1):
            indptr = torch.from_numpy(np.load(os.path.join(d, "indptr_%d.npy" % h)).astype(np.int64))
            indices = torch.from_numpy(np.load(os.path.join(d, "indices_%d.npy" % h)).astype(np.int64))
            num_dst = sizes[h - 1]
            deg = indptr[1:] - indptr[:-1]
            dst = torch.repeat_interleave(torch.arange(num_dst), deg)
            inv_deg = (1.0 / deg.clamp(min=1).to(torch.float32)).unsqueeze(1)
            blocks.append((num_dst, indices, dst, inv_deg))
        labels = torch.from_numpy(np.load(os.path.join(d, "labels.npy")).astype(np.int64))
        x = torch.from_numpy(np.load(os.path.join(d, "x.npy"))).view(sizes[layers], -1)
        batches.append((x, blocks, labels))
    return batches


def moved(batch, fn):
    """The batch with fn applied to each of its tensors (x, indices, dst, inv_deg, labels)."""
    x, blocks, labels = batch
    return (
        fn(x),
        [(n, fn(indices), fn(dst), fn(inv_deg)) for n, indices, dst, inv_deg in blocks],
        fn(labels),
    )


def tensors(batch):
    x, blocks, labels = batch
    out = [x, labels]
    for _, indices, dst, inv_deg in blocks:
        out += [indices, dst, inv_deg]
    return out


class Model:
    """The exported GraphSAGE with its own Adam, from the initial parameters, on one device."""

    def __init__(self, cfg, flat, torch, device):
        self.torch = torch
        self.layers = cfg["layers"]
        self.p = cfg["dropout"]
        self.weights, self.biases = [], []
        for spec in cfg["layout"]:
            w = flat[spec["weight"] : spec["weight"] + 2 * spec["in"] * spec["out"]]
            b = flat[spec["bias"] : spec["bias"] + spec["out"]]
            w = torch.from_numpy(w.copy()).view(2 * spec["in"], spec["out"]).to(device)
            self.weights.append(torch.nn.Parameter(w))
            self.biases.append(torch.nn.Parameter(torch.from_numpy(b.copy()).to(device)))
        self.opt = torch.optim.Adam(
            self.weights + self.biases,
            lr=cfg["lr"],
            betas=(cfg["beta1"], cfg["beta2"]),
            eps=cfg["eps"],
            weight_decay=cfg["weight_decay"],
        )

    def step(self, x, blocks, labels):
        """One training step; returns the loss as a detached tensor (no host sync)."""
        torch = self.torch
        F = torch.nn.functional
        h = x
        for l, (num_dst, indices, dst, inv_deg) in enumerate(blocks):
            hd = F.dropout(h, self.p, training=True) if self.p > 0 else h
            agg = torch.zeros(num_dst, hd.shape[1], device=hd.device)
            agg.index_add_(0, dst, hd.index_select(0, indices))
            agg = agg * inv_deg
            h = torch.cat([hd[:num_dst], agg], dim=1) @ self.weights[l] + self.biases[l]
            if l < self.layers - 1:
                h = F.relu(h)
        loss = F.cross_entropy(h, labels, ignore_index=-1)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        return loss.detach()


def run_cpu(args, cfg, flat, batches, torch):
    model = Model(cfg, flat, torch, "cpu")
    seconds, losses = [], []
    for i, (x, blocks, labels) in enumerate(batches):
        t0 = time.perf_counter()
        loss = model.step(x, blocks, labels).item()
        t1 = time.perf_counter()
        losses.append(loss)
        if i >= args.warmup:
            seconds.append(t1 - t0)
    return {"device": "cpu", "seconds": seconds, "losses": losses}


def per_step(model, batches, warmup, fetch, torch):
    """Each step timed alone, synchronised before and after; fetch(batch) gives its device tensors."""
    seconds, losses = [], []
    for i, b in enumerate(batches):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        losses.append(model.step(*fetch(b)))
        torch.cuda.synchronize()
        if i >= warmup:
            seconds.append(time.perf_counter() - t0)
    return sum(seconds) / max(1, len(seconds)), [l.item() for l in losses]


def as_loop(model, batches, warmup, fetch, torch):
    """The timed steps as one loop with no sync inside, divided by the steps."""
    losses = []
    t0 = None
    for i, b in enumerate(batches):
        if i == warmup:
            torch.cuda.synchronize()
            t0 = time.perf_counter()
        losses.append(model.step(*fetch(b)))
    torch.cuda.synchronize()
    timed = len(batches) - warmup
    loop = (time.perf_counter() - t0) / timed if timed > 0 else 0.0
    return loop, [l.item() for l in losses]


def pipelined(model, pinned, warmup, device, torch):
    """Batch k+1 copied on a side stream while batch k computes (SALIENT); timed as a loop."""
    side = torch.cuda.Stream(device=device)
    main = torch.cuda.current_stream(device)

    def prefetch(b):
        with torch.cuda.stream(side):
            on_device = moved(b, lambda t: t.to(device, non_blocking=True))
            ready = torch.cuda.Event()
            ready.record(side)
        return on_device, ready

    losses = []
    t0 = None
    ahead = prefetch(pinned[0])
    for i in range(len(pinned)):
        if i == warmup:
            torch.cuda.synchronize()
            t0 = time.perf_counter()
        b, ready = ahead
        main.wait_event(ready)
        for t in tensors(b):
            # allocated on the side stream, used on the main one: keep them until it is done
            t.record_stream(main)
        if i + 1 < len(pinned):
            ahead = prefetch(pinned[i + 1])
        losses.append(model.step(*b))
    torch.cuda.synchronize()
    timed = len(pinned) - warmup
    loop = (time.perf_counter() - t0) / timed if timed > 0 else 0.0
    return loop, [l.item() for l in losses]


def copy_bound(pinned, warmup, device, torch):
    """Each timed batch's x alone, pinned host memory to the device: ms per batch and GB/s."""
    timed = pinned[warmup:]
    if not timed:
        return 0.0, 0.0
    biggest = max(b[0].numel() for b in timed)
    target = torch.empty(biggest, dtype=torch.float32, device=device)
    for b in timed[:2]:  # first touches outside the clock
        target[: b[0].numel()].copy_(b[0].view(-1), non_blocking=True)
    total_bytes, total_seconds = 0, 0.0
    for b in timed:
        x = b[0].view(-1)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        target[: x.numel()].copy_(x, non_blocking=True)
        torch.cuda.synchronize()
        total_seconds += time.perf_counter() - t0
        total_bytes += x.numel() * 4
    return 1e3 * total_seconds / len(timed), total_bytes / total_seconds / 1e9


def run_cuda(args, cfg, flat, batches, torch):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.device("cuda")
    w = args.warmup
    resident = [moved(b, lambda t: t.to(device)) for b in batches]
    pinned = [moved(b, lambda t: t.pin_memory()) for b in batches]
    torch.cuda.synchronize()

    def to_device(b):
        return moved(b, lambda t: t.to(device, non_blocking=True))

    out = {}
    step_r, losses_r = per_step(Model(cfg, flat, torch, device), resident, w, lambda b: b, torch)
    loop_r, _ = as_loop(Model(cfg, flat, torch, device), resident, w, lambda b: b, torch)
    out["resident"] = {
        "seconds_per_step": step_r,
        "loop_seconds_per_step": loop_r,
        "losses": losses_r,
    }
    step_p, losses_p = per_step(Model(cfg, flat, torch, device), pinned, w, to_device, torch)
    loop_p, _ = as_loop(Model(cfg, flat, torch, device), pinned, w, to_device, torch)
    out["pinned"] = {"seconds_per_step": step_p, "loop_seconds_per_step": loop_p, "losses": losses_p}
    loop_s, losses_s = pipelined(Model(cfg, flat, torch, device), pinned, w, device, torch)
    out["pipelined"] = {
        "seconds_per_step": loop_s,
        "loop_seconds_per_step": loop_s,
        "losses": losses_s,
    }
    copy_ms, gbps = copy_bound(pinned, w, device, torch)
    x_bytes = [b[0].numel() * 4 for b in batches[w:]]
    return {
        "device": "cuda",
        "device_name": torch.cuda.get_device_name(device),
        "timed_steps": len(batches) - w,
        "variants": out,
        "pcie_copy_ms_per_batch": copy_ms,
        "pcie_gbps": gbps,
        "x_mb_per_batch": sum(x_bytes) / max(1, len(x_bytes)) / 1e6,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    args = ap.parse_args()
    import_torch()
    import numpy as np
    import torch

    torch.set_num_threads(args.threads)
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("torch_reference.py: --device cuda but torch %s sees no CUDA device" % torch.__version__)
    with open(os.path.join(args.dir, "config.json")) as f:
        cfg = json.load(f)
    flat = np.load(os.path.join(args.dir, "params.npy"))
    batches = load_batches(args.dir, cfg["layers"], torch, np)
    if args.warmup >= len(batches):
        sys.exit("torch_reference.py: --warmup %d leaves none of %d batches" % (args.warmup, len(batches)))
    run = run_cuda if args.device == "cuda" else run_cpu
    result = run(args, cfg, flat, batches, torch)
    result["torch_version"] = torch.__version__
    result["torch_threads"] = torch.get_num_threads()
    result["python"] = sys.executable
    print(json.dumps(result))


if __name__ == "__main__":
    main()
