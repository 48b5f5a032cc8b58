"""export_moe.py FORM OUT.onnx — one mixture-of-experts block as PyTorch exports it, for run.sh.

Forms (docs/workloads.md, "Mixture of experts"), each a SwiGLU MoE on [1, 16, hidden] tokens:
  dense     every expert on every token, weighed by the top-k gates scattered over the experts
  gathered  every expert's output stacked, each token's k picked by torch.gather on the top-k
            indices (idx[..., None].expand(...)), weighed and summed
  mixtral   Hugging Face Mixtral's loop: one_hot masks, torch.where, index_add_ (the shapes of
            its dispatch come from the data)
  fine      the dense form with 16 narrow experts, top-4, and a shared expert on every token
  biased    the dense form with biased expert projections: not recognised
Hidden 256, expert width 512, 8 experts, top-2 unless said. Weights are random: only shapes count.
"""
import sys

import torch
import torch.nn.functional as F
from torch import nn


class Expert(nn.Module):
    def __init__(self, hidden, width, bias=False):
        super().__init__()
        self.w1 = nn.Linear(hidden, width, bias=bias)
        self.w3 = nn.Linear(hidden, width, bias=bias)
        self.w2 = nn.Linear(width, hidden, bias=bias)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Moe(nn.Module):
    def __init__(self, form, hidden=256, width=512, experts=8, k=2, shared_width=0, bias=False):
        super().__init__()
        self.form, self.k = form, k
        self.gate = nn.Linear(hidden, experts, bias=False)
        self.experts = nn.ModuleList([Expert(hidden, width, bias) for _ in range(experts)])
        self.shared = Expert(hidden, shared_width) if shared_width else None

    def routing(self, x):
        w, idx = torch.topk(F.softmax(self.gate(x), dim=-1), self.k, dim=-1)
        return w / w.sum(-1, keepdim=True), idx

    def forward(self, x):
        out = getattr(self, self.form)(x)
        return out + self.shared(x) if self.shared is not None else out

    def dense(self, x):
        w, idx = self.routing(x)
        gates = torch.zeros(*x.shape[:-1], len(self.experts)).scatter(-1, idx, w)
        out = 0
        for e, expert in enumerate(self.experts):
            out = out + expert(x) * gates[..., e:e + 1]
        return out

    def gathered(self, x):
        w, idx = self.routing(x)
        every = torch.stack([expert(x) for expert in self.experts], dim=-2)
        picked = torch.gather(every, -2, idx[..., None].expand(*idx.shape, x.shape[-1]))
        return (picked * w[..., None]).sum(-2)

    def mixtral(self, x):
        b, t, h = x.shape
        x = x.view(-1, h)
        w, idx = self.routing(x)
        out = torch.zeros_like(x)
        mask = F.one_hot(idx, num_classes=len(self.experts)).permute(2, 1, 0)
        for e, expert in enumerate(self.experts):
            j, top = torch.where(mask[e])
            out.index_add_(0, top, expert(x[None, top].reshape(-1, h)) * w[top, j, None])
        return out.view(b, t, h)


FORMS = {
    "dense": lambda: Moe("dense"),
    "gathered": lambda: Moe("gathered"),
    "mixtral": lambda: Moe("mixtral"),
    "fine": lambda: Moe("dense", width=64, experts=16, k=4, shared_width=256),
    "biased": lambda: Moe("dense", bias=True),
}

if __name__ == "__main__":
    form, path = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    model = FORMS[form]().eval()
    torch.onnx.export(model, torch.randn(1, 16, 256), path, opset_version=17,
                      input_names=["x"], output_names=["y"])
