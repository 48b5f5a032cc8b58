#include "framework/frontend/onnx/einsum_equation.hpp"

#include <algorithm>
#include <cctype>

namespace tessera::onnx_import {

namespace {

constexpr size_t kMaxEllipsis = 10;

struct Terms {
  std::vector<std::string> inputs;
  std::string output;
  bool explicit_output = false;
};

Terms split_terms(std::string eq) {
  std::erase(eq, ' ');
  Terms t;
  size_t arrow = eq.find("->");
  t.inputs.emplace_back();
  for (char c : eq.substr(0, arrow)) {
    if (c == ',')
      t.inputs.emplace_back();
    else
      t.inputs.back() += c;
  }
  if (arrow != std::string::npos) {
    t.output = eq.substr(arrow + 2);
    t.explicit_output = true;
  }
  return t;
}

bool valid_term(const std::string& term) {
  size_t dots = term.find("...");
  std::string rest =
      dots == std::string::npos ? term : term.substr(0, dots) + term.substr(dots + 3);
  return std::all_of(rest.begin(), rest.end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

// The term's letters with "..." replaced by the last `covered` of the `ellipsis` broadcast dims.
std::string expand(const std::string& term, size_t covered, size_t ellipsis) {
  size_t dots = term.find("...");
  if (dots == std::string::npos) return term;
  std::string dims;
  for (size_t i = ellipsis - covered; i < ellipsis; ++i) dims += static_cast<char>('0' + i);
  return term.substr(0, dots) + dims + term.substr(dots + 3);
}

std::string implicit_output(const Terms& t) {
  std::map<char, int> uses;
  bool ellipsis = false;
  for (const auto& term : t.inputs) {
    ellipsis = ellipsis || term.find("...") != std::string::npos;
    for (char c : term)
      if (std::isalpha(static_cast<unsigned char>(c))) ++uses[c];
  }
  std::string out = ellipsis ? "..." : "";
  for (const auto& [c, n] : uses)
    if (n == 1) out += c;
  return out;
}

}  // namespace

std::vector<int64_t> EinsumEquation::output_shape() const {
  std::vector<int64_t> shape;
  for (char c : output) shape.push_back(extents.at(c));
  return shape;
}

std::variant<EinsumEquation, std::string> parse_einsum(
    const std::string& equation, const std::vector<std::vector<int64_t>>& shapes) {
  Terms t = split_terms(equation);
  if (!t.explicit_output) t.output = implicit_output(t);
  if (t.inputs.size() != shapes.size())
    return "the equation has " + std::to_string(t.inputs.size()) + " terms for " +
           std::to_string(shapes.size()) + " inputs";
  size_t ellipsis = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!valid_term(t.inputs[i])) return "term '" + t.inputs[i] + "' is not letters and '...'";
    size_t named = t.inputs[i].size() - (t.inputs[i].find("...") != std::string::npos ? 3 : 0);
    bool dots = named != t.inputs[i].size();
    if (named > shapes[i].size() || (!dots && named != shapes[i].size()))
      return "term '" + t.inputs[i] + "' does not fit input " + std::to_string(i) + " of rank " +
             std::to_string(shapes[i].size());
    if (dots) ellipsis = std::max(ellipsis, shapes[i].size() - named);
  }
  if (ellipsis > kMaxEllipsis || !valid_term(t.output))
    return "the ellipsis covers too many dimensions, or the output is not letters and '...'";
  EinsumEquation eq;
  for (size_t i = 0; i < shapes.size(); ++i) {
    size_t named = t.inputs[i].size() - (t.inputs[i].find("...") != std::string::npos ? 3 : 0);
    eq.inputs.push_back(expand(t.inputs[i], shapes[i].size() - named, ellipsis));
    for (size_t d = 0; d < shapes[i].size(); ++d) {
      auto [it, fresh] = eq.extents.emplace(eq.inputs[i][d], shapes[i][d]);
      if (!fresh && it->second == 1) it->second = shapes[i][d];
      if (!fresh && shapes[i][d] != it->second && shapes[i][d] != 1)
        return std::string("letter '") + eq.inputs[i][d] + "' has different extents";
    }
  }
  eq.output = expand(t.output, ellipsis, ellipsis);
  for (char c : eq.output)
    if (!eq.extents.count(c)) return std::string("output letter '") + c + "' is in no input";
  return eq;
}

}  // namespace tessera::onnx_import
