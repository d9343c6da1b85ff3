// How a transformer is trained: batch, parallel split and the memory-saving choices. Memory and step time are
// computed from a model, this configuration and the hardware.
//
//   TrainingConfig config;
//   config.sequence = 8192; config.global_batch = 1024; config.micro_batch = 1;
//   config.tp = 8; config.pp = 8; config.dp = 0;   // 0: as many as fit (floor(gpus / (tp pp cp)))
//   config.recompute = Recompute::selective;
//   std::vector<std::string> problems = check_training_config(model, config, 4100);  // empty when valid
//   config.idle_gpus;   // 4 of the 4100 GPUs left idle: dp x tp x pp x cp = 4096 are used
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/units.hpp"
#include "gputwin/perf/model.hpp"

namespace gputwin {

// selective: Megatron's (the attention core, Korthikanti et al. 2022); op_sac: torchtitan's per-op selective
// activation checkpointing (every op's output saved except every second matrix multiplication's, which the
// backward pass recomputes); full: every layer's forward again.
enum class Recompute { none, selective, full, op_sac };
enum class Attention {
  flash,
  unfused
};  // unfused: the a s^2 scores are written to memory (pre-2022 kernels)

// How context parallelism moves keys and values between its ranks. ring: Megatron Core / Transformer Engine's
// ring attention (cp_comm_type p2p): c - 1 steps, each sending one chunk's keys and values to the next rank
// (and in the backward pass their gradients too) while the current block's attention runs. all_gather:
// PyTorch's context_parallel (torchtitan) with its default rotate method ALL_GATHER: the whole sequence's
// keys and values gathered at once (and their gradients reduce-scattered in the backward pass), overlapped
// only with the local block's attention. all_gather_blocks: PyTorch's context_parallel as its ring loop runs
// (torch/distributed/tensor/experimental/_attention.py, _templated_ring_attention and its backward): the keys
// and values gathered once per pass, then one attention call per source block whose output is merged into an
// fp32 accumulator (logsumexp rescale), and in the backward pass dQ/dK/dV accumulated in fp32 with the dK/dV
// accumulator passed to the next rank after every block (all-to-all rotater), the last one exposed; the keys
// and values as torchtitan hands them to scaled_dot_product_attention: repeated to every query head.
enum class ContextExchange { ring, all_gather, all_gather_blocks };

// FSDP (ZeRO-3) holds some transformer blocks whole at once beside the sharded states: the gathered bf16
// weights of the blocks alive together, and the unsharded gradient of the block whose reduce-scatter is being
// fed (data/perf/memory.yaml fsdp, with its source; 0 = not counted).
struct FsdpLiveBlocks {
  int gathered_weights = 0;     // blocks whose all-gather outputs are alive at once (FSDP2: 2)
  int unsharded_gradients = 0;  // blocks whose whole gradient is alive before its reduce-scatter (1)
};

[[nodiscard]] std::string_view recompute_name(Recompute recompute);
[[nodiscard]] std::optional<Recompute> recompute_from_name(std::string_view name);

struct TrainingConfig {
  int sequence = 2048;   // s, tokens per sequence
  int global_batch = 1;  // B, sequences per step
  int micro_batch = 1;   // b, sequences per micro-batch
  int tp = 1;            // tensor-parallel size t
  int pp = 1;            // pipeline-parallel size p
  int dp = 0;            // data-parallel size d actually used; 0 = floor(gpus / (t p c))
  int cp = 1;            // context-parallel size c (the sequence split over c GPUs)
  int ep = 1;            // expert-parallel size; Megatron carves it out of d x c, so it must divide d c
                         // (or, with MoE parallel folding and expert tensor parallelism 1, t c d)
  // Expert tensor-parallel size: t when ep divides d c (Megatron's default), else 1 (parallel folding).
  [[nodiscard]] int expert_tp() const { return (dp * cp) % ep == 0 ? tp : 1; }
  int idle_gpus = 0;       // GPUs of the job left idle by the remainder gpus - t p c d (filled by
                           // check_training_config and the search; they are bought but do no work)
  int virtual_stages = 1;  // v, model chunks per pipeline rank (interleaved 1F1B)
  int zero = 1;  // 0 = replicated optimizer; 1 = sharded optimizer (Megatron's distributed optimizer);
                 // 2 = + sharded gradients; 3 = + sharded weights (FSDP full shard)
  Recompute recompute = Recompute::selective;
  // Megatron's uneven pipeline (--decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers,
  // num_layers_in_first/last_pipeline_stage): transformer layers on the first / last pipeline rank, the
  // middle ranks sharing the rest evenly; 0 = not given (layer_split decides).
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  // Low-precision recipes that keep the first / last transformer layers' GEMMs in BF16 (Megatron Core
  // first_last_layers_bf16 with num_layers_at_start_in_bf16 / num_layers_at_end_in_bf16); 0 = none.
  int bf16_layers_at_start = 0;
  int bf16_layers_at_end = 0;
  bool sequence_parallel = true;  // with t > 1, norms and dropout split over the tensor-parallel group
  Attention attention = Attention::flash;
  // The flash-attention kernel (gemm-efficiency.yaml attention.kernels: fa2, fa3, cudnn); empty = the
  // architecture's default.
  std::string attention_kernel;
  ContextExchange context_exchange = ContextExchange::ring;
  std::string precision = "bf16";  // the GEMM precision (gemm-efficiency.yaml: bf16, fp8, mxfp8, nvfp4)
  // The recipe's quantised GEMMs' rate against the precision's per-tensor-scaled GEMMs (1 = the same; a
  // row-wise scaled FP8 recipe is slower: data/perf/precision-recipes.yaml gemm_rate).
  double gemm_rate = 1.0;
  // The recipe's per-tensor FP8 scaling (delayed, current): its quantisation cost where measured
  // (gemm-efficiency.yaml quantisation.by_scaling); empty: the precision's cast cost.
  std::string fp8_scaling;
  bool overlap_data_parallel = true;  // gradient reduction overlaps the backward pass (Megatron
                                      // --overlap-grad-reduce); off in the 2021-2022 papers' runs
  double gradient_bytes = 4;  // bytes per gradient element: 4 = fp32 main gradients (Megatron), 2 = fp16
                              // gradients (the ZeRO paper's accounting)
  ByteSize memory_reserve;    // per GPU, not available to the model: CUDA context, NCCL buffers, allocator
                              // fragmentation (data/perf/memory.yaml gives the default; 0 = none)
  FsdpLiveBlocks fsdp_blocks;  // with zero 3: the whole blocks FSDP holds at once (memory.yaml gives them)
  // PyTorch frameworks (torchtitan): the transformer blocks run under torch.compile (true, the default: the
  // elementwise work counted as fused kernels) or in eager mode (false: every elementwise op its own kernel,
  // reading and writing its tensors in full, fp32 upcasts included; data/perf/pytorch-eager-ops.yaml).
  bool compiled = true;

  // Step-time model choices (perf/training.cpp; branch step-model).
  double expert_load_imbalance = 1.0;  // tokens on the busiest GPU's experts / the balanced share (1 = force-
                                       // balanced, as NVIDIA's MoE tables footnote)
  bool tp_comm_overlap = false;  // tensor-parallel collectives overlapped, each with the GEMM it is paired
                                 // with (Megatron --tp-comm-overlap with Transformer Engine's userbuffers,
                                 // torchtitan async TP; sequence parallelism only: perf/tp_overlap.hpp)
  bool tp_comm_micro_pipelined =
      false;  // with tp_comm_overlap: PyTorch's async TP (torch.compile's micro_pipeline_tp pass and the
              // symmetric-memory fused ops) instead of Megatron's userbuffers: only an all-gather feeding
              // matmuls or a matmul feeding a reduce-scatter is fused, each with its own matmul, and a fused
              // reduce-scatter sums the ranks' partial outputs in a kernel of its own (perf/tp_overlap.hpp)
  bool expert_comm_overlap =
      false;  // MoE dispatch/combine all-to-all run concurrently with another micro-batch's
              // compute (Megatron overlap_moe_expert_parallel_comm, Bridge moe_a2a_overlap)
  bool moe_cuda_graphs =
      false;  // the MoE router and the dispatcher's preprocessing captured in CUDA graphs
              // (Megatron cuda_graph_scope moe_router + moe_preprocess, or a full-iteration
              // graph): the host wait per MoE layer is TrainingCalibration's graphed value
  bool expert_dispatch_dedup =
      false;  // the flex dispatcher (Megatron moe_token_dispatcher_type flex, HybridEP / DeepEP
              // backends): a token goes once to each rank (inside an NVLink domain) or node (across
              // nodes, fanned out over NVLink there) holding any of its experts, instead of one copy per
              // routed expert (the alltoall dispatcher)

  [[nodiscard]] int model_parallel() const { return tp * pp * cp; }
  [[nodiscard]] int gpus() const { return model_parallel() * dp; }   // GPUs that work (idle ones aside)
  [[nodiscard]] int job_gpus() const { return gpus() + idle_gpus; }  // GPUs bought for the job
  [[nodiscard]] int micro_batches() const { return global_batch / (micro_batch * dp); }  // m per pipeline
  // Layers on the most loaded pipeline rank: ceil(l / (p v)) per model chunk, v chunks (uneven splits put the
  // remainder on fewer ranks, as Megatron's uneven pipeline options and Llama 3's 126 layers on 16 stages
  // do).
  [[nodiscard]] int layers_per_stage(const TransformerModel& model) const {
    const int chunks = pp * virtual_stages;
    return (model.layers + chunks - 1) / chunks * virtual_stages;
  }
};

// How the l layers sit on the p x v model chunks. `even`: l / (p v) each. `ends_lighter`: Llama 3's split
// (Dubey et al. 2024, 3.3.2; Megatron's --account-for-embedding-in-pipeline-split and
// --account-for-loss-in-pipeline-split): the embedding and the output layer each count as one layer, so the
// first and the last chunk carry one transformer layer fewer, (l + 2) / (p v) on every other chunk (126
// layers on 16 stages: 7, 8 x 14, 7). `last_lighter`: only the loss counts, (l + 1) / (p v), the last chunk
// one fewer. `given`: the first and/or last rank's layers are set (first_stage_layers, last_stage_layers),
// the middle ranks share the rest evenly, every rank's layers split evenly over its v chunks (Megatron's
// rules for num_layers_in_first/last_pipeline_stage). `uneven`: none of these divides; ceil(l / (p v)) on the
// most loaded chunk, the remainder spread as Megatron's uneven first/last-stage options allow; a search skips
// it (pp 23 for 126 layers).
enum class LayerSplit { even, ends_lighter, last_lighter, given, uneven };
[[nodiscard]] LayerSplit layer_split(const TransformerModel& model, const TrainingConfig& config);
[[nodiscard]] LayerSplit layer_split(const TransformerModel& model, int pp, int virtual_stages);
[[nodiscard]] std::string_view layer_split_name(LayerSplit split);
// Transformer layers on pipeline rank `rank` (0 = first), over its v chunks, under layer_split.
[[nodiscard]] int layers_on_rank(const TransformerModel& model, const TrainingConfig& config, int rank);

// Fills dp from the GPU count when it is 0 (the largest d with t p c d <= gpus) and idle_gpus (gpus - t p c
// d). Returns what is wrong (empty when the split is possible): tensor parallelism must divide the heads (and
// kv heads), pipeline stages x virtual stages must not exceed the layers, t p c d must not exceed the GPUs,
// the expert-parallel size must divide d c, the global batch must be divisible by b d.
[[nodiscard]] std::vector<std::string> check_training_config(const TransformerModel& model,
                                                             TrainingConfig& config, int gpus);

}  // namespace gputwin
