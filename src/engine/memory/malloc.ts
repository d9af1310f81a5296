// glibc's malloc settings for the service (native/malloc_tuning.h;
// docs/memory.md, "malloc"). They are the whole host process's, so the
// service applies them at its start and nothing else does: loading the addon
// (chorus say, tests, other hosts) leaves the process's malloc as it was.

import { loadBinding, toTypedError, type MallocTuning } from '../native.js'

/** Applies the settings once per process, before the service's threads
 * allocate; later calls return the first call's result. Each setting the
 * operator gave glibc (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_) is left
 * alone and reads null. */
export function tuneMalloc (): MallocTuning {
  try {
    return loadBinding().tuneMalloc()
  } catch (error) {
    throw toTypedError(error)
  }
}
