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
    model("unsupported", [helper.make_node("GridSample", ["x", "grid"], ["y"])],
          [tensor("x", [1, 2, 4, 4]), tensor("grid", [1, 3, 3, 2])], [tensor("y", [1, 2, 3, 3])],
          opset=16)
    new_converters()


def new_converters():
    """One seed per converter or pass added for today's models."""
    i64 = TensorProto.INT64
    model("topk_moe", [helper.make_node("Softmax", ["x"], ["p"], axis=-1),
                       helper.make_node("TopK", ["p", "k"], ["v", "idx"]),
                       helper.make_node("Gather", ["experts", "idx"], ["w"]),
                       helper.make_node("Einsum", ["x", "w"], ["y"], equation="se,sked->skd")],
          [tensor("x", [3, 4])], [tensor("y", [3, 2, 5])],
          [helper.make_tensor("k", i64, [1], [2]),
           helper.make_tensor("experts", TensorProto.FLOAT, [4, 4, 5], [0.1] * 80)])
    model("gather_scatter", [helper.make_node("GatherElements", ["x", "i"], ["g"], axis=1),
                             helper.make_node("Reshape", ["g", "s"], ["g2"]),
                             helper.make_node("ScatterND", ["c", "j", "g2"], ["y"])],
          [tensor("x", [2, 6]), tensor("i", [2, 3], i64), tensor("c", [4, 6]),
           tensor("j", [1, 1], i64)], [tensor("y", [4, 6])],
          [helper.make_tensor("s", i64, [2], [1, 6])])
    model("conv_transpose_resize",
          [helper.make_node("ConvTranspose", ["x", "w"], ["t"], strides=[2, 2], pads=[1, 1, 1, 1]),
           helper.make_node("Resize", ["t", "", "sc"], ["y"], mode="linear")],
          [tensor("x", [1, 2, 4, 4])], [tensor("y", [1, 3, 14, 14])],
          [helper.make_tensor("w", TensorProto.FLOAT, [2, 3, 3, 3], [0.1] * 54),
           helper.make_tensor("sc", TensorProto.FLOAT, [4], [1, 1, 2, 2])])
    model("lstm", [helper.make_node("LSTM", ["x", "w", "r", "b"], ["y", "yh"], hidden_size=3,
                                    direction="bidirectional")],
          [tensor("x", [4, 2, 5])], [tensor("y", [4, 2, 2, 3]), tensor("yh", [2, 2, 3])],
          [helper.make_tensor("w", TensorProto.FLOAT, [2, 12, 5], [0.1] * 120),
           helper.make_tensor("r", TensorProto.FLOAT, [2, 12, 3], [0.1] * 72),
           helper.make_tensor("b", TensorProto.FLOAT, [2, 24], [0.0] * 48)], opset=14)
    model("quantized", [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
                        helper.make_node("MatMulInteger", ["q", "w"], ["y"])],
          [tensor("x", [2, 4])], [tensor("y", [2, 3], TensorProto.INT32)],
          [helper.make_tensor("s", TensorProto.FLOAT, [], [0.1]),
           helper.make_tensor("z", TensorProto.INT8, [], [0]),
           helper.make_tensor("w", TensorProto.INT8, [4, 3], [1] * 12)])
    branch = lambda op: helper.make_graph([helper.make_node(op, ["x"], ["b"])], op, [],
                                          [tensor("b", [2, 3])])
    model("if_folded", [helper.make_node("Shape", ["x"], ["sh"]),
                        helper.make_node("Size", ["sh"], ["n"]),
                        helper.make_node("Equal", ["n", "two"], ["c"]),
                        helper.make_node("If", ["c"], ["y"], then_branch=branch("Relu"),
                                         else_branch=branch("Neg"))],
          [tensor("x", [2, 3])], [tensor("y", [2, 3])], [helper.make_tensor("two", i64, [], [2])])
    model("decode_kv_cache", [helper.make_node("Concat", ["past", "k"], ["present"], axis=2),
                              helper.make_node("Transpose", ["present"], ["present_t"],
                                               perm=[0, 1, 3, 2]),
                              helper.make_node("MatMul", ["q", "present_t"], ["s"])],
          [tensor("q", [1, 2, 1, 4]), tensor("k", [1, 2, 1, 4]), tensor("past", [1, 2, 3, 4])],
          [tensor("present", [1, 2, "total", 4]), tensor("s", [1, 2, 1, "total"])], opset=14)
    stacked_decode()
    model("layernorm_decomposed",
          [helper.make_node("ReduceMean", ["x"], ["m"], axes=[-1]),
           helper.make_node("Sub", ["x", "m"], ["d"]),
           helper.make_node("Pow", ["d", "two"], ["p"]),
           helper.make_node("ReduceMean", ["p"], ["v"], axes=[-1]),
           helper.make_node("Add", ["v", "eps"], ["ve"]),
           helper.make_node("Sqrt", ["ve"], ["sd"]),
           helper.make_node("Div", ["d", "sd"], ["n"]),
           helper.make_node("Mul", ["n", "g"], ["y0"]),
           helper.make_node("Add", ["y0", "b"], ["y"])],
          [tensor("x", [2, 8])], [tensor("y", [2, 8])],
          [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]),
           helper.make_tensor("eps", TensorProto.FLOAT, [], [1e-5]),
           helper.make_tensor("g", TensorProto.FLOAT, [8], [1.0 + i for i in range(8)]),
           helper.make_tensor("b", TensorProto.FLOAT, [8], [0.5 + i for i in range(8)])])
    model("movement", [helper.make_node("Tile", ["x", "r"], ["t"]),
                       helper.make_node("DepthToSpace", ["t", ], ["d"], blocksize=2),
                       helper.make_node("Pad", ["d", "pads"], ["p"], mode="reflect"),
                       helper.make_node("CumSum", ["p", "ax"], ["y"])],
          [tensor("x", [1, 4, 2, 2])], [tensor("y", [1, 2, 6, 6])],
          [helper.make_tensor("r", i64, [4], [1, 2, 1, 1]),
           helper.make_tensor("pads", i64, [8], [0, 0, 1, 1, 0, 0, 1, 1]),
           helper.make_tensor("ax", i64, [], [3])])
    # libonnx's ConvTranspose inference read a computed rank-1 weight's dims past their end.
    model("regress_conv_transpose_computed_weight",
          [helper.make_node("Shape", ["x"], ["s"]),
           helper.make_node("Cast", ["s"], ["w"], to=TensorProto.FLOAT),
           helper.make_node("ConvTranspose", ["x", "w"], ["y"])],
          [tensor("x", [1, 2, 4, 4])], [tensor("y", [1, 2, 4, 4])])
    # libonnx's STFT inference read a rank-1 signal's dims past their end.
    model("regress_stft_signal_rank", [helper.make_node("STFT", ["signal", "step", "window"], ["y"])],
          [tensor("signal", [16]), tensor("step", [], i64), tensor("window", [4])],
          [tensor("y", [1, 4, 3, 2])], opset=17)
    model("losses", [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["l", "lp"])],
          [tensor("x", [3, 5]), tensor("t", [3], i64)], [tensor("l", []), tensor("lp", [3, 5])])


def stacked_decode():
    """Keys and values stacked across two layers: keys sliced by Gather, values by Slice and
    Squeeze, each layer's present restacked by Unsqueeze and Concat."""
    i64 = TensorProto.INT64
    nodes, inits, outputs = [], [helper.make_tensor("ax0", i64, [1], [0])], []
    for l in range(2):
        inits += [helper.make_tensor(f"at{l}", i64, [], [l]),
                  helper.make_tensor(f"from{l}", i64, [1], [l]),
                  helper.make_tensor(f"to{l}", i64, [1], [l + 1])]
        nodes += [helper.make_node("Gather", ["past_k", f"at{l}"], [f"kp{l}"]),
                  helper.make_node("Concat", [f"kp{l}", f"k{l}"], [f"pk{l}"], axis=2),
                  helper.make_node("Unsqueeze", [f"pk{l}", "ax0"], [f"pku{l}"]),
                  helper.make_node("Slice", ["past_v", f"from{l}", f"to{l}", "ax0"], [f"vs{l}"]),
                  helper.make_node("Squeeze", [f"vs{l}", "ax0"], [f"vp{l}"]),
                  helper.make_node("Concat", [f"vp{l}", f"v{l}"], [f"pv{l}"], axis=2),
                  helper.make_node("Unsqueeze", [f"pv{l}", "ax0"], [f"pvu{l}"]),
                  helper.make_node("Transpose", [f"pk{l}"], [f"kt{l}"], perm=[0, 1, 3, 2]),
                  helper.make_node("MatMul", ["q", f"kt{l}"], [f"s{l}"]),
                  helper.make_node("MatMul", [f"s{l}", f"pv{l}"], [f"o{l}"])]
        outputs.append(tensor(f"o{l}", [1, 2, 1, 4]))
    nodes += [helper.make_node("Concat", ["pku0", "pku1"], ["present_k"], axis=0),
              helper.make_node("Concat", ["pvu0", "pvu1"], ["present_v"], axis=0)]
    new = [tensor(f"{kv}{l}", [1, 2, 1, 4]) for kv in "kv" for l in range(2)]
    model("decode_stacked_kv_cache", nodes,
          [tensor("q", [1, 2, 1, 4]), tensor("past_k", [2, 1, 2, 3, 4]),
           tensor("past_v", [2, 1, 2, 3, 4])] + new,
          outputs + [tensor("present_k", [2, 1, 2, 4, 4]), tensor("present_v", [2, 1, 2, 4, 4])],
          inits, opset=14)


if __name__ == "__main__":
    main()
