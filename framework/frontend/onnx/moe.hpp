// Mixture-of-experts blocks as PyTorch exports them, recognised and replaced by one node that
// imports as the zoo's MoE ops (frontend/zoo/decoder.cpp, Decoder::moe): the router, its top-k,
// each expert's dispatch and MLP over its expected rows, the shared experts, the weighted
// combine. Exports spell the routing out as data movement (a scatter of the gates, masks, a
// gather of expert outputs, NonZero and index_add) that either costs every expert on every token
// or has shapes computed from data; the replacement costs what the zoo's MoE costs.
//
// A block is found from its TopK and checked whole:
//   router   TopK (k constant, last axis) of a MatMul x · W_router (W an initializer [H, E]),
//            through any Softmax and Cast
//   block    every node reachable from the TopK up to the first value all its paths meet (the
//            block's output y), and every node those read that computes from x, initializers
//            or constants; none of them read anywhere else, and nothing outside reads them
//   experts  every other MatMul of the block has an initializer weight; a "down" projection is
//            one whose input computes from other projections (1: an MLP, 2: gated), the
//            activation the one its first (gate) projection feeds: Sigmoid (SiLU), Gelu or Relu
//   routing  an expert whose output goes straight into one Add is shared (sees every token);
//            the others are routed, exactly E of them, all of one width, each [H, F] in and
//            [F, H] out; the block holds no other initializer (a bias is not recognised)
// Forms this covers: every expert on every token masked by the scattered top-k gates, every
// expert's output stacked then gathered by the top-k indices, and Mixtral's loop over experts
// (one_hot masks, torch.where, index_add). A block that fails any check is left as it is.
//
// The fused node, domain tessera.fused, op type MixtureOfExperts: inputs x, W_router, each routed
// expert's weights in order (gate, up, down; up, down when not gated), then each shared expert's;
// attributes top_k, shared_experts, gated (0/1), activation (the zoo's name: silu, gelu,
// gelu_tanh, relu); output y. Its name is the block's common name prefix + "moe".
#pragma once

#include "framework/frontend/onnx/prepare.hpp"

namespace tessera::onnx_import {

inline constexpr const char* kMoeOpType = "MixtureOfExperts";

// Replaces every recognised block of the prepared graph.
void recognise_moe(PreparedModel& pm);

}  // namespace tessera::onnx_import
