// How glibc's malloc is set up for a long-running service that loads and
// unloads models and makes buffers of every size (docs/memory.md, "malloc"):
//  - glibc gives each thread that allocates concurrently an arena of its own
//    (up to eight per core) and each keeps its own high-water mark: with a
//    dozen threads (workers, ONNX Runtime's, libuv's) fewer arenas share
//    their free blocks;
//  - a freed block above the mmap threshold goes back to the system at once,
//    but glibc raises that threshold to every such block freed, after which
//    model-sized buffers come from the heap and leave holes there when
//    freed. A fixed threshold keeps them out of the heap.
// Either is left as the operator set it (glibc's MALLOC_ARENA_MAX and
// MALLOC_MMAP_THRESHOLD_ variables). These are settings of the whole host
// process, so only the service applies them, at its start (chorus serve);
// loading the addon changes nothing.
#pragma once

namespace chorus {

// What TuneMalloc() set; 0 where it left glibc's setting alone (the
// operator's variable is set, or glibc refused the value).
struct MallocTuning {
  int arena_max = 0;
  int mmap_threshold_bytes = 0;
};

// Applies the settings above, once per process; later calls return the first
// call's result. Call it before the service's threads allocate: the arena cap
// binds only threads that first allocate after it. Thread safety: any
// thread. Throws only std::system_error (std::call_once failing).
MallocTuning TuneMalloc();

}  // namespace chorus
