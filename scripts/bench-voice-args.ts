// The `--voice PATH --repeats N` flags of the engine-level benchmark scripts
// (bench-engine, bench-cuts, bench-encoder-threads): read and checked once,
// exiting with status 2 and the reason on a bad value.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ensureBenchVoices } from './make-bench-voices.js'

export async function benchVoiceArgs (defaultRepeats: number): Promise<{ voicePath: string, repeats: number }> {
  const { values: flags } = parseArgs({
    options: {
      voice: { type: 'string' },
      repeats: { type: 'string', default: String(defaultRepeats) }
    }
  })
  // Without --voice, the project's own stand-in (generated on first use).
  const voicePath = flags.voice ?? join(await ensureBenchVoices(), 'en_US-bench-medium.onnx')
  const repeats = Number(flags.repeats)
  if (!Number.isInteger(repeats) || repeats < 1) {
    console.error(`Expected a positive integer for --repeats but received ${flags.repeats}`)
    process.exit(2)
  }
  if (!existsSync(voicePath)) {
    console.error(`No voice at ${voicePath} (pass --voice PATH to a Piper .onnx)`)
    process.exit(2)
  }
  return { voicePath, repeats }
}
