// Decodes ADTS AAC with Debian's faad (libfaad2; apt-get install faad): a
// decoder independent of the FFmpeg that encodes Chorus's AAC, for the tests
// and the encoder benchmark.

import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseWav } from '../../src/engine/riff-wave.js'

export const HAVE_FAAD = spawnSync('faad', ['-h']).error === undefined

const ADTS_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

/** Mono at the stream's rate. faad plays a stream at 24 kHz or below as
 * possible HE-AAC (implicit SBR and parametric stereo: twice the rate, two
 * equal channels); with no SBR data its upper band is empty, so channel 0 at
 * every second sample is the AAC-LC signal. faad drops the first decoded
 * frame and its SBR path adds a delay of its own: align by correlation. */
export function decodeAac (bytes: Uint8Array): { sampleRate: number, pcm: Int16Array } {
  if (bytes.length < 7 || bytes[0] !== 0xFF || (bytes[1] & 0xF0) !== 0xF0) throw new Error('Not an ADTS stream')
  const rate = ADTS_RATES[(bytes[2] >> 2) & 0xF]
  const dir = mkdtempSync(join(tmpdir(), 'chorus-faad-'))
  try {
    const file = join(dir, 'in.aac')
    writeFileSync(file, bytes)
    const result = spawnSync('faad', ['-q', '-o', join(dir, 'out.wav'), file])
    if (result.status !== 0) throw new Error(`faad failed: ${result.stderr.toString()}`)
    const wav = readFileSync(join(dir, 'out.wav'))
    const format = parseWav(wav)
    const step = format.sampleRate === 2 * rate ? 2 : 1
    if (format.sampleRate !== rate * step) throw new Error(`faad decoded ${rate} Hz AAC at ${format.sampleRate} Hz`)
    const samples = new Int16Array(wav.buffer.slice(wav.byteOffset + format.dataOffset, wav.byteOffset + format.dataOffset + format.dataBytes))
    const frames = samples.length / format.channels
    return { sampleRate: rate, pcm: Int16Array.from({ length: Math.floor(frames / step) }, (_, i) => samples[i * step * format.channels]) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
