// WAV as a stream: the header with an open-ended length (the total is not
// known until the last sentence), then the PCM as it comes. Players and
// decoders read such a file to its end.

import { pcmBytes, UNKNOWN_LENGTH, wavHeader } from '../engine/riff-wave.js'
import { EMPTY, type StreamEncoder } from './encoder.js'

export async function createWavEncoder (sampleRate: number): Promise<StreamEncoder> {
  let header: Buffer | undefined = wavHeader(UNKNOWN_LENGTH, sampleRate)
  const takeHeader = (): Uint8Array => {
    const h = header ?? EMPTY
    header = undefined
    return h
  }
  return {
    push: pcm => Buffer.concat([takeHeader(), pcmBytes(pcm)]),
    finish: () => takeHeader(),
    close: () => {}
  }
}
