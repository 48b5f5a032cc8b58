#!/usr/bin/python3
"""Writes small hand-made ONNX seeds for fuzz_onnx (needs Debian's python3-onnx; run by developers,
the outputs are committed). Each seed exercises one importer path."""
import os

from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "onnx")


def model(name, nodes, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


def tensor(name, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def main():
    os.makedirs(OUT, exist_ok=True)
    model("matmul_bias", [helper.make_node("MatMul", ["x", "w"], ["h"]),
                          helper.make_node("Add", ["h", "b"], ["y"])],
          [tensor("x", [2, 4])], [tensor("y", [2, 3])],
          [helper.make_tensor("w", TensorProto.FLOAT, [4, 3], [0.5] * 12),
           helper.make_tensor("b", TensorProto.FLOAT, [3], [1.0] * 3)])
    model("reshape_shape", [helper.make_node("Shape", ["x"], ["s"]),
                            helper.make_node("Reshape", ["x", "s"], ["y"])],
          [tensor("x", ["batch", 6])], [tensor("y", ["batch", 6])])
    model("conv_group", [helper.make_node("Conv", ["x", "w"], ["y"], group=2, strides=[2, 2],
                                          pads=[1, 1, 1, 1], dilations=[1, 1])],
          [tensor("x", [1, 4, 8, 8])], [tensor("y", [1, 4, 4, 4])],
          [helper.make_tensor("w", TensorProto.FLOAT, [4, 2, 3, 3], [0.1] * 72)])
    model("gather_slice", [helper.make_node("Gather", ["t", "i"], ["g"]),
                           helper.make_node("Slice", ["g", "st", "en"], ["y"])],
          [tensor("i", [2, 3], TensorProto.INT64)], [tensor("y", [2, 3, 2])],
          [helper.make_tensor("t", TensorProto.FLOAT, [10, 4], [0.0] * 40),
           helper.make_tensor("st", TensorProto.INT64, [1], [1]),
           helper.make_tensor("en", TensorProto.INT64, [1], [3])])
    short = helper.make_tensor("s", TensorProto.INT64, [2], [1, 6])
    short.raw_data = b"\x01\x00"  # libonnx would read 16 bytes from 2
    del short.int64_data[:]
    model("regress_short_raw_data", [helper.make_node("Reshape", ["x", "s"], ["y"])],
          [tensor("x", [2, 3])], [tensor("y", [1, 6])], [short])
    model("unsupported", [helper.make_node("TopK", ["x", "k"], ["v", "idx"])],
          [tensor("x", [3, 5])], [tensor("v", [3, 2]), tensor("idx", [3, 2], TensorProto.INT64)],
          [helper.make_tensor("k", TensorProto.INT64, [1], [2])])


if __name__ == "__main__":
    main()
