"""Tutorial 3: importing PyTorch models.

Run it with `python tutorials/03_pytorch.py`. It walks through:

1. the seed example: an MLP imported with `allo.frontend.from_pytorch(..., verbose=True)`, which
   prints the three stages (captured torch graph, generated allo source, MLIR module) and checks
   the LLVM build against PyTorch,
2. the per-layer summary: which library kernel instance each op became and which schedule it got,
3. other targets: HLS C++ (`target="vhls"`) and the composed schedule (`target="mlir"`),
4. a transformer block (attention, layer norm, GELU), where views/transposes are tracked without
   copies until a kernel needs a particular layout.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import allo

# ----------------------------------------------------------------------------- 1. the seed example
# from_pytorch captures the model with torch.export, maps every op to a kernel of allo.library.nn
# (or a small generated loop nest), writes readable allo source, customizes it, composes each
# kernel instance's predefined schedule, and builds for the CPU. verbose=True prints each stage.


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(16, 32)  # 8*16 * 32*16
        self.linear2 = torch.nn.Linear(32, 10)

    def forward(self, data):
        out = self.linear1(data)
        out = self.linear2(out)
        out = F.relu(out)
        return out


model = MLP()
model.eval()
example_inputs = [torch.rand(8, 16)]
llvm_mod = allo.frontend.from_pytorch(
    model, example_inputs=example_inputs, verbose=True
)
golden = model(*example_inputs)
np_inputs = [x.detach().numpy() for x in example_inputs]
res = llvm_mod(*np_inputs)
torch.testing.assert_close(res, golden.detach().numpy())
print("Passed!")

# ----------------------------------------------------------------------------- 2. what each op became
# The returned module keeps the import: the generated source and a per-layer table. The same table is
# what `allo compile MODULE:FACTORY --input-shape 8x16` prints.
print(llvm_mod.imported.summary())

# ----------------------------------------------------------------------------- 3. other targets
# target="vhls" returns the HLS module (Vitis HLS C++ with the library schedules as pragmas);
# target="mlir" returns the composed allo.Schedule, to inspect or to keep scheduling by hand.
hls_mod = allo.frontend.from_pytorch(model, example_inputs=example_inputs, target="vhls")
assert "#pragma HLS pipeline II=1" in hls_mod.hls_code
s = allo.frontend.from_pytorch(model, example_inputs=example_inputs, target="mlir")
print(s)  # the recipe: every composed library schedule step, per instance

# weights_as_args=True makes the weights kernel arguments (instead of memref.global constants);
# the returned callable still takes only the model inputs.
mod2 = allo.frontend.from_pytorch(model, example_inputs=example_inputs, weights_as_args=True)
np.testing.assert_allclose(mod2(*np_inputs), golden.detach().numpy(), atol=1e-5)

# ----------------------------------------------------------------------------- 4. a transformer block
# Multi-head attention reshapes and transposes a lot. The frontend tracks each tensor as a strided view
# of an allo array (like torch does) and only emits a copy loop when a kernel needs another layout.


class EncoderLayer(nn.Module):
    def __init__(self, d=32, heads=4, ff=64):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, n, d)
        x = self.ln1(x + self.proj(a))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


enc = EncoderLayer().eval()
x = torch.rand(2, 8, 32)
enc_mod = allo.frontend.from_pytorch(enc, example_inputs=[x])
print(enc_mod.imported.source)
np.testing.assert_allclose(enc_mod(x.numpy()), enc(x).detach().numpy(), atol=1e-4)
print("Transformer encoder layer matches PyTorch.")
