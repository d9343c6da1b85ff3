#include "gputwin/perf/pytorch_eager.hpp"

#include <algorithm>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {

namespace {

// The bytes of one pass: {read: [bytes per element of each tensor read], write: [... written]}.
double pass_bytes(const YamlField& pass) {
  pass.expect_keys({"read", "write"});
  double bytes = 0;
  for (const char* key : {"read", "write"}) {
    for (const YamlField& tensor : pass.child(key).items()) {
      const double b = tensor.number();
      if (b != 1 && b != 2 && b != 4) tensor.fail("bytes per element must be 1, 2 or 4");
      bytes += b;
    }
  }
  return bytes;
}

std::vector<OpTraffic> read_ops(const YamlField& list, const char* name_key) {
  std::vector<OpTraffic> ops;
  for (const YamlField& row : list.items()) {
    row.expect_keys({name_key, "width", "per_layer", "forward", "backward", "source"});
    OpTraffic op;
    op.name = row.child(name_key).text();
    const std::string width = row.child("width").one_of({"hidden", "query", "key_value", "ffn"});
    op.width = width == "hidden"  ? OpWidth::hidden
               : width == "query" ? OpWidth::query
               : width == "ffn"   ? OpWidth::ffn
                                  : OpWidth::key_value;
    op.per_layer = row.child("per_layer").positive_number();
    op.forward_bytes = pass_bytes(row.child("forward"));
    op.backward_bytes = pass_bytes(row.child("backward"));
    (void)row.child("source").text();  // required: where the op was read
    ops.push_back(std::move(op));
  }
  if (ops.empty()) list.fail("must list at least one op");
  return ops;
}

EagerOpTable read_table(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"source", "eager_ops", "fused_regions"});
  EagerOpTable table;
  table.source = root.child("source").text();
  table.eager_ops = read_ops(root.child("eager_ops"), "op");
  table.fused_regions = read_ops(root.child("fused_regions"), "region");
  return table;
}

// Elements per token on one GPU of each width.
double width_elements(OpWidth width, const TransformerModel& m, const TrainingConfig& c) {
  const double t = c.tp;
  const bool sequence_parallel = c.sequence_parallel && c.tp > 1;
  switch (width) {
    case OpWidth::hidden:
      return m.hidden / (sequence_parallel ? t : 1.0);
    case OpWidth::query:
      return static_cast<double>(m.heads) * m.qk_head_dim() / t;
    case OpWidth::key_value:
      return std::max(1.0, static_cast<double>(m.kv_heads) / t) * m.qk_head_dim();
    case OpWidth::ffn:
      return m.ffn_hidden / t;
  }
  return 0;
}

}  // namespace

Result<EagerOpTable> load_eager_op_table(const std::string& path) {
  return result_of<EagerOpTable>([&] { return read_table(path); });
}

BlockTraffic block_traffic(const std::vector<OpTraffic>& ops, const TransformerModel& model,
                           const TrainingConfig& config) {
  BlockTraffic traffic;
  for (const OpTraffic& op : ops) {
    const double elements = op.per_layer * width_elements(op.width, model, config);
    traffic.forward += elements * op.forward_bytes;
    traffic.backward += elements * op.backward_bytes;
  }
  return traffic;
}

std::string eager_block_mismatch(const TransformerModel& model) {
  if (!model.gated_mlp || model.biases || model.is_latent_attention() || model.is_moe())
    return "eager mode (torch.compile off) is modelled for a Llama-style dense block only (RMSNorm, rotary "
           "embedding, SwiGLU, no biases: torchtitan's model code, data/perf/pytorch-eager-ops.yaml); this "
           "model's block is not one";
  return "";
}

}  // namespace gputwin
