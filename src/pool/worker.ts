// A Piscina worker: holds exactly one loaded voice. The module's default
// export is a Promise of the task handler, so Piscina hands this worker no
// task before its voice has loaded (and warmed up).

import { workerData } from 'node:worker_threads'
import { Piscina } from 'piscina'
import { PiperVoice } from '../engine/index.js'
import { SynthesisCancelledError } from '../errors.js'
import type { ReadyResult, SentenceResult, SentenceTask, WorkerInit, WorkerTask } from './protocol.js'

const init = workerData as WorkerInit

/** Sends the result with its PCM buffer transferred rather than copied. */
function moveResult (result: SentenceResult): SentenceResult {
  const movable = {
    get [Piscina.transferableSymbol] () { return [result.pcm.buffer] },
    get [Piscina.valueSymbol] () { return result }
  }
  return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0]) as unknown as SentenceResult
}

async function sentence (voice: PiperVoice, task: SentenceTask): Promise<SentenceResult> {
  const cancelled = new Int32Array(task.cancelFlag)
  const controller = new AbortController()
  const onMessage = () => controller.abort()
  task.cancelPort.on('message', onMessage)
  try {
    if (Atomics.load(cancelled, 0) === 1) throw new SynthesisCancelledError()
    const audio = await voice.synthesizeSentence(task.phonemes, task.settings, controller.signal)
    return moveResult(audio)
  } finally {
    task.cancelPort.off('message', onMessage)
    task.cancelPort.close()
  }
}

export default (async () => {
  const voice = await PiperVoice.load(init.modelPath, {
    config: init.config,
    session: init.session,
    ortLibrary: init.ortLibrary,
    espeakData: init.espeakData
  })
  return async (task: WorkerTask): Promise<SentenceResult | ReadyResult> => {
    if (task.kind === 'ready') return { rss: process.memoryUsage.rss() }
    return await sentence(voice, task)
  }
})()
