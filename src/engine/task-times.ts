// Where the engine's time goes (docs/engine.md, "Where the time goes"): the
// addon sums the wall and CPU time of its async tasks (phonemize, encode,
// decode, …) over every thread of the process, and names the threads that
// run them, so a per-thread CPU reading can tell the roles apart.

import { loadBinding, toTypedError, type NativeTaskTimes } from './native.js'

/** Thread names, as /proc/PID/task/TID/comm shows them (at most 15 bytes). */
export const THREAD_NAMES = {
  /** The libuv pool's threads, named by the addon when they first run its work. */
  libuv: 'chorus-uv',
  /** A voice's Piscina worker thread (its JS side; inference runs on libuv). */
  voiceWorker: 'chorus-voice',
  /** An encoder worker thread (MP3, Opus, FLAC, PCM). */
  encoderWorker: 'chorus-encode'
} as const

/** Totals per task kind since the process started; [] if the addon is not loaded yet. */
export function taskTimes (): NativeTaskTimes[] {
  try {
    return loadBinding().taskTimes()
  } catch (error) {
    throw toTypedError(error)
  }
}

/** Names the calling thread (a worker thread at its start). Never throws:
 * a name is for reading CPU figures, not something to fail a worker over. */
export function nameThread (name: string): void {
  try {
    loadBinding().nameThread(name)
  } catch {
    // An addon too old or not loadable here: the thread stays "node".
  }
}
