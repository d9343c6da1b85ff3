// Fuzzes the nccl_tests_text reader (see reader_fuzzer.hpp).
#include "fuzz/reader_fuzzer.hpp"
#include "gputwin/validate/nccl_tests_text.hpp"

GPUTWIN_READER_FUZZER(gputwin::validate::NcclTestsText::parse(text, "fuzz"))
