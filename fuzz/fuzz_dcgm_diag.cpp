// Fuzzes the dcgm_diag reader (see reader_fuzzer.hpp).
#include "fuzz/reader_fuzzer.hpp"
#include "gputwin/validate/dcgm_diag.hpp"

GPUTWIN_READER_FUZZER(gputwin::validate::DcgmDiag::parse(text, "fuzz"))
