// ElevenLabs' output_format names onto the service's formats and encoder
// options: codec_rate[_bitrate].

import type { EncoderOptions } from '../audio/encoder.js'
import type { AudioFormat } from '../audio/formats.js'
import { invalid } from '../validate.js'

export interface OutputFormat {
  /** As the client asked, e.g. pcm_16000. */
  name: string
  format: AudioFormat
  encoding: EncoderOptions
  /** Bytes per second of audio for raw formats (pcm, μ-law), else undefined. */
  bytesPerSecond?: number
}

const PCM_RATES = [8000, 16000, 22050, 24000, 44100, 48000]
const MP3_VARIANTS = ['22050_32', '44100_32', '44100_64', '44100_96', '44100_128', '44100_192']

/** Every name accepted, for the error message and the docs. */
export const OUTPUT_FORMATS: readonly string[] = [
  ...PCM_RATES.map(rate => `pcm_${rate}`), 'ulaw_8000', 'alaw_8000', ...MP3_VARIANTS.map(v => `mp3_${v}`)
]

/** ElevenLabs' default. */
export const DEFAULT_OUTPUT_FORMAT = 'mp3_44100_128'

export function parseOutputFormat (value: string | undefined): OutputFormat {
  const name = value ?? DEFAULT_OUTPUT_FORMAT
  if (!OUTPUT_FORMATS.includes(name)) throw invalid(`one of ${OUTPUT_FORMATS.join(', ')}`, 'output_format', name)
  const [codec, rate, bitrate] = name.split('_')
  if (codec === 'pcm') return { name, format: 'pcm', encoding: { rate: Number(rate) }, bytesPerSecond: 2 * Number(rate) }
  if (codec === 'ulaw') return { name, format: 'pcm', encoding: { rate: Number(rate), ulaw: true }, bytesPerSecond: Number(rate) }
  if (codec === 'alaw') return { name, format: 'pcm', encoding: { rate: Number(rate), alaw: true }, bytesPerSecond: Number(rate) }
  return { name, format: 'mp3', encoding: { rate: Number(rate), bitrate: Number(bitrate) } }
}
