# perf train --attention-kernel names a kernel with no published speed on the run's architecture (fa1 has H100
# figures only): refused, never timed by the generic rule under the kernel's name.
# exit: 1
perf train --system dgx-b200 --nodes 1 --model llama3-8b --seq 8192 --global-batch 8 --attention-kernel fa1
