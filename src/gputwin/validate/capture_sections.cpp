#include "gputwin/validate/capture_sections.hpp"

#include "gputwin/validate/node_facts_merge.hpp"
#include "gputwin/validate/nvidia_smi_query_csv.hpp"
#include "gputwin/validate/nvidia_smi_table.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

bool is_rule(std::string_view line) {
  constexpr std::size_t kShortestRule = 20;
  return trim(line).size() >= kShortestRule && trim(line).find_first_not_of('#') == std::string_view::npos;
}

struct Line {
  std::string_view text;
  std::size_t offset = 0;
};

std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> lines;
  std::size_t position = 0;
  while (position < text.size()) {
    auto end = text.find('\n', position);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back({text.substr(position, end - position), position});
    position = end + 1;
  }
  return lines;
}

}  // namespace

std::vector<CaptureSection> split_capture_sections(std::string_view text) {
  const auto lines = lines_of(text);
  std::vector<CaptureSection> sections;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    // A banner: rule, "# title", optionally "# $ command", rule.
    if (!is_rule(lines[i].text) || lines[i + 1].text.rfind("# ", 0) != 0) continue;
    std::size_t j = i + 1;
    CaptureSection section;
    section.title = std::string(trim(lines[j].text.substr(2)));
    if (j + 1 < lines.size() && lines[j + 1].text.rfind("# $ ", 0) == 0)
      section.command = std::string(trim(lines[++j].text.substr(4)));
    if (j + 1 >= lines.size() || !is_rule(lines[j + 1].text)) continue;
    const std::size_t body_start = j + 2;
    std::size_t body_end = body_start;
    while (body_end < lines.size() && !is_rule(lines[body_end].text)) ++body_end;
    const std::size_t begin = body_start < lines.size() ? lines[body_start].offset : text.size();
    const std::size_t end = body_end < lines.size() ? lines[body_end].offset : text.size();
    section.body = text.substr(begin, end - begin);
    section.first_line = static_cast<int>(body_start) + 1;
    sections.push_back(std::move(section));
    i = body_end - 1;
  }
  return sections;
}

namespace {

const CaptureSection* find_section(const std::vector<CaptureSection>& sections,
                                   std::string_view title_start) {
  for (const CaptureSection& section : sections)
    if (section.title.starts_with(title_start)) return &section;
  return nullptr;
}

// One phase's --query-gpu CSV and default table, merged: the CSV has the most facts, the table adds what the
// CSV cannot say (the CUDA version, the MIG instances).
Result<NodeFacts> read_phase(const std::string& path, const CaptureSection& csv,
                             const CaptureSection* table) {
  auto facts = NvidiaSmiQueryCsv::parse(csv.body, path, csv.first_line);
  if (!facts.ok() || table == nullptr) return facts;
  auto table_facts = NvidiaSmiTable::parse(table->body, path, table->first_line);
  if (!table_facts.ok()) return table_facts.errors();
  std::vector<NodeFacts> sources;
  sources.push_back(std::move(facts).value());
  sources.push_back(std::move(table_facts).value());
  return merge_node_facts(std::move(sources));
}

}  // namespace

Result<NodeFacts> read_exporter_capture(const std::string& path, std::string_view text) {
  const auto sections = split_capture_sections(text);
  for (const std::string phase : {"load", "idle"})
    if (const CaptureSection* csv = find_section(sections, phase + " :: query-gpu"))
      return read_phase(path, *csv, find_section(sections, phase + " :: nvidia-smi (default table)"));
  return InputError{{path, 0, 0}, "", "an nvidia_gpu_exporter capture with no query-gpu section"};
}

}  // namespace gputwin::validate
