// A histogram of whole numbers (latencies in cycles): exact counts per value, so percentiles are
// exact, and a coarse view with "nice" bin widths (1, 2, 5 x 10^k) for printing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace tessera {

class Histogram {
 public:
  struct Bin {
    uint64_t low = 0, high = 0;  // [low, high)
    uint64_t count = 0;
  };

  void add(uint64_t value, uint64_t count = 1);
  void merge(const Histogram& other);
  uint64_t count() const { return count_; }
  double mean() const;
  uint64_t min() const { return count_ == 0 ? 0 : min_; }
  uint64_t max() const { return count_ == 0 ? 0 : max_; }
  // The smallest value v with at least q of all values <= v (q in [0, 1]); 0 when empty.
  uint64_t percentile(double q) const;
  // At most about `max_bins` equal bins covering every value, bounds multiples of a nice width.
  std::vector<Bin> bins(size_t max_bins) const;

 private:
  // Calls f(value, count) for every distinct value, in increasing order.
  template <class F>
  void for_each(F&& f) const;

  // memsim adds one value per completed read, millions a run: values below kDense (every latency
  // of a healthy memory, a few thousand cycles) are counted in a vector indexed by value, grown to
  // the largest seen, which is several times faster than a node-based map; rarer larger values go
  // to the map, so a single huge one cannot make the vector huge.
  static constexpr uint64_t kDense = uint64_t{1} << 16;
  std::vector<uint64_t> dense_;
  std::map<uint64_t, uint64_t> sparse_;  // values >= kDense
  uint64_t count_ = 0;
  uint64_t min_ = 0, max_ = 0;  // valid when count_ > 0
  long double sum_ = 0;
};

}  // namespace tessera
