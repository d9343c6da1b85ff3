#include "gputwin/validate/nvidia_smi_table.hpp"

#include <regex>

#include "gputwin/core/input_file.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

// The cells of a boxed line "| a | b | c |", trimmed; empty when the line is not a boxed row.
std::vector<std::string_view> box_cells(std::string_view line) {
  line = trim(line);
  if (line.size() < 2 || line.front() != '|' || line.back() != '|') return {};
  std::vector<std::string_view> cells;
  std::size_t start = 1;
  while (start < line.size()) {
    const auto bar = line.find('|', start);
    if (bar == std::string_view::npos) break;
    cells.push_back(trim(line.substr(start, bar - start)));
    start = bar + 1;
  }
  return cells;
}

enum class Section { none, gpus, mig_devices, other };

class TableReader {
 public:
  TableReader(const std::string& source, int first_line) : first_line_(first_line) { node_.source = source; }
  NodeFacts read(std::string_view text);

 private:
  void read_line(std::string_view line, int number);
  void read_versions(std::string_view line);
  void read_gpu_line(const std::vector<std::string_view>& cells, int number);
  void read_first_gpu_line(const std::vector<std::string_view>& cells, const FieldAt& at);
  void read_second_gpu_line(const std::vector<std::string_view>& cells, const FieldAt& at);
  void read_mig_line(const std::vector<std::string_view>& cells, int number);
  [[nodiscard]] FieldAt at(int number, std::string field) const {
    return {{node_.source, number, 0}, std::move(field)};
  }

  NodeFacts node_;
  int first_line_;
  Section section_ = Section::none;
  bool in_body_ = false;  // past the "|====" line of the current section
  int gpu_line_ = 0;      // 1, 2, 3: which line of a GPU's block comes next
};

NodeFacts TableReader::read(std::string_view text) {
  int number = first_line_ - 1;
  std::size_t position = 0;
  while (position < text.size()) {
    auto end = text.find('\n', position);
    if (end == std::string_view::npos) end = text.size();
    read_line(text.substr(position, end - position), ++number);
    position = end + 1;
  }
  if (!node_.driver_version && node_.gpus.empty())
    throw InputFailure(InputError{
        {node_.source, 0, 0}, "", "not an nvidia-smi table: no 'Driver Version:' line and no GPU rows"});
  return std::move(node_);
}

void TableReader::read_versions(std::string_view line) {
  static const std::regex kVersions(R"(Driver Version:\s*(\S+).*CUDA Version:\s*(\S+))");
  constexpr std::size_t kLongestRegexLine = 1024;  // std::regex recurses per character
  std::match_results<std::string_view::const_iterator> match;
  if (line.size() > kLongestRegexLine || !std::regex_search(line.begin(), line.end(), match, kVersions))
    return;
  node_.driver_version = text_value(match[1].str());
  node_.cuda_version = text_value(match[2].str());
}

void TableReader::read_line(std::string_view line, int number) {
  const std::string_view content = trim(line);
  if (content.find("Driver Version:") != std::string_view::npos) return read_versions(content);
  if (content.rfind("| GPU  Name", 0) == 0)
    section_ = Section::gpus, in_body_ = false;
  else if (content.rfind("| MIG devices:", 0) == 0)
    section_ = Section::mig_devices, in_body_ = false;
  else if (content.rfind("| Processes:", 0) == 0)
    section_ = Section::other, in_body_ = false;
  if (content.rfind("|===", 0) == 0) {
    in_body_ = true;
    gpu_line_ = 1;
    return;
  }
  if (content.rfind("+---", 0) == 0) {
    gpu_line_ = 1;  // a rule closes one GPU's block
    return;
  }
  if (content.empty()) {
    in_body_ = false;
    return;
  }
  if (!in_body_) return;
  const auto cells = box_cells(content);
  if (section_ == Section::gpus)
    read_gpu_line(cells, number);
  else if (section_ == Section::mig_devices)
    read_mig_line(cells, number);
}

void TableReader::read_gpu_line(const std::vector<std::string_view>& cells, int number) {
  if (cells.size() != 3)
    throw InputFailure(
        InputError{{node_.source, number, 0},
                   "",
                   "expected a GPU row of 3 boxed cells, got " + std::to_string(cells.size())});
  if (gpu_line_ == 1)
    read_first_gpu_line(cells, at(number, "GPU"));
  else if (gpu_line_ == 2)
    read_second_gpu_line(cells, at(number, "GPU"));
  else if (gpu_line_ == 3 && !node_.gpus.empty())
    node_.gpus.back().mig_enabled = switch_value(cells[2], at(number, "MIG M."));
  ++gpu_line_;
}

// "0  NVIDIA H100 80GB HBM3   On" | "00000000:00:09.0 Off" | "0"
void TableReader::read_first_gpu_line(const std::vector<std::string_view>& cells, const FieldAt& at) {
  const auto first = split_whitespace(cells[0]);
  if (first.size() < 3) fail_at(at, "expected 'index name persistence' in the first cell");
  GpuFacts gpu;
  const auto index = count_value(first.front(), FieldAt{at.where, "GPU"});
  if (!index || *index > 1'000'000) fail_at(at, "expected a GPU index");
  gpu.index = static_cast<int>(*index);
  const std::string_view name_start = first[1];
  const std::string_view name_end = first[first.size() - 2];
  gpu.model = std::string(name_start.data(),
                          static_cast<std::size_t>(name_end.data() + name_end.size() - name_start.data()));
  gpu.persistence_mode = switch_value(first.back(), FieldAt{at.where, "Persistence-M"});
  const auto bus = split_whitespace(cells[1]);
  if (!bus.empty()) gpu.bus_id = text_value(bus.front());
  // In MIG mode the ECC cell shows the ECC mode ("On"); otherwise the volatile uncorrectable count.
  const std::string_view ecc = cells[2];
  if (ecc == "On" || ecc == "Off")
    gpu.ecc_enabled = ecc == "On";
  else
    gpu.ecc.volatile_uncorrectable = count_value(ecc, FieldAt{at.where, "Volatile Uncorr. ECC"});
  node_.gpus.push_back(std::move(gpu));
}

// "N/A   41C    P0   69W /  700W" | "0MiB /  81559MiB" | "0%   Default"
void TableReader::read_second_gpu_line(const std::vector<std::string_view>& cells, const FieldAt& at) {
  if (node_.gpus.empty()) fail_at(at, "a GPU's second line with no first line");
  GpuFacts& gpu = node_.gpus.back();
  static const std::regex kState(R"(^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*/\s*(\S+)$)");
  const std::string first(cells[0]);
  constexpr std::size_t kLongestCell = 256;  // std::regex recurses per character
  std::smatch state;
  if (first.size() > kLongestCell || !std::regex_match(first, state, kState))
    fail_at(at, "expected 'fan temp perf usage / cap' in the first cell");
  gpu.temperature_celsius = celsius_value(state[2].str(), FieldAt{at.where, "Temp"});
  gpu.performance_state = text_value(state[3].str());
  gpu.power.draw = power_value(state[4].str(), FieldAt{at.where, "Pwr:Usage"});
  gpu.power.limit = power_value(state[5].str(), FieldAt{at.where, "Pwr:Cap"});
  const auto slash = cells[1].find('/');
  if (slash == std::string_view::npos) fail_at(at, "expected 'used / total' memory in the second cell");
  gpu.memory_used = mebibytes_value(cells[1].substr(0, slash), FieldAt{at.where, "Memory-Usage"});
  gpu.memory_total = mebibytes_value(cells[1].substr(slash + 1), FieldAt{at.where, "Memory-Usage"});
}

// "0    2   0   0" | "16925MiB / 71424MiB" | "16      0" | "3   0    3    0    3"; the next line is BAR1
// usage.
void TableReader::read_mig_line(const std::vector<std::string_view>& cells, int number) {
  if (cells.size() != 4) {
    throw InputFailure(
        InputError{{node_.source, number, 0},
                   "",
                   "expected a MIG device row of 4 boxed cells, got " + std::to_string(cells.size())});
  }
  const auto ids = split_whitespace(cells[0]);
  if (ids.empty()) return;  // the BAR1 line of the device above
  if (ids.size() != 4) fail_at(at(number, "GPU GI CI MIG"), "expected 4 ids");
  std::vector<int> values;
  for (std::string_view id : ids) {
    const auto value = count_value(id, at(number, "GPU GI CI MIG"));
    if (!value || *value > 1'000'000) fail_at(at(number, "GPU GI CI MIG"), "expected 4 ids");
    values.push_back(static_cast<int>(*value));
  }
  MigDevice mig{values[3], values[1], values[2], std::nullopt, std::nullopt};
  const auto slash = cells[1].find('/');
  if (slash != std::string_view::npos)
    mig.memory_total = mebibytes_value(cells[1].substr(slash + 1), at(number, "Memory-Usage"));
  const auto sm = split_whitespace(cells[2]);
  if (!sm.empty()) {
    const auto count = count_value(sm.front(), at(number, "SM"));
    if (count && *count <= 1'000'000) mig.multiprocessor_count = static_cast<int>(*count);
  }
  for (GpuFacts& gpu : node_.gpus)
    if (gpu.index == values[0]) return gpu.mig_devices.push_back(mig);
  fail_at(at(number, "GPU"),
          "a MIG device of GPU " + std::to_string(values[0]) + ", which the table does not list");
}

}  // namespace

Result<NodeFacts> NvidiaSmiTable::read_file(const std::string& path) {
  return guarded_parse<NodeFacts>(path, [&] {
    const std::string text = read_input_file(path);
    return TableReader(path, 1).read(text);
  });
}

Result<NodeFacts> NvidiaSmiTable::parse(std::string_view text, const std::string& source, int first_line) {
  return guarded_parse<NodeFacts>(source, [&] { return TableReader(source, first_line).read(text); });
}

}  // namespace gputwin::validate
