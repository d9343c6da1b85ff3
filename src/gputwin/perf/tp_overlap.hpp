#pragma once
// Tensor-parallel communication of one transformer layer, exposed: each collective hidden only behind the
// GEMM its framework pairs it with, not behind the pass's GEMMs pooled.
//
// With sequence parallelism a layer's forward all-gathers its input before the attention's input projection
// (qkv) and again before the MLP's (fc1), and reduce-scatters the outputs of the attention's output
// projection (proj) and the MLP's down projection (fc2); the backward runs the transposes (all-gathers of the
// output gradients before proj's and fc2's dgrad, reduce-scatters of the input gradients after qkv's and
// fc1's). Without sequence parallelism each block all-reduces instead.
//
// Two frameworks overlap them (TrainingConfig::tp_comm_overlap; both need sequence parallelism, all-reduces
// stay whole: Megatron refuses --tp-comm-overlap without --sequence-parallel, PyTorch's pass fuses no
// all-reduce):
// - Transformer Engine's userbuffers (Megatron --tp-comm-overlap; transformer_engine/pytorch/module/base.py
//   initialize_ub, read): qkv_fprop and fc1_fprop all-gather by ring exchange, one chunk per rank, consuming
//   the local chunk first; proj_fprop and fc2_fprop reduce-scatter by "pipeline" in num_splits chunks, each
//   chunk's reduce-scatter after its GEMM chunk (TE's default; Megatron-Bridge's per-model configs run them
//   by ring exchange in their FP8 recipes: training-model.yaml); proj_dgrad and fc2_dgrad all-gather the
//   output gradient by ring exchange; qkv_wgrad and fc1_wgrad reduce-scatter the input gradient "bulk", the
//   whole collective beside the whole weight-gradient GEMM.
// - PyTorch's async TP (tp_comm_micro_pipelined; torch/_inductor/fx_passes/micro_pipeline_tp.py and
//   torch/distributed/_symmetric_memory/__init__.py, read): fused_all_gather_matmul pipelines one chunk per
//   rank over two streams; it first copies the local shard into the symmetric buffer and waits on a barrier
//   (not overlapped, by the code's own comment), consumes the local shard, then copies each remote shard and
//   consumes it, so the last remote chunk's matmul runs after the last copy. fused_matmul_reduce_scatter
//   produces the remote ranks' chunks first, each pulled by its rank after a barrier, the local chunk last,
//   so the first chunk's matmul runs before any copy; it then sums the stacked partials in a kernel of its
//   own. Forward: all four collectives fused with their matmuls. Backward: the output-gradient all-gathers
//   fused with proj's and fc2's dgrad (the matmuls that take them as left operand); the input-gradient
//   reduce-scatters are fed by an add of several dgrads, which the pass does not fuse: exposed whole.
//
// A collective of time C chunked over k chunks against its matmul M (k matmul chunks, k - 1 transfers on one
// link, matmuls one at a time) exposes max(0, C - (k - 1)/k M): one chunk's matmul cannot hide a transfer.
// A "pipeline" reduce-scatter in n splits exposes C/n + (n - 1)/n max(0, C - M): the last split's
// reduce-scatter runs after the last GEMM split. A bulk overlap exposes max(0, C - M). The transfers are
// timed by the collective model (NCCL's algorithm on the group's placement) for both frameworks' copy
// kernels, and the SMs the userbuffers kernels take from the GEMM are not counted.

namespace gputwin {

// One weight GEMM of a layer pass on one GPU, in seconds: forward, and the backward's data and weight
// gradient.
struct GemmTimes {
  double forward = 0, dgrad = 0, wgrad = 0;
  [[nodiscard]] double backward() const { return dgrad + wgrad; }
};

// A layer's tensor-parallel GEMMs by the names Transformer Engine's userbuffers give them: the attention's
// input (qkv) and output (proj) projections, the MLP's input (fc1: up and gate; a MoE layer's routed and
// shared experts' up projections and the router) and output (fc2: down) projections.
struct TensorParallelGemms {
  GemmTimes qkv, proj, fc1, fc2;
};

// How a layer's tensor-parallel collectives run beside its GEMMs.
enum class TensorParallelOverlap {
  none,             // every collective exposed
  userbuffers,      // Transformer Engine's userbuffers (Megatron --tp-comm-overlap)
  micro_pipelined,  // PyTorch's async TP (torch.compile's micro_pipeline_tp, symmetric-memory fused ops)
};

// One layer's tensor-parallel communication on one GPU and the GEMMs it pairs with, in seconds.
struct TensorParallelLayer {
  TensorParallelGemms gemms;
  int group_size = 1;              // tensor-parallel ranks: the chunks of a ring exchange or a fused op
  bool sequence_parallel = false;  // all-gather + reduce-scatter pairs; else all-reduces
  double all_gather = 0;           // one all-gather of the layer's input (or of an output gradient)
  double reduce_scatter = 0;       // one reduce-scatter of a block's output (or of an input gradient)
  double all_reduce = 0;           // one all-reduce of a block's output, without sequence parallelism
  // PyTorch's fused ops only: the reduction of one fused reduce-scatter's stacked partials, and the local
  // shard's copy into the symmetric buffer before one fused all-gather (both at memory bandwidth).
  double partial_sums = 0;
  double shard_copy = 0;
  // All the pass's collectives, none hidden: two all-gathers and two reduce-scatters, or two all-reduces.
  [[nodiscard]] double whole() const {
    return sequence_parallel ? 2 * (all_gather + reduce_scatter) : 2 * all_reduce;
  }
};

// How userbuffers run the forward reduce-scatters (data/perf/training-model.yaml userbuffers_reduce_scatter):
// "pipeline" in this many GEMM splits (fewer than 1 counts as one split: no overlap), or by ring exchange.
struct TensorParallelOverlapRules {
  double userbuffers_pipeline_splits = 0;
  bool forward_scatter_ring_exchange = false;
};

// Exposed seconds of one layer's forward pass and of its backward pass (which has no "pipeline" split).
[[nodiscard]] double exposed_forward_tensor_comm(TensorParallelOverlap overlap,
                                                 const TensorParallelLayer& layer,
                                                 const TensorParallelOverlapRules& rules);
[[nodiscard]] double exposed_backward_tensor_comm(TensorParallelOverlap overlap,
                                                  const TensorParallelLayer& layer);

// The three overlap shapes, exposed seconds of one collective `comm` beside its GEMM `gemm`.
[[nodiscard]] double chunked_exposed(double comm, double gemm, int chunks);
[[nodiscard]] double split_pipeline_exposed(double comm, double gemm, double splits);
[[nodiscard]] double bulk_exposed(double comm, double gemm);

}  // namespace gputwin
