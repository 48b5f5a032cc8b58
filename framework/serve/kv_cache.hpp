// The KV cache as a server pages it: a pool of blocks of `block_tokens` positions each (vLLM's
// PagedAttention, Kwon et al., SOSP 2023), a sequence holding ceil(positions / block_tokens) of
// them. What is free decides admission; running out decides preemption (scheduler.hpp).
#pragma once

#include <cstdint>

namespace tessera::serve {

class KvBlocks {
 public:
  KvBlocks(int64_t blocks, int64_t block_tokens) : total_(blocks), block_tokens_(block_tokens) {}
  int64_t blocks_for(int64_t tokens) const { return (tokens + block_tokens_ - 1) / block_tokens_; }
  int64_t free() const { return total_ - used_; }
  int64_t total() const { return total_; }
  int64_t used() const { return used_; }
  int64_t block_tokens() const { return block_tokens_; }
  // Takes `blocks` more when that many are free; false (and nothing taken) otherwise.
  bool take(int64_t blocks) {
    if (blocks > free()) return false;
    used_ += blocks;
    return true;
  }
  void give_back(int64_t blocks) { used_ -= blocks; }

 private:
  int64_t total_;
  int64_t block_tokens_;
  int64_t used_ = 0;
};

}  // namespace tessera::serve
