#include "framework/cli/output.hpp"

#include <algorithm>
#include <iostream>

#include "framework/common/files.hpp"
#include "framework/common/user_text.hpp"

namespace tessera::cli {

void write_output(const std::string& path, const std::string& text, bool force) {
  write_file_atomically(path, text, force).take();
  if (!is_stdout(path)) std::cerr << "wrote " << printable(path) << "\n";
}

std::ostream& report_stream(const std::vector<std::string>& outputs) {
  auto to_stdout = std::count_if(outputs.begin(), outputs.end(), is_stdout);
  if (to_stdout > 1) throw Failure(usage_error("only one output can be '-' (standard output)"));
  return to_stdout == 1 ? std::cerr : std::cout;
}

}  // namespace tessera::cli
