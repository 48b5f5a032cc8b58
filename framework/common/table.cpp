#include "framework/common/table.hpp"

#include <algorithm>
#include <stdexcept>

namespace tessera {

Table::Table(std::vector<std::string> header, std::vector<Align> align)
    : header_(std::move(header)), align_(std::move(align)) {
  align_.resize(header_.size(), Align::left);
}

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() != header_.size()) throw std::logic_error("table row has the wrong width");
  rows_.push_back(std::move(cells));
}

std::string Table::render() const {
  std::vector<size_t> width(header_.size());
  for (size_t c = 0; c < header_.size(); ++c) {
    width[c] = header_[c].size();
    for (const auto& r : rows_) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string pad(width[c] - cells[c].size(), ' ');
      bool last = c + 1 == cells.size();
      out += align_[c] == Align::right ? pad + cells[c] : cells[c] + (last ? "" : pad);
      if (!last) out += "  ";
    }
    return out + "\n";
  };
  std::string out = line(header_);
  std::string rule;
  for (size_t c = 0; c < width.size(); ++c)
    rule += std::string(width[c], '-') + (c + 1 < width.size() ? "  " : "");
  out += rule + "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

}  // namespace tessera
