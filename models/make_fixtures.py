#!/usr/bin/python3
"""Exports the small ONNX fixtures in models/fixtures/ with Debian's python3-torch.

Run by developers after changing a fixture (CI never runs torch):

    apt-get install python3-torch python3-onnx
    /usr/bin/python3 models/make_fixtures.py

Besides the .onnx files it writes models/fixtures/reference.json: per fixture the opset, the
dimensions to bind, the module's own parameter count (parameters + buffers, and what a
BatchNorm-folding export keeps), and its multiply-accumulate FLOPs counted by forward hooks on
the module while it runs the exported example: 2 x MACs of every nn.Linear, nn.Conv2d,
nn.ConvTranspose2d, nn.LSTM, and of the MatMul/Einsum modules below that the attention and MoE
contractions go through. tests/unit/frontend/onnx_fixtures_test.cpp checks the importer against
them. Keep each file under 2 MB.
"""
import json
import math
import os
import sys

import torch
from torch import nn
from torch.nn import functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
OPSET = 17
MAX_BYTES = 2 << 20

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
        self.scores, self.mix = MatMul(), MatMul()

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
        att = torch.softmax(self.scores(q, k.transpose(-1, -2)) / math.sqrt(self.hd), dim=-1)
        x = x + self.o(self.mix(att, v).transpose(1, 2).reshape(b, s, -1))
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


# ---- contractions the FLOP hooks see -----------------------------------------------------------


class MatMul(nn.Module):
    """a @ b as a module, so the FLOP hooks count attention's contractions."""

    def forward(self, a, b):
        return a @ b


class Einsum(nn.Module):
    def __init__(self, equation):
        super().__init__()
        self.equation = equation

    def forward(self, *operands):
        return torch.einsum(self.equation, *operands)


def einsum_macs(equation, operands):
    lhs = equation.split("->")[0].split(",")
    extent = {}
    for term, t in zip(lhs, operands):
        for letter, n in zip(term, t.shape):
            extent[letter] = max(extent.get(letter, 1), n)
    return math.prod(extent.values())


def macs(module, inputs, output):
    """Multiply-accumulates of one call of a leaf contraction module."""
    if isinstance(module, nn.Linear):
        return output.numel() * module.in_features
    if isinstance(module, nn.Conv2d):
        return output.numel() * (module.in_channels // module.groups) * math.prod(module.kernel_size)
    if isinstance(module, nn.ConvTranspose2d):
        return inputs[0].numel() * (module.out_channels // module.groups) * math.prod(
            module.kernel_size)
    if isinstance(module, nn.LSTM):
        steps, batch = inputs[0].shape[0], inputs[0].shape[1]
        h = module.hidden_size
        return steps * batch * 4 * h * (module.input_size + h)
    if isinstance(module, nn.MultiheadAttention):  # its projections are not called as modules
        batch, seq, e = inputs[0].shape
        return batch * seq * 4 * e * e + 2 * batch * seq * seq * e
    if isinstance(module, MatMul):
        return output.numel() * inputs[0].shape[-1]
    if isinstance(module, Einsum):
        return einsum_macs(module.equation, inputs)
    return 0


def mac_flops(model, example):
    total = [0]
    hooks = [m.register_forward_hook(lambda m, i, o: total.__setitem__(0, total[0] + macs(m, i, o)))
             for m in model.modules()]
    with torch.no_grad():
        model(*example)
    for h in hooks:
        h.remove()
    return 2 * total[0]


def count(module):
    params = sum(p.numel() for p in module.parameters())
    buffers = sum(b.numel() for n, b in module.named_buffers() if "num_batches" not in n)
    # An eval-mode export folds each BatchNorm into the convolution defined before it: its scale,
    # shift and running statistics (4C) go, and a convolution without a bias gains one of C.
    exported, conv = params + buffers, None
    for m in module.modules():
        if isinstance(m, nn.Conv2d):
            conv = m
        if isinstance(m, nn.BatchNorm2d):
            exported -= 4 * m.num_features - (m.num_features if conv.bias is None else 0)
    return params, buffers, exported


REFERENCE = {}


def export(name, model, example, input_names, output_names, dynamic, dims, opset=OPSET, note=""):
    """Exports `model` on `example`; `dynamic` maps input names to {axis: symbol}; `dims` are the
    --dim bindings that reproduce the example's shapes."""
    # Distinct values everywhere: the exporter stores equal initializers (fresh LayerNorm weights
    # are all ones) only once, which would hide parameters from the importer's weight count.
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.02)
    model.eval()
    path = os.path.join(OUT, name + ".onnx")
    torch.onnx.export(model, tuple(example), path, opset_version=opset, input_names=input_names,
                      output_names=output_names, dynamic_axes=dynamic, do_constant_folding=True)
    params, buffers, exported = count(model)
    size = os.path.getsize(path)
    flops = mac_flops(model, example)
    REFERENCE[name] = {"opset": opset, "dims": dims, "parameters": params, "buffers": buffers,
                       "exported_parameters": exported, "mac_flops": flops, "bytes": size}
    if note:
        REFERENCE[name]["note"] = note
    print(f"{name}: opset {opset}, {params} parameters, {buffers} buffer elements, "
          f"{flops} MAC FLOPs, {size} bytes")
    if size >= MAX_BYTES:
        sys.exit(f"{path} is {size} bytes; fixtures must stay under 2 MB")


# ---- decoders with a KV cache ---------------------------------------------------------------------

# Llama-style decode step: grouped-query attention (each K/V head repeated for its query heads, as
# Llama-2 70B, Mistral and Llama-3 do), rotary embeddings at the past length, a causal mask,
# RMSNorm, SwiGLU, and past_key_values -> present as Hugging Face exports them.
LLAMA_KV = dict(vocab=256, hidden=64, heads=4, kv_heads=2, ffn=172, layers=2, max_pos=128)
# Mistral-style prefill: the same block with a sliding-window causal mask.
MISTRAL = dict(vocab=256, hidden=64, heads=4, kv_heads=1, ffn=128, layers=2, max_pos=64, window=8)
# The llama_gqa fixture: GQA by repeat_interleave, every input static, opset 14 (the rotary table
# is as long as the sequence, so the exporter's folding of its slice keeps every row).
LLAMA_GQA = dict(vocab=256, hidden=64, heads=4, kv_heads=2, ffn=172, layers=1, max_pos=16,
                 interleave=True)
# GPT-2 decode step: learned positions at the past length, LayerNorm, fused QKV, tanh GELU.
GPT2 = dict(vocab=256, hidden=64, heads=4, ffn=256, layers=2, max_pos=128)


def causal_mask(new, total, window=None):
    """[new, total] additive mask: query i (at position total-new+i) sees keys up to itself, and
    with a window only the last `window` of them."""
    full = torch.full((new, total), float("-inf"))
    mask = torch.triu(full, diagonal=total - new + 1)
    if window is not None:
        mask = mask + torch.tril(full, diagonal=total - new - window)
    return mask


class Attention(nn.Module):
    def __init__(self, hidden, heads, kv_heads, bias=False, interleave=False):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, hidden // heads
        self.interleave = interleave
        self.q = nn.Linear(hidden, heads * self.hd, bias=bias)
        self.k = nn.Linear(hidden, kv_heads * self.hd, bias=bias)
        self.v = nn.Linear(hidden, kv_heads * self.hd, bias=bias)
        self.o = nn.Linear(heads * self.hd, hidden, bias=bias)
        self.scores, self.mix = MatMul(), MatMul()

    def split(self, x, heads):
        b, s, _ = x.shape
        return x.view(b, s, heads, self.hd).transpose(1, 2)

    def forward(self, x, mask, rope=None, past=None):
        b, s, _ = x.shape
        q, k, v = self.split(self.q(x), self.heads), self.split(self.k(x), self.kv_heads), \
            self.split(self.v(x), self.kv_heads)
        if rope is not None:
            cos, sin = rope
            q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        if past is not None:
            k, v = torch.cat((past[0], k), dim=2), torch.cat((past[1], v), dim=2)
        present = (k, v)
        # Hugging Face's repeat_kv: each K/V head serves heads/kv_heads query heads, what
        # repeat_interleave(dim=1) computes. torch 1.13 exports repeat_interleave correctly only
        # for static shapes (with dynamic axes its Reshape copies the wrong dimension; for one
        # K/V head it is a Loop over sequences).
        rep = self.heads // self.kv_heads
        if rep > 1 and self.interleave:
            k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        elif rep > 1:
            k, v = (t[:, :, None].expand(b, self.kv_heads, rep, t.shape[2], self.hd)
                    .reshape(b, self.heads, t.shape[2], self.hd) for t in (k, v))
        att = torch.softmax(self.scores(q, k.transpose(-1, -2)) / math.sqrt(self.hd) + mask, -1)
        return self.o(self.mix(att, v).transpose(1, 2).reshape(b, s, -1)), present


class RopeBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        h = d["hidden"]
        self.attn_norm, self.ffn_norm = RmsNorm(h), RmsNorm(h)
        self.attn = Attention(h, d["heads"], d["kv_heads"], interleave=d.get("interleave", False))
        self.gate = nn.Linear(h, d["ffn"], bias=False)
        self.up = nn.Linear(h, d["ffn"], bias=False)
        self.down = nn.Linear(d["ffn"], h, bias=False)

    def forward(self, x, mask, rope, past=None):
        a, present = self.attn(self.attn_norm(x), mask, rope, past)
        x = x + a
        h = self.ffn_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h)), present


class RopeDecoder(nn.Module):
    def __init__(self, d, window=None):
        super().__init__()
        hd = d["hidden"] // d["heads"]
        self.window = window
        self.embed = nn.Embedding(d["vocab"], d["hidden"])
        self.blocks = nn.ModuleList(RopeBlock(d) for _ in range(d["layers"]))
        self.norm = RmsNorm(d["hidden"])
        self.head = nn.Linear(d["hidden"], d["vocab"], bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.outer(torch.arange(d["max_pos"]).float(), inv)
        self.register_buffer("cos", torch.cat((ang, ang), -1).cos())
        self.register_buffer("sin", torch.cat((ang, ang), -1).sin())

    def forward(self, tokens, *past):
        s = tokens.shape[1]
        start = past[0].shape[2] if past else 0
        rope = (self.cos[start:start + s], self.sin[start:start + s])
        mask = causal_mask(s, start + s, self.window)
        x = self.embed(tokens)
        present = []
        for i, b in enumerate(self.blocks):
            x, kv = b(x, mask, rope, (past[2 * i], past[2 * i + 1]) if past else None)
            present += kv
        return (self.head(self.norm(x)), *present) if past else self.head(self.norm(x))


class Gpt2Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        h = d["hidden"]
        self.heads, self.hd = d["heads"], h // d["heads"]
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.qkv = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.fc, self.out = nn.Linear(h, d["ffn"]), nn.Linear(d["ffn"], h)
        self.scores, self.mix = MatMul(), MatMul()

    def forward(self, x, mask, past_k, past_v):
        b, s, h = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        q, k, v = (t.view(b, s, self.heads, self.hd).transpose(1, 2) for t in (q, k, v))
        k, v = torch.cat((past_k, k), dim=2), torch.cat((past_v, v), dim=2)
        att = torch.softmax(self.scores(q, k.transpose(-1, -2)) / math.sqrt(self.hd) + mask, -1)
        x = x + self.proj(self.mix(att, v).transpose(1, 2).reshape(b, s, h))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh")), k, v


class Gpt2(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.wte = nn.Embedding(d["vocab"], d["hidden"])
        self.wpe = nn.Embedding(d["max_pos"], d["hidden"])
        self.blocks = nn.ModuleList(Gpt2Block(d) for _ in range(d["layers"]))
        self.ln_f = nn.LayerNorm(d["hidden"])
        self.head = nn.Linear(d["hidden"], d["vocab"], bias=False)

    def forward(self, tokens, *past):
        s, start = tokens.shape[1], past[0].shape[2]
        x = self.wte(tokens) + self.wpe(torch.arange(start, start + s))
        mask = causal_mask(s, start + s)
        present = []
        for i, b in enumerate(self.blocks):
            x, k, v = b(x, mask, past[2 * i], past[2 * i + 1])
            present += [k, v]
        return (self.head(self.ln_f(x)), *present)


def decode_export(name, model, d, heads_kv, past_len, opset):
    layers, hd = d["layers"], d["hidden"] // d["heads"]
    past = []
    names_in, names_out, dynamic = ["input_ids"], ["logits"], {"input_ids": {0: "batch"}}
    for i in range(layers):
        for kind in ("key", "value"):
            past.append(torch.zeros(1, heads_kv, past_len, hd))
            names_in.append(f"past_key_values.{i}.{kind}")
            names_out.append(f"present.{i}.{kind}")
            dynamic[names_in[-1]] = {0: "batch", 2: "past_sequence_length"}
    example = [torch.zeros(1, 1, dtype=torch.long)] + past
    export(name, model, example, names_in, names_out, dynamic, {"batch": 1}, opset)
    REFERENCE[name].update(past_length=past_len, kv_caches=2 * layers,
                           kv_cache_elements=2 * layers * heads_kv * (past_len + 1) * hd)


# ---- encoders, CNNs, MoE, recurrence ------------------------------------------------------------

# ViT: 4x4 patches of a 32x32 image, a class token, learned positions, pre-LN blocks.
VIT = dict(image=32, patch=4, hidden=64, heads=4, ffn=128, layers=2, classes=10)
# ResNet-50-like: 7x7 stem, max pool, bottleneck stages (1x1, 3x3, 1x1, x4 expansion).
RESNET = dict(image=64, width=16, blocks=(2, 1, 1), classes=10)
# UNet-like: two levels down (conv, max pool), a GroupNorm bottleneck, up by ConvTranspose and by
# Resize, skip concats.
UNET = dict(image=32, channels=8)
# MoE block: top-2 routing over 4 SwiGLU experts, expert weights gathered per token.
MOE = dict(hidden=64, ffn=96, experts=4, top_k=2, seq=16)
# LSTM language model: embedding, one LSTM layer, a linear head.
LSTM = dict(vocab=128, hidden=64, seq=16)


class VitBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        h = d["hidden"]
        self.ln1, self.ln2 = nn.LayerNorm(h), nn.LayerNorm(h)
        self.attn = Attention(h, d["heads"], d["heads"], bias=True)
        self.fc1, self.fc2 = nn.Linear(h, d["ffn"]), nn.Linear(d["ffn"], h)

    def forward(self, x):
        x = x + self.attn(self.ln1(x), 0.0)[0]
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Vit(nn.Module):
    def __init__(self, d):
        super().__init__()
        n = (d["image"] // d["patch"]) ** 2
        self.patch = nn.Conv2d(3, d["hidden"], d["patch"], stride=d["patch"])
        self.cls = nn.Parameter(torch.zeros(1, 1, d["hidden"]))
        self.pos = nn.Parameter(torch.zeros(1, n + 1, d["hidden"]))
        self.blocks = nn.ModuleList(VitBlock(d) for _ in range(d["layers"]))
        self.ln = nn.LayerNorm(d["hidden"])
        self.head = nn.Linear(d["hidden"], d["classes"])

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat((self.cls.expand(x.shape[0], -1, -1), x), dim=1) + self.pos
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x)[:, 0])


class Bottleneck(nn.Module):
    def __init__(self, cin, width, stride):
        super().__init__()
        cout = 4 * width
        self.c1, self.b1 = nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width)
        self.c2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(width)
        self.c3, self.b3 = nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        y = torch.relu(self.b2(self.c2(y)))
        y = self.b3(self.c3(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNet(nn.Module):
    def __init__(self, d):
        super().__init__()
        w = d["width"]
        self.stem = nn.Sequential(nn.Conv2d(3, w, 7, stride=2, padding=3, bias=False),
                                  nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(3, 2, padding=1))
        layers, cin = [], w
        for stage, n in enumerate(d["blocks"]):
            width = w * 2 ** stage
            for i in range(n):
                layers.append(Bottleneck(cin, width, 2 if i == 0 and stage > 0 else 1))
                cin = 4 * width
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, d["classes"])

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU())


class UNet(nn.Module):
    def __init__(self, d):
        super().__init__()
        c = d["channels"]
        self.enc1, self.enc2 = conv_block(3, c), conv_block(c, 2 * c)
        self.mid = nn.Sequential(nn.Conv2d(2 * c, 4 * c, 3, padding=1), nn.GroupNorm(4, 4 * c),
                                 nn.SiLU())
        self.up2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
        self.dec2 = conv_block(4 * c, 2 * c)
        self.reduce1 = nn.Conv2d(2 * c, c, 1)
        self.dec1 = conv_block(2 * c, c)
        self.out = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat((self.up2(m), e2), dim=1))
        up1 = F.interpolate(self.reduce1(d2), scale_factor=2, mode="bilinear", align_corners=False)
        return self.out(self.dec1(torch.cat((up1, e1), dim=1)))


class Moe(nn.Module):
    def __init__(self, d):
        super().__init__()
        h, f, e = d["hidden"], d["ffn"], d["experts"]
        self.k = d["top_k"]
        self.norm = RmsNorm(h)
        self.router = nn.Linear(h, e, bias=False)
        self.gate = nn.Parameter(torch.zeros(e, h, f))
        self.up = nn.Parameter(torch.zeros(e, h, f))
        self.down = nn.Parameter(torch.zeros(e, f, h))
        self.gate_mm, self.up_mm = Einsum("bsh,bskhf->bskf"), Einsum("bsh,bskhf->bskf")
        self.down_mm = Einsum("bskf,bskfh->bskh")

    def forward(self, x):
        h = self.norm(x)
        weights, experts = torch.topk(torch.softmax(self.router(h), -1), self.k, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        g = self.gate_mm(h, self.gate[experts])
        u = self.up_mm(h, self.up[experts])
        y = self.down_mm(F.silu(g) * u, self.down[experts])
        return x + (y * weights.unsqueeze(-1)).sum(2)


class LstmLm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.embed = nn.Embedding(d["vocab"], d["hidden"])
        self.lstm = nn.LSTM(d["hidden"], d["hidden"])
        self.head = nn.Linear(d["hidden"], d["vocab"])

    def forward(self, tokens, h0, c0):
        y, _ = self.lstm(self.embed(tokens), (h0, c0))
        return self.head(y)


def main():
    torch.manual_seed(0)
    os.makedirs(OUT, exist_ok=True)
    bs = {0: "batch", 1: "seq"}
    export("gpt_like", Gpt(GPT), [torch.zeros(2, 16, dtype=torch.long)], ["input"], ["output"],
           {"input": bs}, {"batch": 2, "seq": 16})
    export("llama_like", Llama(LLAMA), [torch.zeros(2, 16, dtype=torch.long)], ["input"],
           ["output"], {"input": bs}, {"batch": 2, "seq": 16})
    export("small_cnn", Cnn(CNN), [torch.zeros(2, 3, CNN["image"], CNN["image"])], ["input"],
           ["output"], {"input": {0: "batch"}}, {"batch": 2})
    decode_export("llama_decode", RopeDecoder(LLAMA_KV), LLAMA_KV, LLAMA_KV["kv_heads"], 31, 14)
    export("mistral_like", RopeDecoder(MISTRAL, MISTRAL["window"]),
           [torch.zeros(1, 16, dtype=torch.long)], ["input_ids"], ["logits"],
           {"input_ids": {1: "seq"}}, {"seq": 16}, 15)
    export("llama_gqa", RopeDecoder(LLAMA_GQA), [torch.zeros(1, 16, dtype=torch.long)],
           ["input_ids"], ["logits"], {}, {}, 14)
    decode_export("gpt2_decode", Gpt2(GPT2), GPT2, GPT2["heads"], 31, 16)
    export("vit_like", Vit(VIT), [torch.zeros(2, 3, VIT["image"], VIT["image"])], ["pixels"],
           ["logits"], {"pixels": {0: "batch"}}, {"batch": 2}, 17)
    export("resnet_like", ResNet(RESNET), [torch.zeros(1, 3, RESNET["image"], RESNET["image"])],
           ["pixels"], ["logits"], {}, {}, 14)
    export("unet_like", UNet(UNET), [torch.zeros(1, 3, UNET["image"], UNET["image"])], ["image"],
           ["mask"], {}, {}, 16)
    export("moe_block", Moe(MOE), [torch.zeros(1, MOE["seq"], MOE["hidden"])], ["hidden"],
           ["out"], {}, {}, 15)
    h = torch.zeros(1, 2, LSTM["hidden"])
    export("lstm_lm", LstmLm(LSTM), [torch.zeros(LSTM["seq"], 2, dtype=torch.long), h, h],
           ["tokens", "h0", "c0"], ["logits"], {}, {}, 14)
    with open(os.path.join(OUT, "reference.json"), "w") as f:
        json.dump(REFERENCE, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
