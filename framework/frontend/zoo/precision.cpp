#include "framework/frontend/zoo/precision.hpp"

#include <tessera/plugin_abi.h>

#include <algorithm>
#include <array>
#include <utility>

#include "framework/common/user_text.hpp"
#include "framework/common/yaml_reader.hpp"

namespace tessera::zoo {

namespace {

// tensor group -> the projection names (the component before .weight/.bias) it holds.
const std::array<std::pair<const char*, std::vector<const char*>>, 7> kTensorGroups = {{
    {"attention.wqkv", {"q_proj", "k_proj", "v_proj", "qkv"}},
    {"attention.wo", {"o_proj"}},
    {"mlp.ff1", {"gate_proj"}},
    {"mlp.ff3", {"up_proj"}},
    {"mlp.ff2", {"down_proj"}},
    {"lm_head", {"lm_head"}},
    {"embedding", {"embed", "pos_embed"}},
}};
constexpr const char* kKvCache = "kv_cache";
constexpr const char* kActivations = "activations";

// op group (its decode and prefill spellings) -> the op names (last component) it holds.
struct OpGroup {
  const char* decode;
  const char* prefill;
  std::vector<const char*> ops;
};
const std::array<OpGroup, 6> kOpGroups = {{
    {"li_ff1_3", "li_ff1_3", {"gate_proj", "up_proj"}},
    {"li_ff2", "li_ff2", {"down_proj"}},
    {"li_qkv_decode", "li_qkv_prefill", {"q_proj", "k_proj", "v_proj"}},
    {"li_o_decode", "li_o_prefill", {"o_proj"}},
    {"sdpa_decode", "sdpa_prefill", {"scores", "attn_v"}},
    {"lm_head", "lm_head", {"lm_head"}},
}};

constexpr std::array<const char*, 4> kFidelities = {"lofi", "hifi2", "hifi3", "hifi4"};

std::string last_component(const std::string& name) {
  size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

bool is_op_group(const std::string& key) {
  for (const auto& g : kOpGroups)
    if (key == g.decode || key == g.prefill) return true;
  return false;
}

bool is_tensor_group(const std::string& key) {
  for (const auto& [group, names] : kTensorGroups)
    if (key == group) return true;
  return key == kKvCache || key == kActivations;
}

// Activations are a compute type; the other groups may also be stored in a block type.
ir::DType parse_tensor_dtype(const YamlNode& value, bool compute_type) {
  static const std::vector<ir::DType> kComputeTypes = {ir::DType::fp32, ir::DType::fp16,
                                                       ir::DType::bf16, ir::DType::fp8};
  std::vector<ir::DType> allowed = kComputeTypes;
  if (!compute_type)
    allowed.insert(allowed.end(), {ir::DType::bfp8, ir::DType::bfp4, ir::DType::bfp2});
  std::string text = value.as_string();
  auto dtype = ir::parse_dtype(text);
  if (dtype && std::find(allowed.begin(), allowed.end(), *dtype) != allowed.end()) return *dtype;
  std::string names;
  for (ir::DType d : allowed) names += (names.empty() ? "" : ", ") + std::string(ir::to_string(d));
  throw value.fail("expected one of " + names + ", got " + in_quotes(text));
}

uint32_t parse_fidelity(const YamlNode& value) {
  std::string text = value.as_string();
  for (size_t i = 0; i < kFidelities.size(); ++i)
    if (text == kFidelities[i]) return static_cast<uint32_t>(i + 1);
  throw value.fail("expected one of lofi, hifi2, hifi3, hifi4, got " + in_quotes(text));
}

Precision parse(const YamlNode& root) {
  root.only_keys({"format", "tensors", "fidelity"});
  std::string format = root.child("format").as_string();
  if (format != kPrecisionFormat)
    throw root.child("format").fail("expected " + std::string(kPrecisionFormat) + ", got " +
                                    in_quotes(format));
  Precision p;
  if (root.has("tensors"))
    for (const auto& [key, value] : root.child("tensors").entries()) {
      if (!is_tensor_group(key))
        throw value.fail("is not a tensor group; expected one of " + tensor_group_names());
      ir::DType dtype = parse_tensor_dtype(value, key == kActivations);
      if (key == kActivations)
        p.activations = dtype;
      else
        p.tensors[key] = dtype;
    }
  if (root.has("fidelity"))
    for (const auto& [key, value] : root.child("fidelity").entries()) {
      if (!is_op_group(key))
        throw value.fail("is not an op group; expected one of " + op_group_names());
      p.fidelity[key] = parse_fidelity(value);
    }
  return p;
}

}  // namespace

Result<Precision> parse_precision_text(const std::string& text, const std::string& file) {
  auto root = YamlNode::load_string(text, file);
  if (!root) return root.error();
  try {
    return parse(*root);
  } catch (const Failure& f) {
    return f.error();
  }
}

Result<Precision> parse_precision_file(const std::string& file) {
  auto root = YamlNode::load_file(file);
  if (!root) return root.error();
  try {
    return parse(*root);
  } catch (const Failure& f) {
    return f.error();
  }
}

std::string precision_yaml(const Precision& p) {
  std::string out = "format: " + std::string(kPrecisionFormat) + "\n";
  if (!p.tensors.empty() || p.activations) out += "tensors:\n";
  for (const auto& [group, dtype] : p.tensors)
    out += "  " + group + ": " + ir::to_string(dtype) + "\n";
  if (p.activations) out += std::string("  activations: ") + ir::to_string(*p.activations) + "\n";
  if (!p.fidelity.empty()) out += "fidelity:\n";
  for (const auto& [group, f] : p.fidelity) out += "  " + group + ": " + fidelity_name(f) + "\n";
  return out;
}

std::string weight_group(const std::string& tensor_name) {
  std::string last = last_component(tensor_name);
  if (last != "weight" && last != "bias") return "";
  std::string stem = last_component(tensor_name.substr(0, tensor_name.size() - last.size() - 1));
  for (const auto& [group, names] : kTensorGroups)
    for (const char* n : names)
      if (stem == n) return group;
  return "";
}

std::string op_group(const std::string& op_name, bool decode) {
  std::string last = last_component(op_name);
  for (const auto& g : kOpGroups)
    for (const char* n : g.ops)
      if (last == n) return decode ? g.decode : g.prefill;
  return "";
}

std::string tensor_group_names() {
  std::string out;
  for (const auto& [group, names] : kTensorGroups) out += std::string(group) + ", ";
  return out + kKvCache + ", " + kActivations;
}

std::string op_group_names() {
  std::string out;
  for (const auto& g : kOpGroups) {
    out += (out.empty() ? "" : ", ") + std::string(g.decode);
    if (std::string(g.decode) != g.prefill) out += ", " + std::string(g.prefill);
  }
  return out;
}

const char* fidelity_name(uint32_t fidelity) {
  return fidelity >= 1 && fidelity <= kFidelities.size() ? kFidelities[fidelity - 1] : "default";
}

}  // namespace tessera::zoo
