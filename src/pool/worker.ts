// A Piscina worker: holds exactly one loaded voice, a handle to the model
// that every worker of the voice shares (see native/voice_registry.h). The
// module's default export is a Promise of the task handler, so Piscina hands
// this worker no task before its voice has loaded (and warmed up).

import { threadId, workerData } from 'node:worker_threads'
import { Piscina } from 'piscina'
import { PiperVoice, planChunks, type SentenceEncoding } from '../engine/index.js'
import { SynthesisCancelledError } from '../engine/errors.js'
import { toFailure, type TaskFailure } from './task-errors.js'
import type { DecodeResult, DecodeTask, ReadyResult, SentenceResult, SentenceTask, SharedEncoding, WorkerInit, WorkerTask } from './protocol.js'

const init = workerData as WorkerInit

/** Sends a result with the given buffers transferred rather than copied. */
function move<T> (result: T, buffers: ArrayBuffer[]): T {
  const movable = {
    get [Piscina.transferableSymbol] () { return buffers },
    get [Piscina.valueSymbol] () { return result }
  }
  return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0]) as unknown as T
}

/** Runs `work` with an AbortSignal that fires when the main thread cancels. */
async function cancellable<T> (task: SentenceTask | DecodeTask, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const cancelled = new Int32Array(task.cancelFlag)
  const controller = new AbortController()
  const onMessage = () => controller.abort()
  task.cancelPort.on('message', onMessage)
  try {
    if (Atomics.load(cancelled, 0) === 1) throw new SynthesisCancelledError()
    return await work(controller.signal)
  } finally {
    task.cancelPort.off('message', onMessage)
    task.cancelPort.close()
  }
}

/** The array itself when it owns its whole buffer (so the buffer can be
 * transferred), else a copy that does. */
function owning (samples: Float32Array): Float32Array {
  return samples.byteOffset === 0 && samples.byteLength === samples.buffer.byteLength ? samples : samples.slice()
}

function shared (data: Float32Array): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(data.byteLength)
  new Float32Array(buffer).set(data)
  return buffer
}

function share (encoding: SentenceEncoding): SharedEncoding {
  return {
    latent: shared(encoding.latent),
    channels: encoding.channels,
    frames: encoding.frames,
    framed: encoding.framed.map(t => ({ data: shared(t.data), channels: t.channels })),
    side: encoding.side
  }
}

function unshare (encoding: SharedEncoding): SentenceEncoding {
  return {
    latent: new Float32Array(encoding.latent),
    channels: encoding.channels,
    frames: encoding.frames,
    framed: encoding.framed.map(t => ({ data: new Float32Array(t.data), channels: t.channels })),
    side: encoding.side
  }
}

async function sentence (voice: PiperVoice, task: SentenceTask): Promise<SentenceResult> {
  return await cancellable(task, async signal => {
    const { ids, missing } = voice.phonemeIds(task.phonemes)
    if (voice.mode.mode === 'whole') {
      const samples = await voice.infer(ids, task.settings, signal)
      return move({ samples, remaining: [], missingPhonemes: missing, worker: threadId }, [samples.buffer as ArrayBuffer])
    }
    const encoding = await voice.encode(ids, task.settings, signal)
    const plan = planChunks(encoding.frames, init.chunking, { stream: task.stream, parallelism: task.parallelism })
    if (plan.length <= 1 || task.stream) {
      // Short, or streamed: this worker decodes the first chunk itself.
      const samples = plan.length === 0 ? new Float32Array(0) : await voice.decodeChunk(encoding, plan[0], voice.marginFrames(init.chunking), signal)
      const copy = owning(samples)
      const rest = plan.slice(1)
      return move({
        samples: copy, remaining: rest, missingPhonemes: missing, worker: threadId, ...(rest.length > 0 ? { encoding: share(encoding) } : {})
      }, [copy.buffer as ArrayBuffer])
    }
    return { encoding: share(encoding), remaining: plan, missingPhonemes: missing, worker: threadId }
  })
}

async function decode (voice: PiperVoice, task: DecodeTask): Promise<DecodeResult> {
  return await cancellable(task, async signal => {
    const samples = owning(await voice.decodeChunk(unshare(task.encoding), task.range, voice.marginFrames(init.chunking), signal))
    return move({ samples, worker: threadId }, [samples.buffer as ArrayBuffer])
  })
}

export default (async () => {
  const voice = await PiperVoice.load(init.modelPath, {
    config: init.config,
    session: init.session,
    ortLibrary: init.ortLibrary,
    espeakData: init.espeakData
  })
  return async (task: WorkerTask): Promise<SentenceResult | DecodeResult | ReadyResult | TaskFailure> => {
    try {
      switch (task.kind) {
        case 'ready': return { rss: process.memoryUsage.rss(), memoryBytes: voice.memoryBytes, referencePeak: voice.referencePeak, ...voice.mode }
        case 'sentence': return await sentence(voice, task)
        case 'decode': return await decode(voice, task)
      }
    } catch (error) {
      return toFailure(error)
    }
  }
})()
