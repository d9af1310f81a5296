#include "malloc_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <mutex>

namespace chorus {
namespace {

// Chosen by load/unload churn against a fresh process holding the same
// voices (README, "Sizing"): each setting alone helped, both together most.
constexpr int kArenas = 2;
constexpr int kMmapThresholdBytes = 1 << 20;

std::once_flag g_once;
MallocTuning g_tuning;

// The value when glibc took it; 0 when the operator's variable rules or
// glibc refused.
int Apply(const char* variable, int param, int value) {
  if (std::getenv(variable) != nullptr) return 0;
  return mallopt(param, value) == 1 ? value : 0;
}

}  // namespace

MallocTuning TuneMalloc() {
  std::call_once(g_once, [] {
    g_tuning.arena_max = Apply("MALLOC_ARENA_MAX", M_ARENA_MAX, kArenas);
    g_tuning.mmap_threshold_bytes = Apply("MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, kMmapThresholdBytes);
  });
  return g_tuning;
}

}  // namespace chorus
