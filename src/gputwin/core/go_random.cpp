#include "gputwin/core/go_random.hpp"

#include <stdexcept>

namespace gputwin {
namespace {

constexpr int kLength = 607;
constexpr int kTap = 273;
constexpr std::int64_t kInt32Max = (1LL << 31) - 1;

#ifdef GPUTWIN_HAVE_GO_RNG
constexpr std::int64_t kCooked[kLength] = {
#include "gputwin/go_rng_cooked.inc"
};
#endif

// Park-Miller minimal standard generator (Schrage's method), as Go seeds its source.
std::int32_t seed_step(std::int32_t x) {
  constexpr std::int32_t a = 48271;
  constexpr std::int32_t q = 44488;
  constexpr std::int32_t r = 3399;
  const std::int32_t hi = x / q;
  const std::int32_t lo = x % q;
  x = a * lo - r * hi;
  if (x < 0) x += static_cast<std::int32_t>(kInt32Max);
  return x;
}

}  // namespace

bool go_random_available() {
#ifdef GPUTWIN_HAVE_GO_RNG
  return true;
#else
  return false;
#endif
}

GoRandom::GoRandom(std::int64_t seed) {
#ifndef GPUTWIN_HAVE_GO_RNG
  (void)seed;
  throw std::runtime_error("the Go-compatible random source was not built (golang-1.19-src missing)");
#else
  tap_ = 0;
  feed_ = kLength - kTap;
  seed %= kInt32Max;
  if (seed < 0) seed += kInt32Max;
  if (seed == 0) seed = 89482311;
  auto x = static_cast<std::int32_t>(seed);
  for (int i = -20; i < kLength; ++i) {
    x = seed_step(x);
    if (i < 0) continue;
    auto u = static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) << 40);
    x = seed_step(x);
    u ^= static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) << 20);
    x = seed_step(x);
    u ^= x;
    u ^= kCooked[i];
    vec_[i] = u;
  }
#endif
}

std::int64_t GoRandom::int63() {
  if (--tap_ < 0) tap_ += kLength;
  if (--feed_ < 0) feed_ += kLength;
  // Signed overflow is intended (Go's int64 addition wraps): add as unsigned.
  const auto sum = static_cast<std::uint64_t>(vec_[feed_]) + static_cast<std::uint64_t>(vec_[tap_]);
  vec_[feed_] = static_cast<std::int64_t>(sum);
  return static_cast<std::int64_t>(sum & ((1ULL << 63) - 1));
}

std::int32_t GoRandom::int31n(std::int32_t n) {
  if ((n & (n - 1)) == 0) return int31() & (n - 1);
  const auto max = static_cast<std::int32_t>((1U << 31) - 1 - (1U << 31) % static_cast<std::uint32_t>(n));
  std::int32_t v = int31();
  while (v > max) v = int31();
  return v % n;
}

std::int32_t GoRandom::lemire_int31n(std::int32_t n) {
  std::uint32_t v = uint32();
  std::uint64_t product = static_cast<std::uint64_t>(v) * static_cast<std::uint64_t>(n);
  auto low = static_cast<std::uint32_t>(product);
  if (low < static_cast<std::uint32_t>(n)) {
    const std::uint32_t threshold = static_cast<std::uint32_t>(-n) % static_cast<std::uint32_t>(n);
    while (low < threshold) {
      v = uint32();
      product = static_cast<std::uint64_t>(v) * static_cast<std::uint64_t>(n);
      low = static_cast<std::uint32_t>(product);
    }
  }
  return static_cast<std::int32_t>(product >> 32);
}

double GoRandom::float64() {
  for (;;) {
    const double f = static_cast<double>(int63()) / 9223372036854775808.0;  // 2^63
    if (f < 1.0) return f;
  }
}

std::vector<int> GoRandom::perm(int n) {
  std::vector<int> m(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int j = intn(i + 1);
    m[i] = m[j];
    m[j] = i;
  }
  return m;
}

}  // namespace gputwin
