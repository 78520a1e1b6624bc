#!/usr/bin/python3
"""Plain PyTorch reference for Fanout's training step, on batches Fanout exported.

Usage: torch_reference.py DIR [--warmup W] [--threads T]

DIR is written by `bin/fanout bench-train --export-batches DIR` (layout in
io.fanout.bench.train.PeerBenchmark): config.json, params.npy (initial parameters) and
batch-NNNN/ folders of .npy arrays. The script trains the same GraphSAGE (mean
aggregation, concat form [x_dst | mean(x_src)] @ W + b, ReLU between layers,
inverted dropout on every layer's input) with torch.optim.Adam (L2 weight decay
added to the gradient) from the same initial parameters, one step per batch in
order. Every batch is turned into tensors before the clock starts; each step is
timed alone (forward, loss, backward, optimizer step).

It prints one JSON line: per timed step the seconds, per step the loss, and the
torch version and thread count. When torch is missing it installs Debian's
python3-torch (as root) or says how to.
"""

import argparse
import json
import os
import subprocess
import sys
import time

DEBIAN_PYTHON = "/usr/bin/python3"


def ensure_torch():
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
        return
    except ImportError:
        pass
    # Debian's python3-torch lives in the system interpreter, not in a pyenv or venv one.
    if os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON) and os.path.exists(
        DEBIAN_PYTHON
    ):
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON] + sys.argv)
    if os.geteuid() != 0:
        sys.exit(
            "torch_reference.py: PyTorch is not installed; run "
            "`sudo apt-get install python3-torch python3-numpy` and try again"
        )
    print("torch_reference.py: installing Debian's python3-torch ...", file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "python3-torch", "python3-numpy"],
        check=True,
        env=env,
        stdout=sys.stderr,
    )
    os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON] + sys.argv)


def load_batches(root, layers, torch, np):
    names = sorted(d for d in os.listdir(root) if d.startswith("batch-"))
    batches = []
    for name in names:
        d = os.path.join(root, name)
        sizes = np.load(os.path.join(d, "layer_sizes.npy")).tolist()
        blocks = []
        # Application order: hop L first, hop 1 last (as Fanout's Block.of).
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


def main():
    ensure_torch()
    import numpy as np
    import torch
    import torch.nn.functional as F

    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    with open(os.path.join(args.dir, "config.json")) as f:
        cfg = json.load(f)
    layers = cfg["layers"]
    p = cfg["dropout"]
    flat = np.load(os.path.join(args.dir, "params.npy"))
    weights, biases = [], []
    for spec in cfg["layout"]:
        w = flat[spec["weight"] : spec["weight"] + 2 * spec["in"] * spec["out"]]
        b = flat[spec["bias"] : spec["bias"] + spec["out"]]
        weights.append(torch.nn.Parameter(torch.from_numpy(w.copy()).view(2 * spec["in"], spec["out"])))
        biases.append(torch.nn.Parameter(torch.from_numpy(b.copy())))
    opt = torch.optim.Adam(
        weights + biases,
        lr=cfg["lr"],
        betas=(cfg["beta1"], cfg["beta2"]),
        eps=cfg["eps"],
        weight_decay=cfg["weight_decay"],
    )
    batches = load_batches(args.dir, layers, torch, np)

    def step(x, blocks, labels):
        h = x
        for l, (num_dst, indices, dst, inv_deg) in enumerate(blocks):
            hd = F.dropout(h, p, training=True) if p > 0 else h
            agg = torch.zeros(num_dst, hd.shape[1]).index_add_(0, dst, hd.index_select(0, indices))
            agg = agg * inv_deg
            h = torch.cat([hd[:num_dst], agg], dim=1) @ weights[l] + biases[l]
            if l < layers - 1:
                h = F.relu(h)
        loss = F.cross_entropy(h, labels, ignore_index=-1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    seconds, losses = [], []
    for i, (x, blocks, labels) in enumerate(batches):
        t0 = time.perf_counter()
        loss = step(x, blocks, labels)
        t1 = time.perf_counter()
        losses.append(loss)
        if i >= args.warmup:
            seconds.append(t1 - t0)
    print(
        json.dumps(
            {
                "seconds": seconds,
                "losses": losses,
                "torch_version": torch.__version__,
                "torch_threads": torch.get_num_threads(),
            }
        )
    )


if __name__ == "__main__":
    main()
