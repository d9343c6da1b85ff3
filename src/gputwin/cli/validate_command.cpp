#include <iostream>
#include <memory>
#include <set>

#include "gputwin/cli/commands.hpp"
#include "gputwin/validate/inventory.hpp"

namespace gputwin::cli {
namespace {

using validate::GpuFacts;
using validate::NodeInventory;

std::string joined(const std::set<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : ", ") + word;
  return text.empty() ? "-" : text;
}

// "ok", or the notes of each GPU that has any: "GPU 0: persistence off; GPU 3: DBE 2".
std::string node_health(const NodeInventory& node) {
  if (node.facts.gpus.empty()) return node.errors.empty() ? "no GPUs reported" : "unreadable";
  std::string health;
  for (const GpuFacts& gpu : node.facts.gpus) {
    const auto notes = validate::health_notes(gpu);
    if (notes.empty()) continue;
    std::string listed;
    for (const std::string& note : notes) listed += (listed.empty() ? "" : ", ") + note;
    health +=
        (health.empty() ? "" : "; ") + ("GPU " + std::to_string(gpu.index.value_or(-1)) + ": " + listed);
  }
  return health.empty() ? "ok" : health;
}

void print_inventory(const validate::Inventory& inventory) {
  std::size_t width = 4;
  for (const NodeInventory& node : inventory.nodes) width = std::max(width, node.node.size());
  const auto pad = [](const std::string& text, std::size_t size) {
    return text + std::string(size > text.size() ? size - text.size() : 0, ' ');
  };
  std::cout << pad("node", width) << "  GPUs  " << pad("model", 26) << "  " << pad("driver", 11)
            << "  health\n";
  for (const NodeInventory& node : inventory.nodes) {
    std::set<std::string> models;
    for (const GpuFacts& gpu : node.facts.gpus) models.insert(gpu.model.empty() ? "?" : gpu.model);
    const std::string gpus = std::to_string(node.facts.gpus.size());
    std::cout << pad(node.node, width) << "  " << std::string(4 - std::min<std::size_t>(4, gpus.size()), ' ')
              << gpus << "  " << pad(joined(models), 26) << "  "
              << pad(node.facts.driver_version.value_or("-"), 11) << "  " << node_health(node) << "\n";
  }
}

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto* validate =
      app.add_subcommand("validate", "read measurements of a built cluster (nvidia-smi, DCGM, nccl-tests)");
  validate->require_subcommand(1);
  auto measured = std::make_shared<std::string>();
  auto* inventory =
      validate->add_subcommand("inventory", "per node: GPUs, model, driver and a health summary");
  inventory
      ->add_option("--measured", *measured,
                   "directory of per-node captures (a subdirectory or file per node)")
      ->required();
  inventory->callback([measured, &exit_code] {
    const auto read = validate::read_inventory(*measured);
    if (!read.ok()) {
      std::cerr << read.error_text();
      exit_code = kInputError;
      return;
    }
    print_inventory(read.value());
    for (const NodeInventory& node : read.value().nodes) {
      for (const InputError& error : node.errors) std::cerr << error.to_string() << "\n";
      if (node.facts.gpus.empty() && !node.errors.empty()) exit_code = kInputError;
    }
  });
}

}  // namespace gputwin::cli
