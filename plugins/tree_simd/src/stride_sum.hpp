// Sums of the form  v = Σ q_i · stride_i  with 0 <= q_i < divisions_i: how a layout turns the
// quotients of its items into one block id (per level) or one address. Answers the questions the
// validator asks (largest value, are all values distinct) and solves v back into quotients.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tessera::plugins::tree {

// a * b and a + b, stopping at UINT64_MAX instead of wrapping.
uint64_t saturating_mul(uint64_t a, uint64_t b);
uint64_t saturating_add(uint64_t a, uint64_t b);

class StrideSum {
 public:
  struct Term {
    uint64_t divisions = 1;
    uint64_t stride = 0;
  };
  // Terms with divisions 0 are not allowed (the parser rejects them).
  explicit StrideSum(std::vector<Term> terms);

  // The largest value (saturating).
  uint64_t max_value() const { return max_value_; }
  // How many quotient vectors there are (saturating).
  uint64_t positions() const { return positions_; }
  // Two terms (indices into the constructor's list) through which two different quotient vectors
  // reach the same value; nullopt when every vector has its own value.
  std::optional<std::pair<size_t, size_t>> collision() const { return collision_; }
  // False when the strides are neither mixed-radix-like nor small enough to check one by one:
  // then collision() could not be decided and the layout is rejected.
  bool decidable() const { return decidable_; }
  // The quotients (one per term) that give `value`; false when no vector gives it.
  bool solve(uint64_t value, uint64_t* quotients) const;

 private:
  void check_by_enumeration();
  std::vector<uint64_t> unpack(uint64_t packed) const;

  std::vector<Term> terms_;
  std::vector<size_t> order_;  // terms with divisions > 1, largest stride first
  bool dominant_ = true;       // each stride exceeds the span of all smaller ones
  bool decidable_ = true;
  uint64_t max_value_ = 0;
  uint64_t positions_ = 1;
  std::optional<std::pair<size_t, size_t>> collision_;
  std::unordered_map<uint64_t, uint64_t> table_;  // value -> packed quotients (non-dominant)
};

}  // namespace tessera::plugins::tree
