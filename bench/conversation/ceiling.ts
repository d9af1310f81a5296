// The conversation benchmarks' ceiling: onnxruntime-node's InferenceSession
// on the unmodified model, one worker per core, on the phoneme ids of the
// run's own replies (phonemized by Chorus's engine, outside any timing), as
// the sweep measures it (bench/ceiling.ts). Measured before any service
// starts, so nothing else competes for the cores.

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../src/errors.js'
import type { Env } from '../../src/shared/config-values.js'
import { EngineBench } from '../ceiling.js'
import type { CeilingResult } from '../results.js'

export async function outsideCeiling (target: { voiceDir: string, voice: string }, texts: string[],
  plan: { seconds: number, repeats: number, workers: number }, env: Env): Promise<CeilingResult> {
  const modelPath = join(target.voiceDir, `${target.voice}.onnx`)
  if (!existsSync(modelPath)) throw new ConfigError(`The ceiling needs the model ${modelPath}; pass --no-ceiling to go without`)
  const options = { voices: [{ name: target.voice, modelPath }], synthesis: {}, workers: plan.workers, ortLibrary: env.CHORUS_ORT_LIBRARY, espeakData: env.CHORUS_ESPEAK_DATA }
  const phonemizer = await EngineBench.start({ ...options, engine: 'chorus', workers: 1 })
  let outside: EngineBench | undefined
  try {
    await phonemizer.prepare(texts.map(text => ({ voice: target.voice, text })))
    outside = await EngineBench.start({ ...options, engine: 'onnxruntime' })
    await outside.prepareLike(phonemizer)
    return await outside.ceiling(plan.seconds, plan.repeats)
  } finally {
    await Promise.all([phonemizer.close(), outside?.close()])
  }
}
