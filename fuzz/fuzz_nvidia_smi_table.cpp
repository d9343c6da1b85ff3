// Fuzzes the nvidia_smi_table reader (see reader_fuzzer.hpp).
#include "fuzz/reader_fuzzer.hpp"
#include "gputwin/validate/nvidia_smi_table.hpp"

GPUTWIN_READER_FUZZER(gputwin::validate::NvidiaSmiTable::parse(text, "fuzz"))
