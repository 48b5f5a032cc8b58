#!/usr/bin/python3
"""Writes evil_names.onnx: one node of an unsupported op type whose name carries a newline, a
right-to-left override, an escape sequence and a NUL, so the error quoting it must escape them.
Encodes the protobuf by hand (Debian's python3-onnx is not needed); the output is committed."""
import os
import struct


def varint(n):
    out = b""
    while True:
        byte, n = n & 0x7F, n >> 7
        out += struct.pack("B", byte | (0x80 if n else 0))
        if not n:
            return out


def field(number, payload):  # a length-delimited field
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def number(number_, value):  # a varint field
    return varint(number_ << 3) + varint(value)


def value_info(name):  # float tensor of shape [2]
    dim = field(1, number(1, 2))
    tensor_type = number(1, 1) + field(2, dim)
    return field(1, name.encode()) + field(2, field(1, tensor_type))


def main():
    node = (field(1, b"x") + field(2, b"y") +
            field(3, "evil\nname\u202e\x1b[2J\x00cut".encode()) + field(4, b"Frobnicate"))
    graph = field(1, node) + field(2, b"g") + field(11, value_info("x")) + field(12, value_info("y"))
    model = number(1, 7) + field(7, graph) + field(8, field(1, b"") + number(2, 13))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "evil_names.onnx")
    with open(out, "wb") as f:
        f.write(model)


if __name__ == "__main__":
    main()
