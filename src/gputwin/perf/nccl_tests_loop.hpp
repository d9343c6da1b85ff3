// What nccl-tests prints for an operation, from the time of one operation alone (estimate_collective): the
// measurement, kept apart from the model of the operation.
//
//   const CollectiveEstimate one = estimate_collective(hw, model, CollectiveOp::broadcast, bytes, group);
//   const NcclTestsTime printed = nccl_tests_time(one, model, {model.nccl_tests_loop.iters, false});
//   printed.time_us            // what the time column shows: per iteration, mean over ranks
//   printed.one_operation_us   // one broadcast alone (= one.time_us)
//
// nccl-tests (src/common.cu, BenchTime) starts a host timer on every rank, enqueues `iters` operations back
// to back on the rank's one stream, waits for the stream once and divides by iters; the ranks' times are then
// averaged. A GPU runs its operations one after another, so where every rank takes part in every step of an
// operation (all_reduce, all_gather, reduce_scatter, alltoall, sendrecv, and every NVLS or tree algorithm)
// operation k + 1 cannot finish on a rank before operation k has, and the loop prints the time of one
// operation. NCCL's broadcast and reduce are a chain from (to) the root instead, whose sender runs ahead of
// its receiver by up to NCCL_STEPS slots of credit (src/device/prims_ll.h waitSend; the step counters carry
// over from one operation to the next): the root starts operation k + 1 while operation k is still moving
// down the chain. Each GPU is then busy, per operation, for the fixed part of NCCL's cost (its base latency)
// and the bandwidth term, while the chain's hop latency is paid once per loop: the rank j hops from the root
// ends its last operation j hops after the root. The printed time is then
//   base + bandwidth term + (ranks - 1) / 2 x hop latency / iters
// with hop latency = (NCCL's latency - base) / its steps. Assumed, not measured: that NCCL's base latency is
// a per-GPU cost every operation pays (not a host cost the loop hides too), and that the flow-control credit
// never stalls the root (every rank of the chain is busy for the same time per operation).
//
// One process driving G GPUs (-g G): every iteration is one ncclGroupStart, G calls, ncclGroupEnd on one host
// thread (src/common.cu startColl), so the host spends H = G x its per-GPU launch cost per iteration while the
// GPUs run. Host and GPUs overlap across iterations: the slower of the two sets the pace and the other is
// paid once per loop, so the loop prints max(H, T) + min(H, T) / iters (T: the device time above); blocking
// (-z 1) serialises them: H + T. With G = 1 the one launch is inside NCCL's measured base latency: not added.
#pragma once

#include "gputwin/perf/collectives.hpp"

namespace gputwin {

struct NcclTestsLoopSettings {
  int iters = 1;          // nccl-tests' -n
  bool blocking = false;  // nccl-tests' -z 1: every operation completes (and the ranks meet) before the next
  int gpus_per_process = 1;           // nccl-tests' -g (x -t): GPUs whose calls one host thread issues
  double host_launch_us_per_gpu = 0;  // the host's cost per GPU and iteration when gpus_per_process > 1
};

struct NcclTestsTime {
  double time_us = 0;           // what nccl-tests prints: per iteration, mean over ranks
  double one_operation_us = 0;  // the operation alone
  bool pipelined = false;       // consecutive operations overlap (a rooted chain)
  double per_gpu_us = 0;        // pipelined: what one operation keeps each GPU busy (base + bandwidth term)
  double hop_us = 0;            // pipelined: one hop of the chain
  double fill_us = 0;           // pipelined: the chain's mean hop latency a rank waits once per loop
  double host_us = 0;           // one process driving several GPUs: the host's time per iteration (H)
  bool host_bound = false;      // H > the device time: the host sets the printed time
  int iters = 1;
  [[nodiscard]] double algbw_gbps(double bytes) const;  // bytes / time, as nccl-tests computes it
};

[[nodiscard]] NcclTestsTime nccl_tests_time(const CollectiveEstimate& one, const CollectiveModel& model,
                                            const NcclTestsLoopSettings& loop);

}  // namespace gputwin
