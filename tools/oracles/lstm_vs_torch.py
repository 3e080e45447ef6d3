#!/usr/bin/env python3
"""`tandem lstm` against PyTorch's nn.LSTM on the same data: weights taken from an nn.LSTM and
packed in the layout of docs/LSTM_DATA.md, ragged lengths through pack_padded_sequence (whose
reverse direction also runs within each length), every output and gradient compared.
Exits 0 when all agree within 1e-5, 1 when one does not, 77 when torch is not installed.

    tools/oracles/lstm_vs_torch.py TANDEM_BINARY WORKDIR
"""
import os
import subprocess
import sys

try:  # numpy too: a Python without it is a skip (77) naming what is missing, not a traceback
    import numpy as np
    import torch
except ImportError as missing:
    print(f"skip: {missing} (for {sys.executable})", file=sys.stderr)
    sys.exit(77)

tandem, work = sys.argv[1], sys.argv[2]
B, T, I, H, L = 3, 5, 4, 6, 2
lens = [5, 2, 4]
torch.manual_seed(0)
m = torch.nn.LSTM(I, H, num_layers=L, bidirectional=True, batch_first=True)
x, h0, c0 = torch.randn(B, T, I), torch.randn(2 * L, B, H), torch.randn(2 * L, B, H)
dy, dhn, dcn = torch.randn(B, T, 2 * H), torch.randn(2 * L, B, H), torch.randn(2 * L, B, H)
layers = [f"l{l}{s}" for l in range(L) for s in ("", "_reverse")]  # fwd0, rev0, fwd1, rev1
params = [f"weight_{k}_{n}" for n in layers for k in ("ih", "hh")] + \
         [f"bias_{k}_{n}" for n in layers for k in ("ih", "hh")]
inp, out = os.path.join(work, "in"), os.path.join(work, "out")
os.makedirs(inp, exist_ok=True)
np.save(os.path.join(inp, "w.npy"), np.concatenate([getattr(m, p).detach().numpy().ravel() for p in params]))
for name, t in (("x", x), ("h0", h0), ("c0", c0), ("dy", dy), ("dh_n", dhn), ("dc_n", dcn)):
    np.save(os.path.join(inp, name + ".npy"), t.numpy())
np.save(os.path.join(inp, "seq_lengths.npy"), np.array(lens, dtype=np.int32))
subprocess.run([tandem, "lstm", "--in", inp, "--out", out, "--hidden-size", str(H), "--num-layers", str(L),
                "--bidirectional", "1", "-q"], check=True)

xg, h0g, c0g = (t.clone().requires_grad_(True) for t in (x, h0, c0))
packed = torch.nn.utils.rnn.pack_padded_sequence(xg, torch.tensor(lens), batch_first=True, enforce_sorted=False)
yp, (hn, cn) = m(packed, (h0g, c0g))
y, _ = torch.nn.utils.rnn.pad_packed_sequence(yp, batch_first=True, total_length=T)
torch.autograd.backward([y, hn, cn], [dy, dhn, dcn])
want = {"y": y, "h_n": hn, "c_n": cn, "dx": xg.grad, "dh0": h0g.grad, "dc0": c0g.grad,
        "dw": torch.cat([getattr(m, p).grad.reshape(-1) for p in params])}
bad = 0
for name, t in want.items():
    err = float(np.abs(np.load(os.path.join(out, name + ".npy")) - t.detach().numpy()).max())
    ok = err <= 1e-5
    bad += not ok
    print(f"{name}: max |tandem - torch| = {err:.3g}{'' if ok else '  > 1e-5'}")
sys.exit(1 if bad else 0)
