// Go's math/rand (Go 1.19 and earlier: the additive lagged Fibonacci source), draw for draw, so the FGD paper's
// Go simulator can be replayed exactly: the same seed gives the same shuffle, inflation and node ranks.
//
//   GoRandom go(42);
//   int j = go.intn(10);                 // rand.Intn(10)
//   std::vector<int> ranks = go.perm(n); // rand.Perm(n)
//
// Only available when the build found Go's seeding table (GPUTWIN_HAVE_GO_RNG, see cmake/go_rng_table.cmake).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "gputwin/core/random.hpp"

namespace gputwin {

[[nodiscard]] bool go_random_available();

class GoRandom final : public RandomSource {
 public:
  explicit GoRandom(std::int64_t seed);

  std::int64_t int63();
  std::uint32_t uint32() { return static_cast<std::uint32_t>(int63() >> 31); }
  std::int32_t int31() { return static_cast<std::int32_t>(int63() >> 32); }
  std::int32_t int31n(std::int32_t n);  // rand.Int31n
  int intn(int n) { return int31n(n); }  // rand.Intn for n < 2^31
  std::uint64_t below(std::uint64_t bound) override { return static_cast<std::uint64_t>(intn(static_cast<int>(bound))); }
  double float64();
  std::vector<int> perm(int n);

  // rand.Shuffle (Lemire's multiply-shift for the index, as Go does).
  template <class T>
  void shuffle(std::vector<T>& items) {
    for (int i = static_cast<int>(items.size()) - 1; i > 0; --i) {
      std::swap(items[i], items[lemire_int31n(i + 1)]);
    }
  }

 private:
  std::int32_t lemire_int31n(std::int32_t n);
  std::array<std::int64_t, 607> vec_{};
  int tap_ = 0;
  int feed_ = 0;
};

}  // namespace gputwin
