// libFuzzer entry shared by the validate reader fuzzers: hands the bytes to one reader as text. A reader may
// reject the input (a located error) but must never crash, hang or touch memory it does not own.
//
//   GPUTWIN_READER_FUZZER(gputwin::validate::NvidiaSmiXml::parse(text, "fuzz"))
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#define GPUTWIN_READER_FUZZER(call)                                                             \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {           \
    const std::string_view text(reinterpret_cast<const char*>(data), size);                     \
    const auto result = (call);                                                                 \
    if (!result.ok() && result.errors().empty()) __builtin_trap(); /* an error must say what */ \
    return 0;                                                                                   \
  }
