// What torch.compile saves over PyTorch eager mode in a transformer block's elementwise work (norms, rotary
// embedding, SwiGLU, residual adds), op by op, read from torchtitan's model code
// (data/perf/pytorch-eager-ops.yaml).
//
//   Result<EagerOpTable> table = load_eager_op_table(bundled_data_dir() + "/perf/pytorch-eager-ops.yaml");
//   // bytes per token on one GPU, forward and backward
//   BlockTraffic eager = block_traffic(table.value().eager_ops, model, config);
//   BlockTraffic fused = block_traffic(table.value().fused_regions, model, config);
//   eager.forward - fused.forward;  // what an eager forward pass moves beyond the compiled one
#pragma once

#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/training_config.hpp"

namespace gputwin {

// The tensor an op runs over, per token on one GPU: hidden (h, split over t with sequence parallelism), query
// (heads x head_dim / t), key_value (kv_heads x head_dim / t, at least one head), ffn (ffn_hidden / t).
enum class OpWidth { hidden, query, key_value, ffn };

// One eager op (or one fused region): bytes per element of its width it reads and writes in one pass.
struct OpTraffic {
  std::string name;
  OpWidth width = OpWidth::hidden;
  double per_layer = 1;       // times it runs per transformer block
  double forward_bytes = 0;   // read + written, forward
  double backward_bytes = 0;  // read + written by its autograd backward
};

struct EagerOpTable {
  std::vector<OpTraffic> eager_ops;  // every op its own kernel
  // the same work under torch.compile (one read + one write per region)
  std::vector<OpTraffic> fused_regions;
  std::string source;
};

[[nodiscard]] Result<EagerOpTable> load_eager_op_table(const std::string& path);

// Bytes one block moves per token on one GPU, forward and backward.
struct BlockTraffic {
  double forward = 0, backward = 0;
};

// The ops' traffic summed over a block of `model` split as `config` splits it.
[[nodiscard]] BlockTraffic block_traffic(const std::vector<OpTraffic>& ops, const TransformerModel& model,
                                         const TrainingConfig& config);

// Empty when eager mode is modelled for `model`; else why not (the table is torchtitan's Llama block:
// RMSNorm, rotary embedding, SwiGLU, no biases, no latent attention, no experts).
[[nodiscard]] std::string eager_block_mismatch(const TransformerModel& model);

}  // namespace gputwin
