// How a worker thread starts when Chorus runs from its TypeScript sources
// (tests, tsx). A worker inherits its process's flags and NODE_OPTIONS,
// preloaded modules included; from the sources a worker's entry loads its
// bundle or registers tsx itself (src/dev-workers.mjs), so it needs no
// preload. A test runner's preloads are costly there: tap's mock and
// processinfo each register module hooks in every thread, which made a
// voice worker's start some 1-2 s slower (0.2 s without). The built
// package's workers start as Node starts them by default.

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

/** A worker's flags and environment: from the sources, the process's flags
 * less their preloads and its environment less NODE_OPTIONS (a worker reads
 * its preloads from there too); else Node's defaults (nothing set). */
export function workerStartOptions (fromSources: boolean): Pick<WorkerOptions, 'execArgv' | 'env'> {
  if (!fromSources) return {}
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  return { execArgv: withoutPreloads(process.execArgv), env }
}
