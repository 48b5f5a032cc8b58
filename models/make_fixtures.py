#!/usr/bin/python3
"""Exports the small ONNX fixtures in models/fixtures/ with Debian's python3-torch.

Run by developers after changing a fixture (CI never runs torch):

    apt-get install python3-torch
    /usr/bin/python3 models/make_fixtures.py

Prints each model's parameter and buffer counts; tests/unit/frontend/onnx_fixtures_test.cpp checks
the importer against numbers computed from the same dimensions. Keep each file under 1 MB.
"""
import math
import os
import sys

import torch
from torch import nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
OPSET = 17

# GPT-like: learned positions, LayerNorm, nn.MultiheadAttention, GELU MLP.
GPT = dict(vocab=256, hidden=64, heads=4, ffn=256, layers=2, max_pos=64)
# Llama-like: RMSNorm, rotary embeddings, grouped-query attention, SwiGLU.
LLAMA = dict(vocab=256, hidden=64, heads=4, kv_heads=2, ffn=172, layers=2, max_pos=64)
# CNN: Conv with stride/padding/dilation/groups, BatchNorm, pooling, a residual add.
CNN = dict(channels=16, classes=10, image=32)


class GptBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln1 = nn.LayerNorm(d["hidden"])
        self.attn = nn.MultiheadAttention(d["hidden"], d["heads"], batch_first=True)
        self.ln2 = nn.LayerNorm(d["hidden"])
        self.fc1 = nn.Linear(d["hidden"], d["ffn"])
        self.fc2 = nn.Linear(d["ffn"], d["hidden"])

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))


class Gpt(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.embed = nn.Embedding(d["vocab"], d["hidden"])
        self.pos = nn.Embedding(d["max_pos"], d["hidden"])
        self.blocks = nn.ModuleList(GptBlock(d) for _ in range(d["layers"]))
        self.ln = nn.LayerNorm(d["hidden"])
        self.head = nn.Linear(d["hidden"], d["vocab"], bias=False)

    def forward(self, tokens):
        seq = tokens.shape[1]
        x = self.embed(tokens) + self.pos(torch.arange(seq))
        mask = torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1)
        for b in self.blocks:
            x = b(x, mask)
        return self.head(self.ln(x))


class RmsNorm(nn.Module):
    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        h, hd = d["hidden"], d["hidden"] // d["heads"]
        self.heads, self.kv_heads, self.hd = d["heads"], d["kv_heads"], hd
        self.attn_norm = RmsNorm(h)
        self.q = nn.Linear(h, d["heads"] * hd, bias=False)
        self.k = nn.Linear(h, d["kv_heads"] * hd, bias=False)
        self.v = nn.Linear(h, d["kv_heads"] * hd, bias=False)
        self.o = nn.Linear(d["heads"] * hd, h, bias=False)
        self.ffn_norm = RmsNorm(h)
        self.gate = nn.Linear(h, d["ffn"], bias=False)
        self.up = nn.Linear(h, d["ffn"], bias=False)
        self.down = nn.Linear(d["ffn"], h, bias=False)

    def repeat_kv(self, x):
        b, g, s, hd = x.shape
        rep = self.heads // self.kv_heads
        return x[:, :, None, :, :].expand(b, g, rep, s, hd).reshape(b, g * rep, s, hd)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        h = self.attn_norm(x)
        q = self.q(h).view(b, s, self.heads, self.hd).transpose(1, 2)
        k = self.k(h).view(b, s, self.kv_heads, self.hd).transpose(1, 2)
        v = self.v(h).view(b, s, self.kv_heads, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.hd), dim=-1)
        x = x + self.o((att @ v).transpose(1, 2).reshape(b, s, -1))
        h = self.ffn_norm(x)
        return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))


class Llama(nn.Module):
    def __init__(self, d):
        super().__init__()
        hd = d["hidden"] // d["heads"]
        self.embed = nn.Embedding(d["vocab"], d["hidden"])
        self.blocks = nn.ModuleList(LlamaBlock(d) for _ in range(d["layers"]))
        self.norm = RmsNorm(d["hidden"])
        self.head = nn.Linear(d["hidden"], d["vocab"], bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.outer(torch.arange(d["max_pos"]).float(), inv)
        self.register_buffer("cos", torch.cat((ang, ang), -1).cos())
        self.register_buffer("sin", torch.cat((ang, ang), -1).sin())

    def forward(self, tokens):
        s = tokens.shape[1]
        cos, sin = self.cos[:s], self.sin[:s]
        x = self.embed(tokens)
        for b in self.blocks:
            x = b(x, cos, sin)
        return self.head(self.norm(x))


class Cnn(nn.Module):
    def __init__(self, d):
        super().__init__()
        c = d["channels"]
        self.stem = nn.Conv2d(3, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.pool = nn.MaxPool2d(2)
        self.conv_a = nn.Conv2d(c, c, 3, padding=2, dilation=2, groups=4)
        self.bn2 = nn.BatchNorm2d(c)
        self.conv_b = nn.Conv2d(c, 2 * c, 3, stride=2, padding=1)
        self.avg = nn.AvgPool2d(2)
        self.head = nn.Linear(2 * c, d["classes"])

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.stem(x))))
        x = torch.relu(x + self.bn2(self.conv_a(x)))
        x = self.avg(torch.relu(self.conv_b(x)))
        x = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


def count(module):
    params = sum(p.numel() for p in module.parameters())
    buffers = sum(b.numel() for n, b in module.named_buffers() if "num_batches" not in n)
    return params, buffers


def export(name, model, example, dynamic):
    # Distinct values everywhere: the exporter stores equal initializers (fresh LayerNorm weights
    # are all ones) only once, which would hide parameters from the importer's weight count.
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.02)
    model.eval()
    path = os.path.join(OUT, name + ".onnx")
    names = {0: "batch", 1: "seq"}
    axes = {"input": {i: names[i] for i in dynamic}, "output": {0: "batch"}}
    torch.onnx.export(model, example, path, opset_version=OPSET, input_names=["input"],
                      output_names=["output"], dynamic_axes=axes, do_constant_folding=True)
    params, buffers = count(model)
    size = os.path.getsize(path)
    print(f"{name}: {params} parameters, {buffers} buffer elements, {size} bytes")
    if size >= 1 << 20:
        sys.exit(f"{path} is {size} bytes; fixtures must stay under 1 MB")


def main():
    torch.manual_seed(0)
    os.makedirs(OUT, exist_ok=True)
    export("gpt_like", Gpt(GPT), torch.zeros(2, 16, dtype=torch.long), [0, 1])
    export("llama_like", Llama(LLAMA), torch.zeros(2, 16, dtype=torch.long), [0, 1])
    export("small_cnn", Cnn(CNN), torch.zeros(2, 3, CNN["image"], CNN["image"]), [0])


if __name__ == "__main__":
    main()
