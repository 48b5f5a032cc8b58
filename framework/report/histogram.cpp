#include "framework/report/histogram.hpp"

#include <cmath>

namespace tessera {

void Histogram::add(uint64_t value, uint64_t count) {
  if (count == 0) return;
  counts_[value] += count;
  count_ += count;
  sum_ += static_cast<long double>(value) * count;
}

void Histogram::merge(const Histogram& other) {
  for (const auto& [value, count] : other.counts_) add(value, count);
}

double Histogram::mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_ / count_);
}

uint64_t Histogram::min() const {
  return counts_.empty() ? 0 : counts_.begin()->first;
}
uint64_t Histogram::max() const {
  return counts_.empty() ? 0 : counts_.rbegin()->first;
}

uint64_t Histogram::percentile(double q) const {
  if (count_ == 0) return 0;
  const auto needed = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  uint64_t seen = 0;
  for (const auto& [value, count] : counts_) {
    seen += count;
    if (seen >= needed && seen > 0) return value;
  }
  return max();
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
  for (const auto& [value, count] : counts_) out[(value - first) / width].count += count;
  return out;
}

}  // namespace tessera
