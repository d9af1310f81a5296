// A Chorus service in a process of its own (`chorus serve`), for figures
// about the process's memory: an in-process service shares its RSS with the
// harness, and a "freshly loaded" process has to be a fresh process. It
// listens on a free loopback port, its JSON log goes to a file, and the URL
// comes from its "listening" line.

import { spawn } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { ChorusError } from '../src/errors.js'
import type { Env } from '../src/shared/config-values.js'

// From TypeScript sources (tests) the entry point is the command's bundle
// while it is current (scripts/build-dev-workers.ts), else it needs tsx: in
// its main thread only, since its workers load their own (src/tsx-main-thread.mjs).
const FROM_SOURCES = import.meta.url.endsWith('.ts')
const BIN = fileURLToPath(new URL(FROM_SOURCES ? '../src/bin.cts' : '../src/bin.cjs', import.meta.url))
const TSX = fileURLToPath(new URL('../src/tsx-main-thread.mjs', import.meta.url))

/** Loaded from the sources only: the built package has no dev-workers.mjs. */
const DEV_WORKERS = new URL('../src/dev-workers.mjs', import.meta.url)

async function serveArgs (): Promise<string[]> {
  if (!FROM_SOURCES) return [BIN, 'serve']
  const { freshBundle } = await import(DEV_WORKERS.href) as { freshBundle: (entryPath: string) => string | undefined }
  const bundle = freshBundle(BIN)
  return bundle === undefined ? ['--import', TSX, BIN, 'serve'] : [fileURLToPath(bundle), 'serve']
}

/** How long a child may take to start listening (it loads no voice at start-up here, but may install bundled ones). */
const START_TIMEOUT_MS = 120_000

export interface ChildService {
  url: string
  /** The service's process, for its memory (/proc/PID/status). */
  pid: number
  stop: () => Promise<void>
}

export async function startChildService (env: Env, overrides: Record<string, string>, logFile: string): Promise<ChildService> {
  const child = spawn(process.execPath, await serveArgs(), {
    env: { ...env, ...overrides, TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: '0', CHORUS_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const log = createWriteStream(logFile, { flags: 'a' })
  child.stderr.pipe(log, { end: false })
  const exited = once(child, 'exit')
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
    log.end()
    await once(log, 'close')
  }
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ChorusError('ERR_BENCH_SERVICE', `chorus serve did not start listening within ${START_TIMEOUT_MS / 1000} s (log: ${logFile})`)), START_TIMEOUT_MS)
    child.once('exit', code => {
      clearTimeout(timer)
      reject(new ChorusError('ERR_BENCH_SERVICE', `chorus serve exited with code ${code ?? 'null'} before listening (log: ${logFile})`))
    })
    createInterface({ input: child.stdout }).on('line', line => {
      log.write(line + '\n')
      try {
        const entry = JSON.parse(line) as { msg?: unknown, url?: unknown }
        if (entry.msg === 'listening' && typeof entry.url === 'string') {
          clearTimeout(timer)
          resolve(entry.url)
        }
      } catch {
        // Not a log line: kept in the file only.
      }
    })
  }).catch(async (error: unknown) => {
    await stop()
    throw error
  })
  return { url, pid: child.pid as number, stop }
}
