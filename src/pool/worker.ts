// A Piscina worker: holds exactly one loaded voice, a handle to the model
// that every worker of the voice shares (see native/voice_registry.h). The
// module's default export is a Promise of the task handler, so Piscina hands
// this worker no task before its voice has loaded (and warmed up). What it
// may still touch after handing an array on: docs/memory.md.

import { threadId, workerData } from 'node:worker_threads'
import { flowParts, frameAlignedArrays, nameThread, PiperVoice, planChunks, sliceLatent, THREAD_NAMES, windowedFlow, withMargin, type FrameRange, type SentenceEncoding } from '../engine/index.js'
import { SynthesisCancelledError } from '../engine/errors.js'
import { beforeIdle, discardBytes, owning, transferList } from '../engine/memory/index.js'
import { moveResult as move } from './move-result.js'
import { toFailure, type TaskFailure } from './task-errors.js'
import type { ChunkInput, DecodeResult, DecodeTask, ReadyResult, SentenceResult, SentenceTask, WorkerInit, WorkerTask } from './protocol.js'

const init = workerData as WorkerInit

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

/** Frees an encoding's frame-aligned arrays once this worker is done with
 * them: the addon copied what it decoded, and each chunk handed on holds a
 * copy of its part. */
function discardEncoding (encoding: SentenceEncoding): void {
  discardBytes(frameAlignedArrays(encoding))
}

/** The inputs of each of `ranges`, margins included, as arrays of their own
 * (staged voices not yet flowed: with the flow's context beyond them). */
function cutChunks (voice: PiperVoice, encoding: SentenceEncoding, ranges: FrameRange[]): ChunkInput[] {
  const margin = voice.marginFrames(init.chunking) + (encoding.flowed === true ? 0 : voice.flowContextFrames)
  return ranges.map(range => {
    const decoded = withMargin(range, encoding.frames, margin)
    const slice = (data: Float32Array, channels: number) => sliceLatent(data, channels, encoding.frames, decoded)
    return {
      latent: slice(encoding.latent, encoding.channels),
      channels: encoding.channels,
      frames: decoded.end - decoded.start,
      framed: encoding.framed.map(t => ({ data: slice(t.data, t.channels), channels: t.channels })),
      side: encoding.side,
      ...(encoding.flowed === true ? { flowed: true } : {}),
      range: { start: range.start - decoded.start, end: range.end - decoded.start }
    }
  })
}

/** The arrays the chunks carry to their workers (side inputs are copied). */
function chunkArrays (chunks: ChunkInput[]): Float32Array[] {
  return chunks.flatMap(frameAlignedArrays)
}

async function sentence (voice: PiperVoice, task: SentenceTask): Promise<SentenceResult> {
  return await cancellable(task, async signal => {
    const { ids, missing } = voice.phonemeIds(task.phonemes)
    if (voice.mode.mode === 'whole') {
      const samples = await voice.infer(ids, task.settings, signal)
      return move({ samples, chunks: [], totalSamples: samples.length, missingPhonemes: missing, worker: threadId }, transferList([samples]))
    }
    const encoding = await voice.encode(ids, task.settings, signal, task.busy)
    const frames = voice.phonemeFrames(task.phonemes, encoding)
    const timing = frames === undefined ? {} : { timing: { ...frames, hopLength: voice.hopLength } }
    const timingArrays = frames === undefined ? [] : [frames.phonemes, frames.frames]
    const totalSamples = encoding.frames * voice.hopLength
    try {
      const frameMs = voice.hopLength / voice.config.sampleRate * 1000
      const marginFrames = voice.marginFrames(init.chunking)
      const plan = planChunks(encoding.frames, init.chunking, { stream: task.stream, parallelism: task.parallelism, marginFrames, leadFrames: frameMs > 0 ? Math.floor(task.leadMs / frameMs) : 0 })
      // Staged voices: the flow once over the whole sentence, unless a
      // stream's first audio is due before that would be done.
      const windowed = windowedFlow({ stream: task.stream, chunks: plan.length, leadMs: task.leadMs, flowEstimateMs: voice.flowEstimateMs(encoding.frames), contended: task.contended })
      const parts = flowParts({ busy: task.busy, contended: task.contended, encoderThreads: init.session.encoderIntraOpThreads ?? 1 })
      const source = windowed ? encoding : await voice.flowed(encoding, signal, parts)
      try {
        if (plan.length <= 1 || task.stream) {
          // Short, or streamed: this worker decodes the first chunk itself.
          const samples = plan.length === 0 ? new Float32Array(0) : await voice.decodeChunk(source, plan[0], marginFrames, signal)
          const copy = owning(samples)
          const chunks = cutChunks(voice, source, plan.slice(1))
          return move({ samples: copy, chunks, totalSamples, missingPhonemes: missing, ...timing, worker: threadId }, transferList([copy, ...chunkArrays(chunks), ...timingArrays]))
        }
        const chunks = cutChunks(voice, source, plan)
        return move({ chunks, totalSamples, missingPhonemes: missing, ...timing, worker: threadId }, transferList([...chunkArrays(chunks), ...timingArrays]))
      } finally {
        if (source !== encoding) discardBytes([source.latent])
      }
    } finally {
      discardEncoding(encoding)
    }
  })
}

async function decode (voice: PiperVoice, task: DecodeTask): Promise<DecodeResult> {
  return await cancellable(task, async signal => {
    const { chunk } = task
    try {
      // The chunk's margins are in its frames already: decoded as they are.
      const samples = owning(await voice.decodeChunk(chunk, chunk.range, voice.marginFrames(init.chunking), signal))
      return move({ samples, worker: threadId }, transferList([samples]))
    } finally {
      discardEncoding(chunk)
    }
  })
}

export default (async () => {
  nameThread(THREAD_NAMES.voiceWorker)
  const voice = await PiperVoice.load(init.modelPath, {
    config: init.config,
    session: init.session,
    // 'flow': the engine's own order (the flow's input where the graph has one, else the decoder's).
    ...(init.chunking.cut !== 'flow' ? { cut: init.chunking.cut } : {}),
    ortLibrary: init.ortLibrary,
    espeakData: init.espeakData
  })
  await beforeIdle()
  return async (task: WorkerTask): Promise<SentenceResult | DecodeResult | ReadyResult | TaskFailure> => {
    try {
      switch (task.kind) {
        case 'ready': {
          const usage = process.memoryUsage()
          return { rss: usage.rss, arrayBuffers: usage.arrayBuffers, memoryBytes: voice.memoryBytes, encoderShared: voice.encoderShared, referencePeak: voice.referencePeak, ...voice.mode }
        }
        case 'sentence': return await sentence(voice, task)
        case 'decode': return await decode(voice, task)
      }
    } catch (error) {
      return toFailure(error)
    } finally {
      // Before Piscina parks this thread in Atomics.wait() (see beforeIdle).
      await beforeIdle()
    }
  }
})()
