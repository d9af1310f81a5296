// How Chorus's worker threads start. A worker inherits its process's flags
// and NODE_OPTIONS, preloaded modules included. A worker's entry loads what
// it needs itself (from the sources, its bundle or tsx: src/dev-workers.mjs),
// and a preload is meant for the main thread: tsx, a test runner's hooks, an
// agent that instruments the HTTP server. In a worker it only costs start
// time: tap's mock and processinfo hooks made a voice worker start in 1-2 s
// instead of 0.2 s. So workers start without them, from the sources and
// from the built package alike (the tests run the compiled code too).

import type { WorkerOptions } from 'node:worker_threads'

/** Flags that load a module before the entry: `--import=x` or `--import x`. */
const PRELOADS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader'])

/** `execArgv` less its preloads. */
export function withoutPreloads (execArgv: readonly string[]): string[] {
  const kept: string[] = []
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i]
    if (PRELOADS.has(flag)) {
      i++
      continue
    }
    if (PRELOADS.has(flag.slice(0, flag.indexOf('=')))) continue
    kept.push(flag)
  }
  return kept
}

/** A worker's flags and environment: the process's flags less their
 * preloads, and its environment less NODE_OPTIONS (a worker reads its
 * preloads from there too). */
export function workerStartOptions (): Pick<WorkerOptions, 'execArgv' | 'env'> {
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  return { execArgv: withoutPreloads(process.execArgv), env }
}
