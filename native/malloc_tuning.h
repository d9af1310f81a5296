// How glibc's malloc is set up for a long-running service that loads and
// unloads models and makes buffers of every size:
//  - glibc gives each thread that allocates concurrently an arena of its own
//    (up to eight per core) and each keeps its own high-water mark: with a
//    dozen threads (workers, ONNX Runtime's, libuv's) fewer arenas share
//    their free blocks;
//  - a freed block above the mmap threshold goes back to the system at once,
//    but glibc raises that threshold to every such block freed (up to 32 MB),
//    after which model-sized buffers come from the heap and leave holes there
//    when freed. A fixed threshold keeps them out of the heap.
// Either is left as the operator set it (glibc's MALLOC_ARENA_MAX and
// MALLOC_MMAP_THRESHOLD_ variables).
#pragma once

namespace chorus {

// Applies the settings above (figures in malloc_tuning.cc). Once per process;
// later calls are no-ops. Thread safety: any thread. Never throws.
void TuneMalloc();

}  // namespace chorus
