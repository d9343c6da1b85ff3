// Fuzzes the nvidia_smi_xml reader (see reader_fuzzer.hpp).
#include "fuzz/reader_fuzzer.hpp"
#include "gputwin/validate/nvidia_smi_xml.hpp"

GPUTWIN_READER_FUZZER(gputwin::validate::NvidiaSmiXml::parse(text, "fuzz"))
