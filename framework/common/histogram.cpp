#include "framework/common/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera {

void Histogram::add(uint64_t value, uint64_t count) {
  if (count == 0) return;
  if (value < kDense) {
    if (value >= dense_.size()) dense_.resize(value + 1, 0);
    dense_[value] += count;
  } else {
    sparse_[value] += count;
  }
  min_ = count_ == 0 ? value : std::min(min_, value);
  max_ = count_ == 0 ? value : std::max(max_, value);
  count_ += count;
  sum_ += static_cast<long double>(value) * count;
}

template <class F>
void Histogram::for_each(F&& f) const {
  for (uint64_t value = count_ == 0 ? 0 : min_; value < dense_.size(); ++value)
    if (dense_[value] != 0) f(value, dense_[value]);
  for (const auto& [value, count] : sparse_) f(value, count);
}

void Histogram::merge(const Histogram& other) {
  other.for_each([&](uint64_t value, uint64_t count) { add(value, count); });
}

double Histogram::mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_ / count_);
}

namespace {
constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
}  // namespace

uint64_t Histogram::percentile(double q) const {
  if (count_ == 0) return 0;
  const auto needed = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  uint64_t seen = 0, found = kNone;
  for_each([&](uint64_t value, uint64_t count) {
    seen += count;
    if (found == kNone && seen >= needed && seen > 0) found = value;
  });
  return found == kNone ? max() : found;
}

namespace {

// The smallest of 1, 2, 5, 10, 20, 50, ... that is at least `raw`.
uint64_t nice_width(double raw) {
  for (uint64_t decade = 1;; decade *= 10)
    for (uint64_t step : {1, 2, 5})
      if (static_cast<double>(step * decade) >= raw) return step * decade;
}

}  // namespace

std::vector<Histogram::Bin> Histogram::bins(size_t max_bins) const {
  std::vector<Bin> out;
  if (count_ == 0 || max_bins == 0) return out;
  const uint64_t width =
      nice_width(static_cast<double>(max() - min() + 1) / static_cast<double>(max_bins));
  const uint64_t first = min() / width * width;
  out.resize((max() - first) / width + 1);
  for (size_t i = 0; i < out.size(); ++i) out[i] = {first + i * width, first + (i + 1) * width, 0};
  for_each([&](uint64_t value, uint64_t count) { out[(value - first) / width].count += count; });
  return out;
}

}  // namespace tessera
