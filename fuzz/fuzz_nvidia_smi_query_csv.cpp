// Fuzzes the nvidia_smi_query_csv reader (see reader_fuzzer.hpp).
#include "fuzz/reader_fuzzer.hpp"
#include "gputwin/validate/nvidia_smi_query_csv.hpp"

GPUTWIN_READER_FUZZER(gputwin::validate::NvidiaSmiQueryCsv::parse(text, "fuzz"))
