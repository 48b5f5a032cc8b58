// One converter per ONNX op type: it reads the node through NodeContext and adds Einsum ops (or a
// view). Grouped by file: contractions, windows and normalisations (convert_compute.cpp);
// elementwise and activations (convert_elementwise.cpp); data movement and views
// (convert_movement.cpp); gathers, scatters, TopK and losses (convert_indexing.cpp); Einsum
// (convert_einsum.cpp); Resize (convert_resize.cpp); LSTM, GRU, RNN (convert_recurrent.cpp);
// a recognised mixture of experts (convert_moe.cpp).
#pragma once

#include <map>
#include <string>

#include "framework/frontend/onnx/context.hpp"

namespace tessera::onnx_import {

using Converter = void (*)(NodeContext&);
using ConverterTable = std::map<std::string, Converter>;

void add_compute_converters(ConverterTable& table);
void add_elementwise_converters(ConverterTable& table);
void add_movement_converters(ConverterTable& table);
void add_indexing_converters(ConverterTable& table);
void add_einsum_converter(ConverterTable& table);
void add_resize_converters(ConverterTable& table);
void add_recurrent_converters(ConverterTable& table);
void add_moe_converter(ConverterTable& table);

// nullptr for an op type no converter handles.
Converter find_converter(const std::string& op_type);
// "Add, AveragePool, ..." for messages and docs.
std::string supported_op_types();

// An operand reading `tensor` of `shape` broadcast (numpy rules) to ranks named by `out_ranks`.
ir::Operand broadcast_operand(const std::string& tensor, const Dims& shape,
                              const std::vector<ir::Rank>& out_ranks);

}  // namespace tessera::onnx_import
