#include "gputwin/perf/training.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/perf/pipeline_schedule.hpp"
#include "gputwin/perf/tp_overlap.hpp"

namespace gputwin {

// Grouped-query attention: kv_heads x (d_qk + d_v), the kv heads split over t (replicated when t
// exceeds them). Multi-head latent attention: the keys and values are up-projected per head BEFORE the core
// attention, whose context-parallel exchange then carries heads x ((nope + rope) + v_head) per token, not the
// kv_lora latent (Megatron Core MultiLatentAttention builds core_attention with k_channels = qk_head_dim +
// qk_pos_emb_head_dim and v_channels = v_head_dim, NVIDIA/Megatron-LM
// megatron/core/transformer/multi_latent_attention.py).
double context_parallel_kv_elements_per_token(const TransformerModel& m, int tp) {
  const double heads = m.is_latent_attention() ? static_cast<double>(m.heads) / tp
                                               : std::max(1.0, static_cast<double>(m.kv_heads) / tp);
  return heads * (m.qk_head_dim() + m.v_head_dim());
}

namespace {

// Bytes of one 16-bit activation or activation gradient element.
constexpr double kActivationBytes = 2;
// bf16 weights, as memory.hpp counts them; fp32 Adam state (master weights, momentum, variance).
constexpr double kWeightBytes = 2;
constexpr double kOptimizerStateBytes = 12;
// Router logits and probabilities counted in fp32 (4 bytes): an upper bound, the router is a small term.
constexpr double kRouterBytes = 4;

// Forward attention scores and values of one layer per token over the full s x s square (model.hpp: all
// layers, sliding windows capped), averaged over the layers.
double attention_flops_per_token(const TransformerModel& m, double sequence) {
  return m.attention_score_flops_per_token(sequence) / std::max(1, m.layers);
}

struct Groups {
  CollectiveGroup tensor, context, data, pipeline, expert;
  // The routed experts' gradient group (Megatron's expert-data-parallel group): the ranks holding the same
  // experts, t c d / (expert tp x ep) of them, expert tp x ep apart.
  CollectiveGroup expert_data;
};

// Megatron's rank order fills consecutive GPUs with tensor-parallel ranks first, then context, then data
// parallel; the pipeline's neighbours sit elsewhere unless one unit holds several stages. Each group is
// placed twice, on the node (its NICs) and on the scale-up domain (its NVLink): a tensor-parallel group of 8
// on 4-GPU NVL72 trays spans two trays of one domain and runs on NVLink.
Groups groups_of(const PerfHardware& hw, const TrainingConfig& c) {
  const int node = std::max(1, hw.gpus_per_node);
  const int domain = hw.placement_domain();
  // A group whose ranks are `stride` apart, `size` of them: how many fall in one unit of `unit` GPUs.
  auto per_unit = [](int unit, int stride, int size) {
    return std::clamp(unit / stride, 1, std::max(1, size));
  };
  // In a domain larger than a node, a group's block of stride x k GPUs that does not tile the domain (a
  // tensor-parallel group of 16 in 72 GPUs) leaves some groups straddling two domains; the slowest of them
  // sets the step, so such a group is placed as if the domain were the node (its NICs).
  auto per_domain = [&](int stride, int size) {
    const int k = per_unit(domain, stride, size);
    return domain % (stride * k) == 0 ? k : per_unit(node, stride, size);
  };
  Groups g;
  g.tensor = {c.tp, std::min(c.tp, node), per_domain(1, c.tp)};
  g.context = {c.cp, per_unit(node, c.tp, c.cp), per_domain(c.tp, c.cp)};
  // The data-parallel gradient group spans context and data ranks (stride tp).
  auto data_per_node = per_unit(node, c.tp * c.cp, c.dp) * per_unit(node, c.tp, c.cp);
  auto data_per_domain = per_domain(c.tp * c.cp, c.dp) * per_domain(c.tp, c.cp);
  g.data = {c.dp * c.cp, std::min(c.dp * c.cp, data_per_node), std::min(c.dp * c.cp, data_per_domain)};
  // Expert parallelism is folded into data parallelism (Megatron): the EP ranks follow the tensor-parallel
  // ones.
  g.expert = {c.ep, per_unit(node, c.tp, c.ep), per_domain(c.tp, c.ep)};
  const int expert_stride = std::max(1, c.expert_tp() * c.ep);
  const int expert_data = std::max(1, c.tp * c.cp * c.dp / expert_stride);
  g.expert_data = {expert_data, per_unit(node, expert_stride, expert_data),
                   per_domain(expert_stride, expert_data)};
  auto stage_pairs_share = [&](int unit) { return c.tp * c.cp * c.dp * 2 <= unit ? 2 : 1; };
  g.pipeline = {2, stage_pairs_share(node), stage_pairs_share(domain)};
  return g;
}

// One weight GEMM of a layer as one GPU runs it: C[tokens x n] = A[tokens x k] B[k x n].
struct LayerGemm {
  double k = 0, n = 0;
};

// The attention projections (query/key/value, or MLA's down and up projections, as one GEMM) and the output
// projection, split over the tensor-parallel group as Megatron splits them (column-parallel n, row-parallel
// k).
std::vector<LayerGemm> attention_gemms(const TransformerModel& m, int tp) {
  const double h = m.hidden, t = tp;
  const double out_width = static_cast<double>(m.heads) * m.v_head_dim();
  const double in_width = m.attention_matrix_parameters() / h - out_width;
  return {{h, in_width / t}, {out_width / t, h}};
}

// An MLP of inner size f split over t: up (gate and up fused when gated) and down.
std::vector<LayerGemm> mlp_gemms(const TransformerModel& m, double f, int tp) {
  const double h = m.hidden, t = tp;
  return {{h, (m.gated_mlp ? 2.0 : 1.0) * f / t}, {f / t, h}};
}

struct Context {
  const PerfHardware& hw;
  const CollectiveModel& collectives;
  const TrainingCalibration& calibration;
  const TransformerModel& model;
  const TrainingConfig& config;
  Groups groups;
  GemmDevice device;
  GemmDevice bf16_device;       // the same GPU at bf16 (layers a low-precision recipe keeps in bf16)
  double memory_bandwidth = 0;  // B/s

  [[nodiscard]] double collective_s(CollectiveOp op, double bytes, CollectiveGroup group) const {
    if (group.ranks <= 1 || bytes <= 0) return 0;
    return estimate_collective(hw, collectives, op, ByteSize::from_base(bytes), group).time_us * 1e-6;
  }
  [[nodiscard]] double elementwise_s(double activation_bytes) const {
    return calibration.elementwise_traffic * activation_bytes / memory_bandwidth;
  }
};

// Per layer and micro-batch on one GPU: the pieces a forward and a backward pass cost, so recomputation can
// repeat some.
struct LayerPass {
  double matrices = 0;                  // s, forward weight GEMMs
  double matrices_backward = 0;         // s, dgrad + wgrad
  double expert_matrices = 0;           // s, of `matrices`: the routed experts' grouped GEMMs (MoE)
  double expert_matrices_backward = 0;  // s, of `matrices_backward`: the same, dgrad + wgrad
  double casts = 0;                     // s, quantising the GEMM operands (FP8 recipes), forward and backward
  double attention = 0;                 // s, scores and values, forward
  double attention_backward = 0;        // s
  double elementwise = 0;               // s, all stored activations written / read once
  // s, PyTorch eager mode (config.compiled false): what its unfused elementwise ops move beyond the fused
  // count above, forward and backward, and (per-op SAC) the whole eager forward of those ops run again in the
  // backward
  double unfused = 0, unfused_backward = 0, unfused_recompute = 0;
  double score_elementwise = 0;  // s, the part of `elementwise` that is the a s^2 scores (unfused attention)
  // The tensor-parallel collectives of one pass and the named GEMMs they pair with (`matrices` and
  // `matrices_backward` are these GEMMs summed).
  TensorParallelLayer tensor;
  double context_comm = 0;       // s, context-parallel key/value exchange the forward pass exposes
  double context_comm_backward = 0;  // s, keys, values and their gradients the backward pass exposes
  // s, PyTorch's context_parallel (ContextExchange::all_gather_blocks): merging each block's output into the
  // fp32 accumulator (forward), accumulating and packing the gradients in fp32 (backward), at memory
  // bandwidth
  double context_merge = 0;
  double context_merge_backward = 0;
  double expert_comm = 0;  // s, MoE dispatch + combine all-to-all over the expert-parallel group, one pass
  double permute = 0;      // s, MoE token permute / unpermute and router traffic, one pass
  // s, the routed experts' output bias applied in eager PyTorch (models whose linear layers carry biases)
  double expert_bias = 0, expert_bias_backward = 0;
  // s, forward only: GPU idle while the host issues a MoE layer after its dispatch sync (the backward has
  // none)
  double host_wait = 0;
  double every_second_matrix = 0;  // s, forward GEMMs torchtitan's per-op SAC recomputes (Recompute::op_sac)

  [[nodiscard]] double forward() const {
    return matrices + attention + context_merge + elementwise + unfused + permute + expert_bias + host_wait;
  }
};

// Bytes per element the merges of PyTorch's context_parallel move (torch/distributed/tensor/experimental/
// _attention.py, read; eager aten ops between the attention calls, convert_to_f32 on). Counted for the last
// rank of the group, which runs every block after the first in full (i <= rank) and so sets the pace.
// Forward, per block after the first and output element: _SDPAMerger.step converts the block's bf16 output to
// fp32 (read 2, write 4); _merge_one computes out - block_out (read 4 + 4, write 4), sigmoid(lse difference)
// times that (read 4, write 4; the logsumexp terms are per head and token, not counted) and out - product
// (read 4 + 4, write 4).
constexpr double kMergeBytesPerOutput = 6 + 12 + 8 + 12;
// Backward, per block after the first: grad_query += the block's bf16 dQ into the fp32 accumulator (read 4 +
// 2, write 4) per query element; per key/value element the received fp32 dK/dV plus the block's first-chunk
// dK/dV (_partial_update with add: the chunk's read 4 + 2, write 4 on half of it, then torch.cat of both
// halves, read 4, write 4) and torch.cat of dK and dV into the buffer sent on (read 4, write 4).
constexpr double kGradAccumulateBytesPerQuery = 10;
constexpr double kGradBytesPerKeyValue = 0.5 * 10 + 8 + 8;
// The dK/dV accumulator is fp32 (accum_dtype float32 with convert_to_f32).
constexpr double kGradientAccumulatorBytes = 4;
// Both loops, before every block but the last, copy the block's keys and values into one buffer for the
// rotater (next_kv = torch.cat([key.flatten(), value.flatten()])), even when the _AllGatherRotater has
// gathered everything already: read 2, write 2 bytes per bf16 key/value element and block.
constexpr double kKeyValueCopyBytes = 2 + 2;

// PyTorch's context_parallel (ContextExchange::all_gather_blocks), from _templated_ring_attention and its
// backward: the forward all-gathers every rank's keys and values once (the _AllGatherRotater waits for them
// after the first, local block) and runs one attention call per source block, merging each into the fp32
// output. The backward all-gathers the keys and values again the same way; after each block it sends the
// fp32 dK/dV accumulator to the next rank (_AllToAllRotater) and waits for the previous rank's after the next
// block, and once more after the last block with nothing left to hide it.
void context_exchange_blocks(const Context& x, double tokens, double chunk_bytes, LayerPass& pass) {
  const TrainingConfig& c = x.config;
  const TransformerModel& m = x.model;
  const double cp = c.cp;
  const CollectiveGroup& g = x.groups.context;
  const CollectiveGroup hop{2, g.ranks_per_node >= g.ranks ? 2 : 1, g.ranks_per_domain >= g.ranks ? 2 : 1};
  const double gather = x.collective_s(CollectiveOp::all_gather, cp * chunk_bytes, g);
  const double gradient_hop =
      x.collective_s(CollectiveOp::sendrecv, chunk_bytes * kGradientAccumulatorBytes / kActivationBytes, hop);
  const double forward_block = pass.attention / cp, backward_block = pass.attention_backward / cp;
  pass.context_comm = std::max(0.0, gather - forward_block);
  pass.context_comm_backward = std::max(0.0, gather - backward_block) +
                               (cp - 1) * std::max(0.0, gradient_hop - backward_block) + gradient_hop;
  const double local_heads = static_cast<double>(m.heads) / c.tp;
  const double outputs = tokens * local_heads * m.v_head_dim();
  const double queries = tokens * local_heads * m.qk_head_dim();
  const double keys_values = chunk_bytes / kActivationBytes;
  const double key_value_copies = (cp - 1) * kKeyValueCopyBytes * keys_values;
  pass.context_merge =
      ((cp - 1) * kMergeBytesPerOutput * outputs + key_value_copies) / x.memory_bandwidth;
  pass.context_merge_backward =
      ((cp - 1) * (kGradAccumulateBytesPerQuery * queries + kGradBytesPerKeyValue * keys_values) +
       key_value_copies) /
      x.memory_bandwidth;
}

// The context-parallel exchange of one layer's keys and values (and, backward, their gradients), exposed:
// what the attention it runs beside does not hide. The chunk each rank holds: its tokens' keys and values.
void context_exchange(const Context& x, double tokens, LayerPass& pass) {
  const TrainingConfig& c = x.config;
  const double chunk_bytes =
      tokens * context_parallel_kv_elements_per_token(x.model, c.tp) * kActivationBytes;
  const double cp = c.cp;
  if (c.context_exchange == ContextExchange::all_gather_blocks) {
    // torchtitan's attention repeats the keys and values to every query head (repeat_kv) before calling
    // scaled_dot_product_attention, which context_parallel intercepts: its exchange carries heads/t x (d_qk +
    // d_v) per token, not the kv heads' (pytorch/torchtitan torchtitan/models/llama/model.py
    // Attention.forward, read).
    const double repeated = tokens * static_cast<double>(x.model.heads) / c.tp *
                            (x.model.qk_head_dim() + x.model.v_head_dim()) * kActivationBytes;
    context_exchange_blocks(x, tokens, std::max(chunk_bytes, repeated), pass);
    return;
  }
  if (c.context_exchange == ContextExchange::ring) {
    // c - 1 steps; each passes a chunk to the next rank while the current block is computed (the block is
    // 1/c of the layer's attention). A ring whose group spans nodes has a hop over the NICs, which sets the
    // pace of every step.
    const CollectiveGroup& g = x.groups.context;
    const CollectiveGroup hop{2, g.ranks_per_node >= g.ranks ? 2 : 1, g.ranks_per_domain >= g.ranks ? 2 : 1};
    const double forward_hop = x.collective_s(CollectiveOp::sendrecv, chunk_bytes, hop);
    const double backward_hop = x.collective_s(CollectiveOp::sendrecv, 2 * chunk_bytes, hop);
    pass.context_comm = (cp - 1) * std::max(0.0, forward_hop - pass.attention / cp);
    pass.context_comm_backward = (cp - 1) * std::max(0.0, backward_hop - pass.attention_backward / cp);
    return;
  }
  // All-gather of every rank's chunk before the blocks that need it, hidden only by the local block.
  const double gathered = cp * chunk_bytes;
  const double gather = x.collective_s(CollectiveOp::all_gather, gathered, x.groups.context);
  const double scatter = x.collective_s(CollectiveOp::reduce_scatter, gathered, x.groups.context);
  pass.context_comm = std::max(0.0, gather - pass.attention / cp);
  pass.context_comm_backward = std::max(0.0, gather + scatter - pass.attention_backward / cp);
}

// The flex dispatcher's deduplication (expert_dispatch_dedup: Megatron's HybridEP / DeepEP backends): a token
// is sent once to each destination that holds any of its top-k experts, where the alltoall dispatcher sends one
// copy per routed expert (MoEAlltoAllTokenDispatcher permutes the tokens by expert before its all-to-all).
// Inside one NVLink domain the destination is the rank (DeepEP's dispatch layout marks a token once per rank,
// is_token_in_rank; HybridEP's routing map is [tokens, ranks, local experts], one row per rank, and its combine
// returns one sum per token and rank); across nodes it is the node, the token crossing the NICs once and fanned
// out over NVLink there (DeepSeek-V3 technical report, Section 3.2.2: IB to the same-index GPU of the target
// node, then NVLink). With the experts spread evenly over the group's n destinations (E / n each) and the top-k
// drawn without repeats, a given destination holds none of a token's k experts with probability
// C(E - E/n, k) / C(E, k); the copies that leave a GPU (or cross its node's NICs) per token are
// (n - 1) (1 - that) against k (n - 1) / n. Returned: their ratio, the share of the dispatch bytes left (1
// without the flex dispatcher). Across nodes the fan-out inside the node runs on NVLink and is not counted.
double dispatch_dedup_factor(const TransformerModel& m, const TrainingConfig& c,
                             const CollectiveGroup& group) {
  if (!c.expert_dispatch_dedup || group.ranks <= 1) return 1;
  const bool one_domain = group.ranks_per_domain >= group.ranks;
  const double destinations =
      one_domain ? group.ranks
                 : std::ceil(static_cast<double>(group.ranks) / std::max(1, group.ranks_per_node));
  const double experts = m.moe.experts, k = m.moe.experts_per_token;
  if (destinations <= 1 || k <= 0 || experts <= k) return 1;
  const double elsewhere = experts - experts / destinations;  // experts not on a given destination
  double none_there = 1;                                      // C(elsewhere, k) / C(E, k)
  for (int i = 0; i < static_cast<int>(k); ++i) none_there *= std::max(0.0, elsewhere - i) / (experts - i);
  const double deduplicated = (destinations - 1) * (1 - none_there);
  const double per_copy = k * (destinations - 1) / destinations;
  return std::min(1.0, deduplicated / per_copy);
}

// The all-to-all buffer of one MoE layer's dispatch on one GPU and pass (the combine returns as much): each
// of the micro-batch's tokens x top-k routed rows (x the load imbalance) as a bf16 hidden vector split over
// the tensor-parallel ranks, scaled by the flex dispatcher's deduplication.
double dispatch_bytes(const TransformerModel& m, const TrainingConfig& c, const CollectiveGroup& expert) {
  const double tokens = static_cast<double>(c.micro_batch) * c.sequence / c.cp;
  const double routed_rows = tokens * m.moe.experts_per_token * c.expert_load_imbalance;
  return routed_rows * m.hidden * kActivationBytes / c.tp * dispatch_dedup_factor(m, c, expert);
}

// One layer's tensor-parallel collectives of one pass, each of the layer's output (`layer_output_bytes`).
void tensor_collectives(const Context& x, double layer_output_bytes, TensorParallelLayer& tensor) {
  const TrainingConfig& c = x.config;
  tensor.group_size = c.tp;
  tensor.sequence_parallel = c.sequence_parallel && c.tp > 1;
  if (!tensor.sequence_parallel) {
    tensor.all_reduce = x.collective_s(CollectiveOp::all_reduce, layer_output_bytes, x.groups.tensor);
    return;
  }
  tensor.all_gather = x.collective_s(CollectiveOp::all_gather, layer_output_bytes, x.groups.tensor);
  tensor.reduce_scatter = x.collective_s(CollectiveOp::reduce_scatter, layer_output_bytes, x.groups.tensor);
  // The fused reduce-scatter's reduction reads the tp stacked partials (the whole tokens x h output) and
  // writes the rank's 1/tp of it (torch/distributed/_symmetric_memory _fused_matmul_reduce_scatter_impl:
  // reduce_fn over stacked_partials after _pipelined_produce_and_all2all); the fused all-gather first copies
  // the local shard (1/tp of the output) into the symmetric buffer, read and written
  // (_pipelined_multi_all_gather_and_consume: copy_shard to local_p2p_bufs, then a barrier, before the first
  // shard_consumer).
  tensor.partial_sums = (1.0 + 1.0 / c.tp) * layer_output_bytes / x.memory_bandwidth;
  tensor.shard_copy = 2.0 / c.tp * layer_output_bytes / x.memory_bandwidth;
}

// PyTorch eager mode: each elementwise op of the block its own kernel (data/perf/pytorch-eager-ops.yaml, read
// in torchtitan's model code). The fused count (`elementwise`) stands for the compiled block; eager adds the
// ops' traffic beyond torch.compile's fused regions. Under torchtitan's per-op SAC every elementwise op is
// recomputed in the backward (only matmuls and attention are saved): eager runs their forward again, the
// compiled backward folds the recomputation into its fused kernels (not counted).
void eager_elementwise(const Context& x, double tokens, LayerPass& pass) {
  const EagerOpTable& table = x.calibration.eager_ops;
  const BlockTraffic eager = block_traffic(table.eager_ops, x.model, x.config);
  const BlockTraffic fused = block_traffic(table.fused_regions, x.model, x.config);
  pass.unfused = tokens * std::max(0.0, eager.forward - fused.forward) / x.memory_bandwidth;
  pass.unfused_backward = tokens * std::max(0.0, eager.backward - fused.backward) / x.memory_bandwidth;
  if (x.config.recompute == Recompute::op_sac)
    pass.unfused_recompute = tokens * eager.forward / x.memory_bandwidth;
}

// One layer's pass with its GEMMs on `d` (the config's precision, or bf16 for the layers a recipe keeps in
// bf16).
LayerPass forward_pass(const Context& x, const GemmDevice& d) {
  const TrainingConfig& c = x.config;
  const TransformerModel& m = x.model;
  const double tokens = static_cast<double>(c.micro_batch) * c.sequence / c.cp;
  LayerPass pass;
  TensorParallelGemms& named = pass.tensor.gemms;
  // One GEMM's forward, dgrad and wgrad, `weight` of them, counted in the pass and under its name.
  auto count_gemm = [&](GemmTimes& name, double weight, double forward, double dgrad, double wgrad) {
    name.forward += weight * forward;
    name.dgrad += weight * dgrad;
    name.wgrad += weight * wgrad;
    pass.matrices += weight * forward;
    pass.matrices_backward += weight * (dgrad + wgrad);
  };
  // `count` GEMMs of `rows` rows each per gemm in `gemms` (each under the name beside it), weighted by the
  // share of layers that have them.
  auto add = [&](const std::vector<LayerGemm>& gemms, std::vector<GemmTimes*> names, double rows,
                 double count, double share) {
    if (share <= 0 || rows <= 0) return;
    for (std::size_t i = 0; i < gemms.size(); ++i) {
      const LayerGemm& g = gemms[i];
      count_gemm(*names[i], share * count, d.gemm_s(rows, g.n, g.k), d.gemm_s(rows, g.k, g.n),
                 d.gemm_s(g.k, g.n, rows));
      if (d.quantised) {
        // Activations and output gradients are cast every micro-batch; the weight once per step (Transformer
        // Engine keeps the cast weight for the step's later micro-batches: is_first_microbatch).
        const double weights_per_micro_batch = g.k * g.n / std::max(1, c.micro_batches());
        const double elements = rows * g.k + weights_per_micro_batch + rows * g.n;
        pass.casts += share * count * d.cast_bytes_per_element * elements / x.memory_bandwidth;
      }
    }
  };
  add(attention_gemms(m, c.tp), {&named.qkv, &named.proj}, tokens, 1, 1);
  {
    // torchtitan's per-op SAC recomputes every second aten.mm of a block: of wq, wk, wv, wo, w1, w3, w2
    // (Llama, gated) wk, wo and w3; of wq, wk, wv, wo, w1, w2 wk, wo and w2. Dense MLPs only (grouped expert
    // GEMMs are not aten.mm).
    const double t = c.tp, h = m.hidden, f = m.ffn_hidden;
    const double k_width = std::max(1.0, static_cast<double>(m.kv_heads) / t) * m.qk_head_dim();
    const double o_width = static_cast<double>(m.heads) * m.v_head_dim() / t;
    const double dense_share = m.is_moe() ? static_cast<double>(m.dense_layer_count()) / m.layers : 1.0;
    pass.every_second_matrix =
        d.gemm_s(tokens, k_width, h) + d.gemm_s(tokens, h, o_width) +
        dense_share * (m.gated_mlp ? d.gemm_s(tokens, f / t, h) : d.gemm_s(tokens, h, f / t));
  }
  const double moe_share = m.is_moe() ? static_cast<double>(m.moe_layer_count()) / m.layers : 0;
  add(mlp_gemms(m, m.ffn_hidden, c.tp), {&named.fc1, &named.fc2}, tokens, 1, 1 - moe_share);
  if (m.is_moe()) {
    // Grouped GEMMs: the GPU's experts/ep experts share the tokens x top-k routed rows of its EP group's
    // tokens (balanced: tokens x top-k per GPU), the busiest GPU expert_load_imbalance times that.
    const double local_experts = std::max(1.0, static_cast<double>(m.moe.experts) / c.ep);
    const double routed_rows = tokens * m.moe.experts_per_token * c.expert_load_imbalance;
    const double expert_rows = routed_rows / local_experts;
    const std::vector<LayerGemm> expert_gemms = mlp_gemms(m, m.moe.expert_ffn_hidden, c.tp);
    const std::vector<GemmTimes*> expert_names = {&named.fc1, &named.fc2};
    for (std::size_t i = 0; i < expert_gemms.size(); ++i) {
      const LayerGemm& g = expert_gemms[i];
      // One grouped kernel per GEMM and pass over the local experts (tile and wave quantisation).
      const double forward = d.grouped_gemm_s(local_experts, expert_rows, g.n, g.k);
      const double dgrad = d.grouped_gemm_s(local_experts, expert_rows, g.k, g.n);
      const double wgrad = d.grouped_gemm_s(local_experts, g.k, g.n, expert_rows);
      count_gemm(*expert_names[i], moe_share, forward, dgrad, wgrad);
      pass.expert_matrices += moe_share * forward;
      pass.expert_matrices_backward += moe_share * (dgrad + wgrad);
      if (d.quantised) {
        const double weights_per_micro_batch = local_experts * g.k * g.n / std::max(1, c.micro_batches());
        const double elements = routed_rows * (g.k + g.n) + weights_per_micro_batch;
        pass.casts += moe_share * d.cast_bytes_per_element * elements / x.memory_bandwidth;
      }
    }
    // Token permutation (Megatron moe_permute / moe_unpermute): the GPU's tokens' hidden vectors read and
    // their top-k routed copies written in expert order, and back (read the copies, write the weighted sum);
    // the router's fp32 logits and probabilities written and read once.
    const double permute_bytes = 2 * (tokens + routed_rows) * m.hidden * kActivationBytes +
                                 2 * tokens * static_cast<double>(m.moe.experts) * kRouterBytes;
    pass.permute = moe_share * permute_bytes / x.memory_bandwidth;
    if (m.biases) {
      // fc2's bias, scaled by each row's routing probability, added expert by expert in eager PyTorch
      // (Megatron's TEGroupedMLP._apply_bias): every routed row's hidden vector moved a few times.
      const double elements = moe_share * routed_rows * m.hidden / x.memory_bandwidth;
      pass.expert_bias = x.calibration.expert_bias_forward_bytes * elements;
      pass.expert_bias_backward = x.calibration.expert_bias_backward_bytes * elements;
    }
    if (m.moe.shared_experts > 0)
      add(mlp_gemms(m, static_cast<double>(m.moe.shared_experts) * m.moe.shared_expert_ffn_hidden, c.tp),
          {&named.fc1, &named.fc2}, tokens, 1, moe_share);
    add({{static_cast<double>(m.hidden), static_cast<double>(m.moe.experts)}}, {&named.fc1}, tokens, 1,
        moe_share);  // router
    // Dispatch and combine: each routed token's hidden vector (bf16) to its expert's GPU and back.
    const double routed_bytes = dispatch_bytes(m, c, x.groups.expert);
    pass.expert_comm = moe_share * 2 * x.collective_s(CollectiveOp::alltoall, routed_bytes, x.groups.expert);
  }
  const double attention_flops = tokens * attention_flops_per_token(m, c.sequence) / c.tp;
  if (c.attention == Attention::flash) {
    // With context parallelism the kernels run on blocks of s / c queries and keys; of the c blocks a rank
    // computes per layer (load-balanced causal ring, as Megatron and PyTorch split the sequence) one carries
    // the causal mask.
    const double chunk = static_cast<double>(c.sequence) / c.cp, masked_share = 1.0 / c.cp;
    pass.attention = d.attention_forward_s(0.5 * attention_flops, chunk, masked_share);
    pass.attention_backward = d.attention_backward_s(0.5 * attention_flops, chunk, masked_share);
  } else {  // unfused kernels: the whole square, as two batched bf16 GEMMs, backward twice the forward
    pass.attention = attention_flops / (d.bf16_peak_flops * d.peak_fraction);
    pass.attention_backward = 2 * pass.attention;
  }
  TrainingConfig stored = c;
  stored.recompute = Recompute::none;
  double activations = activation_bytes_per_layer(m, stored);
  if (m.is_moe()) {
    // Korthikanti's MLP activations (8 f / h per token when gated) on a MoE layer are those of the routed
    // rows: top-k experts of expert_ffn_hidden each (x the load imbalance on the busiest GPU) plus the shared
    // experts, not the dense ffn_hidden.
    TransformerModel routed = m;
    routed.ffn_hidden = static_cast<int>(
        std::lround(m.moe.experts_per_token * c.expert_load_imbalance * m.moe.expert_ffn_hidden +
                    static_cast<double>(m.moe.shared_experts) * m.moe.shared_expert_ffn_hidden));
    const double moe_share = static_cast<double>(m.moe_layer_count()) / m.layers;
    activations = (1 - moe_share) * activations + moe_share * activation_bytes_per_layer(routed, stored);
  }
  pass.elementwise = x.elementwise_s(activations);
  if (!c.compiled) eager_elementwise(x, tokens, pass);
  if (c.attention == Attention::unfused) {
    const double s = static_cast<double>(c.sequence) / c.cp;
    const double scores = 5.0 * m.heads * s * s * c.micro_batch / c.tp;  // Korthikanti's 5 a s^2 b
    pass.score_elementwise = x.elementwise_s(scores);
  }
  tensor_collectives(x, tokens * m.hidden * kActivationBytes, pass.tensor);
  if (m.is_moe() && moe_share > 0) {
    // The host wait: one host-device synchronisation per MoE layer in every forward pass (Megatron's
    // dispatcher needs the token counts on the host for the all-to-all splits and the grouped GEMM's
    // m_splits), none in the backward (the all-to-all's backward reuses the split sizes the forward kept on
    // the host, the grouped GEMM's backward its m_splits). A recomputed forward synchronises again
    // (LayerPass::forward()).
    pass.host_wait = moe_share * (c.moe_cuda_graphs ? x.calibration.moe_layer_host_graphed_s
                                                    : x.calibration.moe_layer_host_s);
  }
  if (c.cp > 1) context_exchange(x, tokens, pass);
  return pass;
}

// The parts compute + recompute are made of, for the per-term breakdown (TrainingEstimate::compute_parts).
struct ComputeParts {
  double dense_gemm = 0, expert_gemm = 0, attention = 0, elementwise = 0, casts = 0, permute = 0, host = 0,
         output = 0;
  // One layer pass's parts, `times` of them (forward: the pass as LayerPass::forward() counts it).
  void add_forward(const LayerPass& p, double times);
};

void ComputeParts::add_forward(const LayerPass& p, double times) {
  dense_gemm += times * (p.matrices - p.expert_matrices);
  expert_gemm += times * p.expert_matrices;
  attention += times * (p.attention + p.context_merge);
  elementwise += times * (p.elementwise + p.unfused + p.expert_bias);
  permute += times * p.permute;
  host += times * p.host_wait;
}

struct StageTimes {
  double compute = 0, recompute = 0, tensor_comm = 0, context_comm = 0, pipeline_comm = 0, expert_comm = 0;
  ComputeParts parts;    // compute + recompute split by kind (adds up to them)
  double attention = 0;  // the attention kernels' part of compute + recompute (not added to total())
  double backward = 0;   // the backward share of compute + recompute + communication (for DP overlap)
  [[nodiscard]] double total() const {
    return compute + recompute + tensor_comm + context_comm + pipeline_comm + expert_comm;
  }
};

// The overlap rule of the config: Transformer Engine's userbuffers (Megatron) or PyTorch's fused ops
// (perf/tp_overlap.hpp pairs each collective with its GEMM).
TensorParallelOverlap tensor_overlap(const TrainingConfig& c) {
  if (!c.tp_comm_overlap) return TensorParallelOverlap::none;
  return c.tp_comm_micro_pipelined ? TensorParallelOverlap::micro_pipelined
                                   : TensorParallelOverlap::userbuffers;
}

// What pipeline rank `rank` runs per micro-batch: its transformer layers (of them, how many a low-precision
// recipe keeps in bf16) and, on the last rank, the output layer and the loss.
struct RankLoad {
  double layers = 0, bf16_layers = 0;
  bool output_layer = false;
  bool operator==(const RankLoad&) const = default;
};

RankLoad rank_load(const TransformerModel& m, const TrainingConfig& c, int rank) {
  RankLoad load;
  load.layers = layers_on_rank(m, c, rank);
  load.output_layer = rank == c.pp - 1;
  // The first layers sit on rank 0 (its first chunk), the last ones on the last rank (its last chunk).
  double bf16 = 0;
  if (rank == 0) bf16 += std::min<double>(c.bf16_layers_at_start, load.layers);
  if (rank == c.pp - 1) bf16 += std::min<double>(c.bf16_layers_at_end, load.layers);
  load.bf16_layers = std::min(bf16, load.layers);
  return load;
}

// One micro-batch through pipeline rank `load`, forward and backward, with the recomputation the config asks
// for.
StageTimes stage_times(const Context& x, const LayerPass& f, const LayerPass& f_bf16, const RankLoad& load) {
  const TrainingConfig& c = x.config;
  StageTimes t;
  // Per-layer terms of a pass, the low-precision layers and the bf16 ones weighted by their counts.
  const double quantised = load.layers - load.bf16_layers, bf16 = load.bf16_layers;
  auto sum = [&](auto term) { return quantised * term(f) + bf16 * term(f_bf16); };
  t.compute = sum([](const LayerPass& p) {
    const double backward = p.matrices_backward + p.attention_backward + p.context_merge_backward +
                            2 * p.elementwise + p.unfused_backward + p.permute + p.expert_bias_backward;
    return p.forward() + backward + p.casts;
  });
  // The same compute and the recomputation below, by kind.
  auto parts = [&](auto add) {
    add(f, quantised);
    add(f_bf16, bf16);
  };
  parts([&](const LayerPass& p, double n) {
    t.parts.add_forward(p, n);
    t.parts.dense_gemm += n * (p.matrices_backward - p.expert_matrices_backward);
    t.parts.expert_gemm += n * p.expert_matrices_backward;
    t.parts.attention += n * (p.attention_backward + p.context_merge_backward);
    t.parts.elementwise += n * (2 * p.elementwise + p.unfused_backward + p.expert_bias_backward);
    t.parts.permute += n * p.permute;
    t.parts.casts += n * p.casts;
  });
  const TensorParallelOverlap overlap = tensor_overlap(c);
  const TensorParallelOverlapRules rules{
      x.calibration.userbuffers_pipeline_splits,
      c.precision != "bf16" && x.calibration.userbuffers_low_precision_ring_exchange};
  const auto forward_tensor = [&](const LayerPass& p) {
    return exposed_forward_tensor_comm(overlap, p.tensor, rules);
  };
  t.tensor_comm = sum([&](const LayerPass& p) {
    return forward_tensor(p) + exposed_backward_tensor_comm(overlap, p.tensor);
  });
  // Gradients go back the same way (a forward and a backward pair per layer). With the overlap Megatron runs
  // one micro-batch's forward beside another's backward and hides each one's all-to-alls behind the other's
  // compute: only what exceeds a layer's forward + backward compute is exposed.
  t.expert_comm = sum([&](const LayerPass& p) {
    if (!c.expert_comm_overlap) return 2 * p.expert_comm;
    const double layer_compute = p.matrices + p.attention + p.elementwise + p.permute + p.expert_bias +
                                 p.matrices_backward + p.attention_backward + 2 * p.elementwise + p.permute +
                                 p.expert_bias_backward;
    return std::max(0.0, 2 * p.expert_comm - layer_compute);
  });
  t.context_comm = sum([](const LayerPass& p) { return p.context_comm + p.context_comm_backward; });
  t.attention = sum([](const LayerPass& p) {
    return p.attention + p.context_merge + p.attention_backward + p.context_merge_backward;
  });
  if (c.recompute == Recompute::full) {
    t.recompute = sum([](const LayerPass& p) { return p.forward(); });
    parts([&](const LayerPass& p, double n) { t.parts.add_forward(p, n); });
    t.attention += sum([](const LayerPass& p) { return p.attention + p.context_merge; });
    t.context_comm += sum([](const LayerPass& p) { return p.context_comm; });
    t.tensor_comm += sum(forward_tensor);
    t.expert_comm += sum([](const LayerPass& p) { return p.expert_comm; });
  } else if (c.recompute == Recompute::selective) {
    t.recompute = sum([](const LayerPass& p) { return p.attention + p.score_elementwise; });
    parts([&](const LayerPass& p, double n) {
      t.parts.attention += n * p.attention;
      t.parts.elementwise += n * p.score_elementwise;
    });
    t.attention += sum([](const LayerPass& p) { return p.attention; });
  } else if (c.recompute == Recompute::op_sac) {
    t.recompute = sum([](const LayerPass& p) { return p.every_second_matrix + p.unfused_recompute; });
    parts([&](const LayerPass& p, double n) {
      t.parts.dense_gemm += n * p.every_second_matrix;
      t.parts.elementwise += n * p.unfused_recompute;
    });
  }
  const double tokens = static_cast<double>(c.micro_batch) * c.sequence / c.cp;
  const double h = x.model.hidden, vocab = static_cast<double>(x.model.vocab) / c.tp;
  const GemmDevice& d = x.device;  // the output layer stays bf16 in the FP8 recipes (see perf-training.md)
  const double output_forward = load.output_layer ? d.bf16_gemm_s(tokens, vocab, h) : 0;
  if (load.output_layer) {
    t.parts.output = output_forward + d.bf16_gemm_s(tokens, h, vocab) + d.bf16_gemm_s(h, vocab, tokens);
    t.compute += t.parts.output;
  }
  if (c.pp > 1) {
    const double boundary_bytes = tokens * x.model.hidden * kActivationBytes / c.tp;  // scatter-gather over t
    const double one_way = x.collective_s(CollectiveOp::sendrecv, boundary_bytes, x.groups.pipeline);
    t.pipeline_comm = pipeline_schedule_of(c)->transfers_per_micro_batch(c.virtual_stages) * one_way;
  }
  const double forward = sum(
      [&](const LayerPass& p) { return p.forward() + forward_tensor(p) + p.expert_comm + p.context_comm; });
  t.backward = t.total() - forward - output_forward;
  return t;
}

// The pipeline runs at the pace of its slowest rank (the bubble and the steady phase both count in its stage
// times): every rank is timed with its own layers, the last with the output layer, and the slowest taken (the
// first of equals). A rank whose load an earlier rank had times the same, so it is not timed again: a
// pipeline has a few distinct loads (first, middle, last) whatever its stages.
StageTimes slowest_stage(const Context& x) {
  const LayerPass f = forward_pass(x, x.device);
  const bool bf16_layers = x.config.bf16_layers_at_start > 0 || x.config.bf16_layers_at_end > 0;
  const LayerPass f_bf16 = bf16_layers && x.device.quantised ? forward_pass(x, x.bf16_device) : f;
  StageTimes slowest;
  std::vector<RankLoad> timed;
  for (int rank = 0; rank < x.config.pp; ++rank) {
    const RankLoad load = rank_load(x.model, x.config, rank);
    if (std::find(timed.begin(), timed.end(), load) != timed.end()) continue;
    timed.push_back(load);
    const StageTimes t = stage_times(x, f, f_bf16, load);
    if (rank == 0 || t.total() > slowest.total()) slowest = t;
  }
  return slowest;
}

// Gradient reduction and, with a sharded optimizer, the weight all-gather, once per step.
struct DataParallelTimes {
  double per_step = 0;         // s, gradient reduction and weight all-gather once per step
  double per_micro_batch = 0;  // s, of one micro-batch: ZeRO-2's gradient reduce-scatter, ZeRO-3 / FSDP's
                               // weight re-gathers (forward + backward)
};

DataParallelTimes data_parallel_s(const Context& x, double parameters, double expert_parameters) {
  const TrainingConfig& c = x.config;
  DataParallelTimes t;
  // The dense parameters over the data-parallel group; the routed experts over the expert-data-parallel
  // group (Megatron's expert_data_parallel group: the ranks that hold the same experts). With expert
  // parallelism inside a node, that group has one rank per node and runs on the NICs alone.
  auto on = [&](CollectiveOp op, double count, double bytes_per_element, const CollectiveGroup& group) {
    if (group.ranks <= 1 || count <= 0) return 0.0;
    return x.collective_s(op, count * bytes_per_element, group);
  };
  auto both = [&](CollectiveOp op, double count, double bytes_per_element) {
    const double experts = c.ep > 1 || x.model.is_moe() ? expert_parameters : 0;
    return on(op, count - experts, bytes_per_element, x.groups.data) +
           on(op, experts, bytes_per_element, x.groups.expert_data);
  };
  const double gradients = c.gradient_bytes;
  if (c.zero == 0) {
    t.per_step = both(CollectiveOp::all_reduce, parameters, gradients);
  } else if (c.zero == 2) {
    // A gradient shard cannot accumulate the whole gradient: every micro-batch's gradient is reduce-scattered
    // after its backward pass (PyTorch FSDP without no_sync), the weights gathered once per step.
    t.per_micro_batch = both(CollectiveOp::reduce_scatter, parameters, gradients);
    t.per_step = both(CollectiveOp::all_gather, parameters, kWeightBytes);
  } else {
    t.per_step = both(CollectiveOp::reduce_scatter, parameters, gradients) +
                 both(CollectiveOp::all_gather, parameters, kWeightBytes);
  }
  if (c.zero == 3 && x.groups.data.ranks > 1) {
    // Weights gathered again for the forward and the backward pass of every micro-batch (ZeRO-3: 1.5x traffic
    // per pass, here per micro-batch as FSDP does without caching).
    const double weight_bytes = parameters * kWeightBytes;
    t.per_micro_batch = 2.0 * x.collective_s(CollectiveOp::all_gather, weight_bytes, x.groups.data);
  }
  return t;
}

// Adam reads and writes the fp32 state (12 bytes each way), reads the gradient and writes the bf16 weights.
double optimizer_s(const Context& x, double parameters) {
  const TrainingConfig& c = x.config;
  const double shards = c.zero >= 1 ? static_cast<double>(c.dp) * c.cp : 1.0;
  const double bytes = parameters / shards * (2 * kOptimizerStateBytes + c.gradient_bytes + kWeightBytes);
  return bytes / x.memory_bandwidth;
}

TimeTerm term(std::string name, double seconds, std::string rule) {
  return TimeTerm{std::move(name), seconds, std::move(rule)};
}

TrainingCalibration read_calibration(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"elementwise_traffic", "userbuffers_reduce_scatter", "moe_layer_host_s",
                    "moe_layer_host_graphed_s", "moe_expert_output_bias", "gemm_model", "pytorch_eager_ops",
                    "source", "notes"});
  TrainingCalibration calibration;
  calibration.elementwise_traffic = root.child("elementwise_traffic").number();
  if (calibration.elementwise_traffic < 0) root.child("elementwise_traffic").fail("must not be negative");
  {
    const YamlField scatter = root.child("userbuffers_reduce_scatter");
    scatter.expect_keys({"pipeline_splits", "low_precision_ring_exchange", "source"});
    calibration.userbuffers_pipeline_splits = scatter.child("pipeline_splits").number();
    if (calibration.userbuffers_pipeline_splits < 1)
      scatter.child("pipeline_splits").fail("must be at least 1");
    calibration.userbuffers_low_precision_ring_exchange =
        scatter.child("low_precision_ring_exchange").boolean();
    (void)scatter.child("source").text_or_list();  // required: where the settings were read
  }
  // A fitted host wait: {value, source}, not negative.
  auto host_wait = [&](const char* key, double& seconds) {
    if (const auto host = root.optional_child(key)) {
      host->expect_keys({"value", "source"});
      seconds = host->child("value").number();
      if (seconds < 0) host->child("value").fail("must not be negative");
      (void)host->child("source").text_or_list();  // required: how it was fitted
    }
  };
  host_wait("moe_layer_host_s", calibration.moe_layer_host_s);
  host_wait("moe_layer_host_graphed_s", calibration.moe_layer_host_graphed_s);
  if (const auto bias = root.optional_child("moe_expert_output_bias")) {
    bias->expect_keys({"forward_bytes_per_element", "backward_bytes_per_element", "source"});
    const auto bytes = [&](const char* key, double& value) {
      value = bias->child(key).number();
      if (value < 0) bias->child(key).fail("must not be negative");
    };
    bytes("forward_bytes_per_element", calibration.expert_bias_forward_bytes);
    bytes("backward_bytes_per_element", calibration.expert_bias_backward_bytes);
    (void)bias->child("source").text_or_list();  // required: where the byte count was read
  }
  calibration.source = root.child("source").text_or_list();
  const YamlField gemm_file = root.child("gemm_model");
  const std::string folder = path.find('/') == std::string::npos ? "" : path.substr(0, path.rfind('/') + 1);
  auto gemm = load_gemm_model(folder + gemm_file.text());
  if (!gemm.ok()) throw InputFailure(gemm.errors().front());
  calibration.gemm = std::move(gemm).value();
  auto eager = load_eager_op_table(folder + root.child("pytorch_eager_ops").text());
  if (!eager.ok()) throw InputFailure(eager.errors().front());
  calibration.eager_ops = std::move(eager).value();
  return calibration;
}

}  // namespace

Result<TrainingCalibration> load_training_calibration(const std::string& path) {
  return result_of<TrainingCalibration>([&] { return read_calibration(path); });
}

double training_flops_per_step(const TransformerModel& model, const TrainingConfig& config,
                               bool with_recompute) {
  const double tokens = static_cast<double>(config.global_batch) * config.sequence;
  const double attention = model.attention_score_flops_per_token(config.sequence);
  const double forward_layers = tokens * (model.forward_matrix_flops_per_token() + attention);
  const double output_layer = tokens * model.output_layer_flops_per_token();
  double flops = 3 * (forward_layers + output_layer);
  if (with_recompute && config.recompute == Recompute::full) flops += forward_layers;
  if (with_recompute && config.recompute == Recompute::selective) flops += tokens * attention;
  return flops;
}

double expert_dispatch_bytes(const PerfHardware& hardware, const TransformerModel& model,
                             const TrainingConfig& config) {
  if (!model.is_moe() || config.ep <= 1) return 0;
  return dispatch_bytes(model, config, groups_of(hardware, config).expert);
}

TrainingEstimate estimate_training(const PerfHardware& hardware, const CollectiveModel& collectives,
                                   const TrainingCalibration& calibration, const TransformerModel& model,
                                   const TrainingConfig& config) {
  auto device = calibration.gemm.device(hardware.accelerator, config.precision, config.attention_kernel);
  TrainingEstimate e;
  e.config = config;
  e.memory = training_memory(model, config, hardware.accelerator.memory);
  if (!device.ok()) {  // an architecture with no known GEMM fraction, or a precision it lacks: no estimate
    e.efficiency_rule = device.error_text();
    e.step_time_s = std::numeric_limits<double>::infinity();
    return e;
  }
  Context x{hardware,       collectives,   calibration, model, config, groups_of(hardware, config),
            device.value(), device.value()};
  if (x.device.quantised) {
    auto bf16 = calibration.gemm.device(hardware.accelerator, "bf16", config.attention_kernel);
    if (bf16.ok()) x.bf16_device = std::move(bf16).value();
  }
  // The attention kernels run at the model's query/key head dimension (the kernel tables by head dimension).
  x.device.attention_head_dim = x.bf16_device.attention_head_dim = model.qk_head_dim();
  x.memory_bandwidth = x.device.memory_bytes_per_s;
  e.peak_flops_per_gpu = x.device.peak_flops;
  // A recipe whose quantised GEMM kernels are slower than the per-tensor-scaled ones (row-wise FP8): their
  // rate scaled (MFU still counts against the datasheet peak above).
  if (x.device.quantised) x.device.peak_flops *= config.gemm_rate;
  // Current scaling's amax pass before every cast costs more than delayed scaling's fused cast.
  if (const auto bytes = calibration.gemm.scaling_cast_bytes(config.fp8_scaling); bytes && x.device.quantised)
    x.device.cast_bytes_per_element = *bytes;
  e.efficiency_rule =
      fmt::format("{} ({}): GEMMs at {:.3f} of the {} peak plus operand traffic at memory bandwidth",
                  x.device.architecture, hardware.accelerator.info.id,
                  x.device.peak_fraction * x.device.precision_rate, x.device.precision);
  e.attention_rule =
      x.device.attention_kernel
          ? fmt::format("{} {} kernel: published TFLOP/s by sequence length, bf16", x.device.architecture,
                        x.device.attention_kernel->name)
          : fmt::format("no kernel table for {}: bf16 at the GEMM fraction, diagonal tiles whole",
                        x.device.architecture);
  const StageTimes stage = slowest_stage(x);
  const double m = config.micro_batches();
  const double bubble_stages = pipeline_schedule_of(config)->bubble_stage_times(
      config.pp, config.virtual_stages, config.micro_batches());
  const double steady = m / (m + bubble_stages);  // share of the pipeline time that is not bubble
  const double pipeline_s = (m + bubble_stages) * stage.total();
  const DataParallelTimes dp =
      data_parallel_s(x, e.memory.parameters_per_gpu, expert_parameters_per_gpu(model, config));
  // With overlap, the step's reduction hides behind the last backward pass and FSDP's per-layer gathers are
  // prefetched behind the micro-batch's own compute (what is left of them is exposed).
  const double dp_exposed = config.overlap_data_parallel
                                ? std::max(0.0, dp.per_step - stage.backward) +
                                      m * std::max(0.0, dp.per_micro_batch - stage.total())
                                : dp.per_step + m * dp.per_micro_batch;

  e.terms = {
      term(
          "compute", m * stage.compute,
          "every GEMM by shape (gemm_model), flash attention, casts, elementwise traffic / memory bandwidth"),
      term("recompute", m * stage.recompute,
           std::string("recompute = ") + std::string(recompute_name(config.recompute))),
      term("tensor-parallel communication", m * stage.tensor_comm,
           config.tp_comm_overlap
               ? (config.tp_comm_micro_pipelined
                      ? "PyTorch async TP: each fused all-gather / reduce-scatter not hidden by its own "
                        "matmul (one chunk per rank), the fused reduce-scatters' partial sums and shard "
                        "copies, the backward's unfused reduce-scatters"
                      : "Transformer Engine userbuffers: each collective not hidden by the GEMM it is paired "
                        "with (ring-exchange all-gathers, pipelined forward reduce-scatters, bulk backward "
                        "reduce-scatters beside wgrad)")
               : "NCCL collectives on the tensor-parallel group"),
      term(
          "context-parallel communication", m * stage.context_comm,
          config.context_exchange == ContextExchange::ring
              ? "ring attention: key/value (backward: and gradient) hops not hidden by each block's attention"
          : config.context_exchange == ContextExchange::all_gather
              ? "key/value all-gather (backward: + gradient reduce-scatter) not hidden by the local block"
              : "PyTorch context_parallel: key/value all-gather not hidden by the local block (backward: "
                "again, "
                "+ fp32 dK/dV passed on after each block, the last exposed)"),
      term("expert-parallel all-to-all", m * stage.expert_comm,
           config.expert_comm_overlap
               ? "MoE dispatch + combine over the expert-parallel group not hidden by another micro-batch's "
                 "compute"
               : "MoE dispatch + combine over the expert-parallel group (collective model)"),
      term("pipeline communication", m * stage.pipeline_comm,
           "send + receive per micro-batch and model chunk"),
      term("pipeline bubble", pipeline_s * (1 - steady), "(p - 1) / (v m) of the pipeline time"),
      term("data-parallel communication", dp_exposed,
           std::string(config.zero == 0 ? "gradient all-reduce"
                                        : "gradient reduce-scatter + weight all-gather") +
               (model.is_moe() ? " (routed experts over the expert-data-parallel group)" : "")),
      term("optimizer", optimizer_s(x, e.memory.parameters_per_gpu),
           "Adam state read and written at memory bandwidth"),
  };
  for (const auto& t : e.terms) e.step_time_s += t.seconds;
  // The compute and recompute terms by kind (the steady phase, m micro-batches; the bubble is its own term).
  const ComputeParts& p = stage.parts;
  e.compute_parts = {
      term("dense GEMMs", m * p.dense_gemm, "attention projections, dense MLPs, shared experts, router"),
      term("grouped expert GEMMs", m * p.expert_gemm,
           "routed experts: one grouped kernel per GEMM and pass, tile and wave quantised"),
      term("attention kernels", m * p.attention, e.attention_rule),
      term("elementwise traffic", m * p.elementwise,
           std::string(config.compiled ? "stored activations at memory bandwidth"
                                       : "stored activations at memory bandwidth + PyTorch eager ops beyond "
                                         "the fused regions (pytorch-eager-ops.yaml)") +
               (model.is_moe() && model.biases ? " + the experts' output bias (eager, Megatron _apply_bias)"
                                               : "")),
      term("casts", m * p.casts, "quantising GEMM operands at memory bandwidth"),
      term("MoE permute / unpermute", m * p.permute,
           "token permutation and router traffic at memory bandwidth"),
      term("MoE host wait", m * p.host, "GPU idle while the host synchronises on the MoE dispatch"),
      term("output layer", m * p.output, "logits GEMMs in bf16, forward and backward"),
  };
  if (stage.total() > 0)
    e.attention_s = m * stage.attention + pipeline_s * (1 - steady) * stage.attention / stage.total();
  const double gpus = config.gpus();
  e.tokens_per_second = static_cast<double>(config.global_batch) * config.sequence / e.step_time_s;
  e.model_flops_per_step = training_flops_per_step(model, config, false);
  e.hardware_flops_per_step = training_flops_per_step(model, config, true);
  e.mfu = e.model_flops_per_step / (e.step_time_s * gpus * e.peak_flops_per_gpu);
  e.hfu = e.hardware_flops_per_step / (e.step_time_s * gpus * e.peak_flops_per_gpu);
  return e;
}

}  // namespace gputwin
