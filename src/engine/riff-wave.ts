// RIFF/WAVE encoding of 16-bit mono PCM. Pure functions.

export const WAV_HEADER_BYTES = 44

/** Data size a streaming header announces when the length is not known yet. */
export const UNKNOWN_LENGTH = 0xFFFFFFFF

/** The 44-byte header for `dataBytes` bytes of 16-bit mono PCM. Pass
 * UNKNOWN_LENGTH for a stream whose length is not known in advance. */
export function wavHeader (dataBytes: number, sampleRate: number): Buffer {
  const header = Buffer.alloc(WAV_HEADER_BYTES)
  const channels = 1
  const bytesPerSample = 2
  const riffSize = dataBytes === UNKNOWN_LENGTH ? UNKNOWN_LENGTH : 36 + dataBytes
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(riffSize, 4)
  header.write('WAVE', 8, 'ascii')
  header.write('fmt ', 12, 'ascii')
  header.writeUInt32LE(16, 16) // fmt chunk size for PCM
  header.writeUInt16LE(1, 20) // format: PCM
  header.writeUInt16LE(channels, 22)
  header.writeUInt32LE(sampleRate, 24)
  header.writeUInt32LE(sampleRate * channels * bytesPerSample, 28) // byte rate
  header.writeUInt16LE(channels * bytesPerSample, 32) // block align
  header.writeUInt16LE(16, 34) // bits per sample
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(dataBytes, 40)
  return header
}

/** PCM samples as little-endian bytes, without copying on little-endian hosts. */
export function pcmBytes (pcm: Int16Array): Buffer {
  return Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength)
}

/** A complete WAV file. */
export function encodeWav (pcm: Int16Array, sampleRate: number): Buffer {
  return encodeWavSentences([pcm], 0, sampleRate)
}

/** A complete WAV file of sentences with `silenceSamples` zero samples
 * between consecutive ones: the PCM is written once, straight into the
 * file's buffer, with no intermediate joined copy. */
export function encodeWavSentences (sentences: readonly Int16Array[], silenceSamples: number, sampleRate: number): Buffer {
  const samples = sentences.reduce((sum, s) => sum + s.length, 0) + Math.max(0, sentences.length - 1) * silenceSamples
  const wav = Buffer.alloc(WAV_HEADER_BYTES + samples * 2)
  wavHeader(samples * 2, sampleRate).copy(wav, 0)
  let offset = WAV_HEADER_BYTES
  sentences.forEach((sentence, i) => {
    if (i > 0) offset += silenceSamples * 2
    pcmBytes(sentence).copy(wav, offset)
    offset += sentence.byteLength
  })
  return wav
}

export interface WavInfo {
  sampleRate: number
  channels: number
  bitsPerSample: number
  dataOffset: number
  dataBytes: number
  /** Seconds of audio in the data that is present. */
  duration: number
}

/** Reads a WAV file's format and data chunk (for tests and the harness). */
export function parseWav (bytes: Uint8Array): WavInfo {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view.length < 12 || view.toString('ascii', 0, 4) !== 'RIFF' || view.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('Not a RIFF/WAVE file')
  }
  let offset = 12
  let format: { sampleRate: number, channels: number, bitsPerSample: number } | undefined
  while (offset + 8 <= view.length) {
    const id = view.toString('ascii', offset, offset + 4)
    const size = view.readUInt32LE(offset + 4)
    const body = offset + 8
    if (id === 'fmt ') {
      format = { channels: view.readUInt16LE(body + 2), sampleRate: view.readUInt32LE(body + 4), bitsPerSample: view.readUInt16LE(body + 14) }
    } else if (id === 'data') {
      if (format === undefined) throw new Error('WAV data chunk before fmt chunk')
      const present = Math.min(size, view.length - body)
      const bytesPerSecond = format.sampleRate * format.channels * format.bitsPerSample / 8
      return { ...format, dataOffset: body, dataBytes: present, duration: present / bytesPerSecond }
    }
    offset = body + size + (size % 2)
  }
  throw new Error('WAV file has no data chunk')
}
