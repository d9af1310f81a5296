// A whole WAV file re-encoded into another format, in this thread: for the
// CLI (`chorus say -o x.mp3`), where there is nothing else to keep responsive.

import { parseWav } from '../engine/wav.js'
import { concatBytes } from './encoder.js'
import { FORMAT_INFO, type AudioFormat } from './formats.js'

export async function encodeWavFile (wav: Buffer, format: AudioFormat): Promise<Buffer> {
  if (format === 'wav') return wav
  const info = parseWav(wav)
  const pcm = new Int16Array(wav.buffer.slice(wav.byteOffset + info.dataOffset, wav.byteOffset + info.dataOffset + info.dataBytes))
  const encoder = await (await FORMAT_INFO[format].encoder())(info.sampleRate)
  const bytes = concatBytes([encoder.push(pcm), encoder.finish()])
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
