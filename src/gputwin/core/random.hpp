// A deterministic random source: the same seed gives the same sequence on every platform and compiler.
//
//   Random random(42);
//   std::uint64_t pick = random.below(10);      // uniform in [0, 10)
//   double x = random.unit();                   // uniform in [0, 1)
//   random.shuffle(items);
//
// std::mt19937_64 is fully specified by the standard; std's distributions are not (their output differs between
// library implementations), so the mapping to ranges is done here, by rejection sampling.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace gputwin {

// What policies that draw need: a uniform index. Implemented by gputwin's own source and by GoRandom.
class RandomSource {
 public:
  virtual ~RandomSource() = default;
  // Uniform in [0, bound); bound must be > 0.
  virtual std::uint64_t below(std::uint64_t bound) = 0;
};

class Random final : public RandomSource {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t below(std::uint64_t bound) override {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;  // values >= limit would bias the modulo
    std::uint64_t value = engine_();
    while (value >= limit) value = engine_();
    return value % bound;
  }

  // Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  template <class T>
  void shuffle(std::vector<T>& items) {
    for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[below(i)]);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace gputwin
