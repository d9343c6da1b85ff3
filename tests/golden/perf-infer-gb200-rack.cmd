# The rack system's id names its compute trays, whole racks (one domain a rack): the same replica as on the tray.
perf infer --system gb200-nvl72 --model llama3.1-70b --tp 8 --sequences 1 64 --load-rounds 0
