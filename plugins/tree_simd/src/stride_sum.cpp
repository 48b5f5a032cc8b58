#include "stride_sum.hpp"

#include <algorithm>
#include <limits>

namespace tessera::plugins::tree {

namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
// Irregular strides are checked value by value up to this many quotient vectors.
constexpr uint64_t kMaxEnumerated = 1u << 20;

}  // namespace

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > kMax / a) return kMax;
  return a * b;
}

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return b > kMax - a ? kMax : a + b;
}

StrideSum::StrideSum(std::vector<Term> terms) : terms_(std::move(terms)) {
  for (size_t i = 0; i < terms_.size(); ++i) {
    if (terms_[i].divisions <= 1) continue;
    order_.push_back(i);
    max_value_ =
        saturating_add(max_value_, saturating_mul(terms_[i].divisions - 1, terms_[i].stride));
    positions_ = saturating_mul(positions_, terms_[i].divisions);
  }
  std::stable_sort(order_.begin(), order_.end(),
                   [&](size_t a, size_t b) { return terms_[a].stride > terms_[b].stride; });
  // Mixed-radix-like: walking from the smallest stride up, each stride must exceed the largest
  // value the smaller ones reach. Then every vector has its own value and a greedy solve works.
  uint64_t span = 0;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const Term& t = terms_[*it];
    if (t.stride <= span) dominant_ = false;
    span = saturating_add(span, saturating_mul(t.divisions - 1, t.stride));
  }
  if (!dominant_) check_by_enumeration();
}

void StrideSum::check_by_enumeration() {
  if (positions_ > kMaxEnumerated) {
    decidable_ = false;
    return;
  }
  for (uint64_t packed = 0; packed < positions_; ++packed) {
    std::vector<uint64_t> q = unpack(packed);
    uint64_t value = 0;
    for (size_t k = 0; k < order_.size(); ++k) value += q[k] * terms_[order_[k]].stride;
    auto [it, fresh] = table_.emplace(value, packed);
    if (fresh) continue;
    std::vector<uint64_t> other = unpack(it->second);
    std::vector<size_t> differ;
    for (size_t k = 0; k < order_.size(); ++k)
      if (q[k] != other[k]) differ.push_back(order_[k]);
    std::sort(differ.begin(), differ.end());
    collision_ = {differ.front(), differ.size() > 1 ? differ[1] : differ.front()};
    return;
  }
}

// Mixed radix over order_, first term most significant.
std::vector<uint64_t> StrideSum::unpack(uint64_t packed) const {
  std::vector<uint64_t> q(order_.size());
  for (size_t k = order_.size(); k-- > 0;) {
    uint64_t d = terms_[order_[k]].divisions;
    q[k] = packed % d;
    packed /= d;
  }
  return q;
}

bool StrideSum::solve(uint64_t value, uint64_t* quotients) const {
  std::fill(quotients, quotients + terms_.size(), 0);
  if (dominant_) {
    for (size_t i : order_) {
      uint64_t q = value / terms_[i].stride;
      if (q >= terms_[i].divisions) return false;
      quotients[i] = q;
      value -= q * terms_[i].stride;
    }
    return value == 0;
  }
  auto it = table_.find(value);
  if (it == table_.end()) return false;
  std::vector<uint64_t> q = unpack(it->second);
  for (size_t k = 0; k < order_.size(); ++k) quotients[order_[k]] = q[k];
  return true;
}

}  // namespace tessera::plugins::tree
