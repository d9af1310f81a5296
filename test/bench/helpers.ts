// Shared by the harness's tests: captured output, and synthetic samples.

import { Writable } from 'node:stream'
import type { BenchIo } from '../../bench/io.js'
import type { Sample } from '../../bench/client.js'

export interface CapturedIo extends BenchIo {
  out: () => string
  err: () => string
}

export function captureIo (env: Record<string, string | undefined> = {}): CapturedIo {
  let out = ''
  let err = ''
  const sink = (append: (text: string) => void) => new Writable({
    write (chunk: Buffer, _encoding, done) {
      append(chunk.toString('utf8'))
      done()
    }
  })
  return {
    env,
    stdout: sink(text => { out += text }),
    stderr: sink(text => { err += text }),
    stderrIsTTY: false,
    out: () => out,
    err: () => err
  }
}

/** A successful sample in flight from sentMs to endMs, due at sentMs unless given. */
export function sample (sentMs: number, endMs: number, fields: Partial<Sample> = {}): Sample {
  const scheduledMs = fields.scheduledMs ?? sentMs
  return {
    scheduledMs,
    sentMs,
    endMs,
    latencyMs: endMs - scheduledMs,
    ttfbMs: endMs - scheduledMs,
    status: 200,
    bytes: 1000,
    audioSeconds: 1,
    characters: 10,
    ...fields
  }
}
