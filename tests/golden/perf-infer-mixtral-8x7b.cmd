# Mixtral 8x7B on two H100s: all 46.7B weights resident, but a decode step reads only the experts its tokens hit
# (about the active 12.9B at one sequence, all 8 experts at 256).
perf infer --system dgx-h100 --model mixtral-8x7b --tp 2 --sequences 1 16 256
