// The soak's server processes: the TTS service as `node dist/src/bin.cjs
// serve` and the tool host (host.ts), both children on 127.0.0.1 with
// port 0. Their resident memory is read from /proc/PID/status (VmRSS), the
// figure `ps` shows, so nothing of the harness's own memory is counted.

import { spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, type WriteStream } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { ChorusError } from '../../src/errors.js'
import type { Env } from '../../src/shared/config-values.js'
import type { HostMessage } from './protocol.js'

export interface Child {
  pid: number
  /** Sends SIGTERM and waits for the exit. */
  stop: () => Promise<void>
}

export interface TtsChild extends Child {
  url: string
}

export interface HostChild extends Child {
  toolsUrl: string
  spawnerUrl: string
  /** The host's event-loop delay since the last call. */
  loopDelay: () => Promise<{ p99Ms: number, maxMs: number }>
}

const START_TIMEOUT_MS = 120_000

/** `env` is the soak's own environment, read by its entry point (main.ts): TTS_* settings pass through. */
export async function startTtsChild (env: Env, voiceDir: string, defaultVoice: string, logFile: string): Promise<TtsChild> {
  const log = createWriteStream(logFile, { flags: 'a' })
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'dist/src/bin.cjs'), 'serve'], {
    cwd: PACKAGE_ROOT,
    env: { ...env, TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: '0', TTS_VOICE_DIR: voiceDir, TTS_DEFAULT_VOICE: defaultVoice },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  child.stderr?.pipe(log, { end: false })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new ChorusError('ERR_SOAK', `the TTS service did not start within ${START_TIMEOUT_MS / 1000} s; see ${logFile}`)) }, START_TIMEOUT_MS)
    child.once('exit', (code) => { reject(new ChorusError('ERR_SOAK', `the TTS service exited with code ${code ?? 'null'} at start-up; see ${logFile}`)) })
    const lines = createInterface({ input: child.stdout! })
    lines.on('line', (line) => {
      log.write(line + '\n')
      let entry: { msg?: unknown, url?: unknown }
      try {
        entry = JSON.parse(line)
      } catch {
        return
      }
      if (entry.msg === 'listening' && typeof entry.url === 'string') {
        clearTimeout(timer)
        resolve(entry.url)
      }
    })
  })
  return { pid: child.pid!, url, stop: async () => { await stopChild(child, log) } }
}

export async function startHostChild (logFile: string): Promise<HostChild> {
  const log = createWriteStream(logFile, { flags: 'a' })
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'dist/bench/soak/host.js')], {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc']
  })
  child.stdout?.pipe(log, { end: false })
  child.stderr?.pipe(log, { end: false })
  const pending: Array<(message: HostMessage) => void> = []
  child.on('message', (message: HostMessage) => { pending.shift()?.(message) })
  const ready = await new Promise<HostMessage>((resolve, reject) => {
    child.once('exit', (code) => { reject(new ChorusError('ERR_SOAK', `the tool host exited with code ${code ?? 'null'} at start-up; see ${logFile}`)) })
    pending.push(resolve)
  })
  if (ready.kind !== 'ready') throw new ChorusError('ERR_SOAK', `the tool host sent ${ready.kind} before ready`)
  return {
    pid: child.pid!,
    toolsUrl: ready.toolsUrl,
    spawnerUrl: ready.spawnerUrl,
    loopDelay: async () => await new Promise((resolve) => {
      pending.push((message) => { if (message.kind === 'loop') resolve(message) })
      child.send({ kind: 'sample' })
    }),
    stop: async () => { await stopChild(child, log) }
  }
}

async function stopChild (child: ChildProcess, log: WriteStream): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  await new Promise((resolve) => log.end(resolve))
}

/** Resident memory of a process in bytes, from /proc/PID/status (Linux). */
export async function residentBytes (pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)
  if (match === null) throw new ChorusError('ERR_SOAK', `no VmRSS in /proc/${pid}/status`)
  return Number(match[1]) * 1024
}
