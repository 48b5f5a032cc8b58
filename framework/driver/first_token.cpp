#include "framework/driver/driver.hpp"

namespace tessera::driver {

std::optional<FirstTokenRead> first_token_read(const ChipSpec& spec, const LoadedModel& model) {
  const ModelRequest& request = model.request;
  if (model_kind(request.model) != ModelKind::zoo_name ||
      request.shape.mode != zoo::Mode::prefill || request.shard != zoo::Shard{})
    return std::nullopt;
  // The outputs the host reads: not the KV cache the step writes in place.
  double output_bytes = 0;
  for (const std::string& name : model.graph->outputs())
    if (model.graph->storage_tensor(name).role == ir::TensorRole::activation)
      output_bytes += model.graph->find_tensor(name)->bytes();
  if (!spec.host) return FirstTokenRead{output_bytes, 1, 0};
  return FirstTokenRead{static_cast<double>(spec.host->read_rows) * output_bytes,
                        spec.host->read_rows, spec.host->read_bytes_per_s};
}

}  // namespace tessera::driver
