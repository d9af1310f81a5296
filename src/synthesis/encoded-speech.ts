// Synthesis whose sentences are encoded into a compressed format as they are
// made: each chunk of a sentence (with the silence before the sentence, in
// bounded pieces) goes to an encoder worker, and its encoded bytes are handed
// on before the next chunk is taken, so a slow reader slows the synthesis.

import type { EncoderOptions } from '../audio/encoder.js'
import type { EncoderPool } from '../audio/encoder-pool.js'
import type { AudioFormat } from '../audio/formats.js'
import { silencePieces } from './audio-ceiling.js'
import { runHooks, type SpeechRun } from './wav-speech.js'

export async function encodeSpeech (run: SpeechRun, encoders: EncoderPool, format: AudioFormat, options?: EncoderOptions): Promise<void> {
  const { prepared, ceiling } = run
  // The encoder starts while the first sentence is synthesised, not before:
  // its set-up waits in the encoder worker's queue behind other streams'
  // chunks, and that wait would otherwise delay the first byte.
  const opening = encoders.open(format, prepared.sampleRate, options)
  // A failed open surfaces at the first chunk; until then it must not count as unhandled.
  opening.catch(() => {})
  const deliver = async (bytes: Uint8Array): Promise<void> => {
    if (bytes.length > 0) await run.write(bytes)
  }
  try {
    await run.synthesizer.run(prepared, run.text, run.signal, {
      ...runHooks(run, true),
      onChunk: async (pcm, sentence, chunk) => {
        const session = await opening
        for (const silence of silencePieces(ceiling.gapBefore(sentence, chunk))) {
          ceiling.add(silence.length)
          await deliver(await session.push(silence))
        }
        ceiling.add(pcm.length)
        await deliver(await session.push(pcm))
      }
    })
    await deliver(await (await opening).finish())
  } catch (error) {
    opening.then(session => session.close(), () => {})
    throw error
  }
}
