#!/usr/bin/python3
"""Exports torchvision's models to ONNX as a user would, for tests/e2e/torchvision/run.sh.

    /usr/bin/python3 tests/e2e/torchvision/export_models.py DIR [MODEL...]
    /usr/bin/python3 tests/e2e/torchvision/export_models.py --list

Needs Debian's python3-torchvision (scripts/packages.txt), which brings python3-torch. Each model
is built with random weights (weights=None: nothing is downloaded), put in eval mode and exported
with torch.onnx.export at opset 17 (the newest torch 1.13 writes), batch 1. DIR/NAME.onnx is
written and its path printed on its own line as soon as it is complete, so the caller can compile
one model while the next is exported and delete each file when done: the exports hold their
weights (several hundred MB for vgg11 or vit_b_16) and are never kept in the repository.

The list takes one model of each torchvision classifier family, the segmentation models (but
the ResNet-101 variants of the ResNet-50 ones), and a top-k mixture of experts written the
common PyTorch way (below).
"""
import os
import sys
import warnings

import torch
import torchvision
from torch import nn

OPSET = 17

# One model per classifier family, at 224x224 but inception_v3 (defined on 299x299). The
# segmentation models run on 224x224 too (520x520 is torchvision's reference size): they are
# fully convolutional, and the smaller image keeps their plans quick to find.
CLASSIFIERS = [
    "alexnet",
    "convnext_tiny",
    "densenet121",
    "efficientnet_b0",
    "efficientnet_v2_s",
    "googlenet",
    "inception_v3",
    "maxvit_t",
    "mnasnet0_5",
    "mobilenet_v2",
    "mobilenet_v3_small",
    "regnet_y_400mf",
    "resnet18",
    "resnext50_32x4d",
    "shufflenet_v2_x0_5",
    "squeezenet1_0",
    "swin_t",
    "vgg11",
    "vit_b_16",
    "wide_resnet50_2",
]
SEGMENTATION = [
    "deeplabv3_mobilenet_v3_large",
    "deeplabv3_resnet50",
    "fcn_resnet50",
    "lraspp_mobilenet_v3_large",
]
IMAGE = {"inception_v3": 299}
DEFAULT_IMAGE = 224


class TopKMoE(nn.Module):
    """A transformer MLP replaced by a top-k mixture of experts, as it is commonly written in
    PyTorch: the router's logits, torch.topk, every expert run on every token, and the chosen
    experts' outputs picked with idx[..., None].expand(...) and gather. The export carries the
    routing indices as int64 through Unsqueeze, Expand and GatherElements."""

    def __init__(self, hidden=64, ffn=128, experts=8, k=2):
        super().__init__()
        self.k = k
        self.norm = nn.LayerNorm(hidden)
        self.router = nn.Linear(hidden, experts, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(hidden, ffn), nn.GELU(), nn.Linear(ffn, hidden))
            for _ in range(experts))

    def forward(self, x):  # x: [batch, tokens, hidden]
        h = self.norm(x)
        logits = self.router(h)
        weights, idx = torch.topk(logits, self.k, dim=-1)  # [batch, tokens, k]
        weights = torch.softmax(weights, dim=-1)
        every = torch.stack([e(h) for e in self.experts], dim=2)  # [batch, tokens, experts, hidden]
        chosen = torch.gather(every, 2, idx[..., None].expand(-1, -1, -1, every.shape[-1]))
        return x + (chosen * weights[..., None]).sum(dim=2)


def build(name):
    """The module and an example input for a model name of the list."""
    if name == "topk_moe":
        torch.manual_seed(0)
        return TopKMoE(), torch.randn(1, 16, 64)
    if name in SEGMENTATION:
        # No auxiliary head (aux_loss=None is False without weights); the output is a dict
        # {"out": logits}, which torch.onnx.export flattens to the one output.
        model = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None)
    else:
        model = getattr(torchvision.models, name)(weights=None)
    side = IMAGE.get(name, DEFAULT_IMAGE)
    return model, torch.randn(1, 3, side, side)


def export(name, out_dir):
    path = os.path.join(out_dir, name + ".onnx")
    partial = path + ".part"
    with warnings.catch_warnings():
        # torchvision's notes on googlenet's and inception_v3's future initialisation, and the
        # tracer's on python values taken as constants (what a batch-1 export fixes), are
        # expected here.
        warnings.simplefilter("ignore")
        model, example = build(name)
        model.eval()
        # Not under torch.no_grad(): nn.MultiheadAttention (vit_b_16) then takes its fused
        # inference path, which torch 1.13 cannot export.
        torch.onnx.export(model, (example,), partial, opset_version=OPSET,
                          input_names=["input"], output_names=["output"])
    os.replace(partial, path)
    return path


def main(argv):
    every = CLASSIFIERS + SEGMENTATION + ["topk_moe"]
    if argv[1:] == ["--list"]:
        print("\n".join(every))
        return 0
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out_dir, names = argv[1], argv[2:] or every
    unknown = [n for n in names if n not in every]
    if unknown:
        print("unknown model(s): " + ", ".join(unknown) + "; see --list", file=sys.stderr)
        return 2
    os.makedirs(out_dir, exist_ok=True)
    torch.set_num_threads(1)  # the caller compiles on the other core meanwhile
    for name in names:
        try:
            path = export(name, out_dir)
        except Exception as e:  # one failed export must not hide the others
            print("EXPORT FAILED " + name + ": " + type(e).__name__ + ": " + str(e), flush=True)
            continue
        print(path, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
