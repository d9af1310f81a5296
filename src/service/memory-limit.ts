// How much memory this process may use, and from it the default budget for
// loaded voices (TTS_VOICE_MEMORY_BYTES). A container's limit is its cgroup's
// memory.max, not the host's RAM: exceeding it gets the process killed, so it
// wins when it is set.

import { readFileSync } from 'node:fs'
import { totalmem } from 'node:os'
import { join } from 'node:path'

const MiB = 1024 * 1024

export interface MemoryLimit {
  bytes: number
  source: 'cgroup' | 'physical'
}

export interface LimitSources {
  /** /proc/self/cgroup */
  procCgroup?: string
  /** Where the cgroup file systems are mounted. */
  cgroupRoot?: string
  physicalBytes?: number
}

function readOrUndefined (path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return undefined
  }
}

/** cgroup v1 reports "no limit" as a page-rounded 2^63 - 1; anything this large is none. */
const NO_LIMIT = 2 ** 62

function limitValue (text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined
  const value = Number(text)
  return value > 0 && value < NO_LIMIT ? value : undefined
}

/** The smallest limit on the way from the process's cgroup up to the root:
 * a parent's limit binds its children too. */
function smallestOnPath (root: string, cgroupPath: string, file: string): number | undefined {
  let smallest: number | undefined
  const parts = cgroupPath.split('/').filter(part => part !== '' && part !== '..')
  for (let depth = parts.length; depth >= 0; depth--) {
    const value = limitValue(readOrUndefined(join(root, ...parts.slice(0, depth), file)))
    if (value !== undefined) smallest = Math.min(smallest ?? value, value)
  }
  return smallest
}

/** The cgroup's memory limit: v2 (`0::<path>`, memory.max) first, then v1
 * (`<n>:memory:<path>`, memory.limit_in_bytes); undefined when there is none. */
export function cgroupMemoryLimit (procCgroup = '/proc/self/cgroup', cgroupRoot = '/sys/fs/cgroup'): number | undefined {
  const lines = readOrUndefined(procCgroup)?.split('\n') ?? []
  const v2 = lines.find(line => line.startsWith('0::'))
  if (v2 !== undefined) {
    const limit = smallestOnPath(cgroupRoot, v2.slice(3), 'memory.max')
    if (limit !== undefined) return limit
  }
  const v1 = lines.find(line => line.split(':')[1]?.split(',').includes('memory') === true)
  if (v1 !== undefined) return smallestOnPath(join(cgroupRoot, 'memory'), v1.split(':').slice(2).join(':'), 'memory.limit_in_bytes')
  return undefined
}

export function processMemoryLimit (sources: LimitSources = {}): MemoryLimit {
  const physical = sources.physicalBytes ?? totalmem()
  const cgroup = cgroupMemoryLimit(sources.procCgroup, sources.cgroupRoot)
  return cgroup !== undefined && cgroup < physical ? { bytes: cgroup, source: 'cgroup' } : { bytes: physical, source: 'physical' }
}

/** What the process needs besides loaded voices' weights and arenas. */
export interface MemoryReserve {
  /** The phrase cache's ceiling (TTS_CACHE_BYTES). */
  cacheBytes: number
  /** TTS_MAX_CONCURRENT_INFERENCES: each running sentence holds its activations. */
  concurrentInferences: number
}

/** Node, ONNX Runtime, espeak-ng's data and the HTTP server, with no voice loaded. */
export const PROCESS_BASE_BYTES = 256 * MiB
/** Room for one running sentence's activations on a medium voice at the
 * sentence cap. Scaled with the decoder's chunk when it went from 512 to 768
 * frames: one chunk's run on bench-medium raised RSS by 198 and 265 MB at
 * its peak (128 MiB × 265 / 198 ≈ 171 MiB). */
export const ACTIVATION_BYTES = 176 * MiB
/** Share of the limit kept free for allocator fragmentation and the kernel's accounting. */
const HEADROOM = 0.1
/** The budget never goes below this: a tiny container still serves one small voice. */
export const MIN_BUDGET_BYTES = 128 * MiB

/**
 * budget = limit × (1 − HEADROOM) − PROCESS_BASE − cache − inferences × ACTIVATION,
 * at least MIN_BUDGET. The README's "Sizing" section states the same formula.
 */
export function defaultVoiceMemoryBudget (limitBytes: number, reserve: MemoryReserve): number {
  const budget = Math.floor(limitBytes * (1 - HEADROOM)) - PROCESS_BASE_BYTES - reserve.cacheBytes - reserve.concurrentInferences * ACTIVATION_BYTES
  return Math.max(MIN_BUDGET_BYTES, budget)
}
