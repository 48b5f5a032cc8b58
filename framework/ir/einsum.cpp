#include "framework/ir/einsum.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace tessera::ir {

namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Reads a decimal number at `pos`; false when there is none or it overflows.
bool read_number(std::string_view text, size_t& pos, int64_t& value) {
  size_t end = pos;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  if (end == pos) return false;
  auto [ptr, ec] = std::from_chars(text.data() + pos, text.data() + end, value);
  if (ec != std::errc()) return false;
  pos = end;
  return true;
}

Error bad_index(std::string_view text, const std::string& why) {
  return input_error("index expression '" + std::string(text) + "': " + why +
                     " (expected a rank, an affine sum like 2*p+r-1, a number, or $N)");
}

// One signed term of an affine expression: `[digits*]name` or `digits`.
bool read_term(std::string_view text, size_t& pos, int64_t sign, IndexExpr& out) {
  int64_t coeff = 1;
  bool has_number = read_number(text, pos, coeff);
  if (has_number && (pos >= text.size() || text[pos] != '*')) {
    out.offset += sign * coeff;
    return true;
  }
  if (has_number) ++pos;  // the '*'
  if (pos >= text.size() || !is_name_start(text[pos])) return false;
  size_t start = pos;
  while (pos < text.size() && is_name_char(text[pos])) ++pos;
  out.terms.push_back({sign * coeff, std::string(text.substr(start, pos - start))});
  return true;
}

}  // namespace

std::string IndexExpr::str() const {
  if (is_indirect()) return "$" + std::to_string(indirect);
  std::string out;
  for (const auto& t : terms) {
    if (!out.empty() || t.coeff < 0) out += t.coeff < 0 ? "-" : "+";
    int64_t c = t.coeff < 0 ? -t.coeff : t.coeff;
    if (c != 1) out += std::to_string(c) + "*";
    out += t.rank;
  }
  if (offset != 0 || out.empty()) {
    if (!out.empty() || offset < 0) out += offset < 0 ? "-" : "+";
    out += std::to_string(offset < 0 ? -offset : offset);
  }
  return out;
}

Result<IndexExpr> parse_index_expr(std::string_view text) {
  IndexExpr out;
  if (text.empty()) return bad_index(text, "empty");
  if (text[0] == '$') {
    size_t pos = 1;
    int64_t operand = 0;
    if (!read_number(text, pos, operand) || pos != text.size() || operand > 1000)
      return bad_index(text, "'$' must be followed by an input operand number");
    out.indirect = static_cast<int>(operand);
    return out;
  }
  size_t pos = 0;
  int64_t sign = 1;
  if (text[0] == '-') {
    sign = -1;
    pos = 1;
  }
  while (true) {
    if (!read_term(text, pos, sign, out)) return bad_index(text, "unexpected text");
    if (pos == text.size()) break;
    if (text[pos] != '+' && text[pos] != '-') return bad_index(text, "unexpected text");
    sign = text[pos] == '-' ? -1 : 1;
    ++pos;
  }
  for (size_t i = 0; i < out.terms.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (out.terms[i].rank == out.terms[j].rank)
        return bad_index(text, "rank '" + out.terms[i].rank + "' appears twice");
  return out;
}

std::string Operand::str() const {
  std::string out = tensor + "[";
  for (size_t i = 0; i < index.size(); ++i) out += (i ? "," : "") + index[i].str();
  return out + "]";
}

Result<Operand> parse_operand(std::string_view text) {
  size_t open = text.rfind('[');
  if (open == std::string_view::npos || open == 0 || text.back() != ']')
    return input_error("operand '" + std::string(text) +
                       "': expected TENSOR[index,...], e.g. x[m,k] or x[] for a scalar");
  Operand out;
  out.tensor = std::string(text.substr(0, open));
  std::string_view inner = text.substr(open + 1, text.size() - open - 2);
  size_t start = 0;
  while (!inner.empty() && start <= inner.size()) {
    size_t comma = inner.find(',', start);
    if (comma == std::string_view::npos) comma = inner.size();
    auto expr = parse_index_expr(inner.substr(start, comma - start));
    if (!expr) return input_error("operand '" + std::string(text) + "': " + expr.error().message);
    out.index.push_back(std::move(*expr));
    start = comma + 1;
  }
  return out;
}

const Rank* Einsum::find_rank(std::string_view name) const {
  for (const auto& r : ranks)
    if (r.name == name) return &r;
  return nullptr;
}

double Einsum::points() const {
  double p = 1;
  for (const auto& r : ranks) p *= static_cast<double>(r.extent);
  return p;
}

std::string Einsum::str() const {
  auto indices = [](const Operand& o) {
    std::string s = "[";
    for (size_t i = 0; i < o.index.size(); ++i) s += (i ? "," : "") + o.index[i].str();
    return s + "]";
  };
  std::string out = fn + "(";
  for (size_t i = 0; i < inputs.size(); ++i) out += (i ? "," : "") + indices(inputs[i]);
  return out + ")->" + indices(output);
}

std::string Einsum::ranks_str() const {
  std::string out;
  for (const auto& r : ranks)
    out += (out.empty() ? "" : " ") + r.name + "=" + std::to_string(r.extent);
  return out;
}

std::pair<int64_t, int64_t> affine_range(const Einsum& einsum, const IndexExpr& expr) {
  int64_t lo = expr.offset;
  int64_t hi = expr.offset;
  for (const auto& t : expr.terms) {
    const Rank* r = einsum.find_rank(t.rank);
    int64_t span = t.coeff * ((r ? r->extent : 1) - 1);
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi};
}

double footprint_elements(const Einsum& einsum, const IndexExpr& expr, int64_t dim,
                          double index_elements) {
  if (expr.is_indirect()) return std::min(static_cast<double>(dim), index_elements);
  auto [lo, hi] = affine_range(einsum, expr);
  int64_t first = std::max<int64_t>(lo, 0);
  int64_t last = std::min<int64_t>(hi, dim - 1);
  return last < first ? 0.0 : static_cast<double>(last - first + 1);
}

}  // namespace tessera::ir
