# perf size --precision fp8-cs: a precision recipe as perf train takes it (FP8 GEMMs, first and last layer in BF16),
# named under the table.
perf size --model llama3-70b --tokens 15T --days 30 --accelerators h100-sxm,b200 --precision fp8-cs
