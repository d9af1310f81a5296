// The audio formats the service speaks: wire name → content type, file
// extension and encoder. One table read by request validation, the OpenAPI
// document, the CLI (by extension) and the encoder workers.

import type { EncoderFactory } from './encoder.js'

export const AUDIO_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const
export type AudioFormat = typeof AUDIO_FORMATS[number]

export interface FormatInfo {
  /** As OpenAI's speech API sends it. */
  contentType: string
  extension: string
  /** Loaded lazily, in the encoder worker: the main thread never loads a codec. */
  encoder: () => Promise<EncoderFactory>
  /** Its codec is FFmpeg's, which the machine may lack (avcodec.ts). */
  needsAvcodec?: true
}

export const FORMAT_INFO: Record<AudioFormat, FormatInfo> = {
  wav: { contentType: 'audio/wav', extension: 'wav', encoder: async () => (await import('./wav-stream.js')).createWavEncoder },
  mp3: { contentType: 'audio/mpeg', extension: 'mp3', encoder: async () => (await import('./mp3.js')).createMp3Encoder },
  opus: { contentType: 'audio/ogg', extension: 'opus', encoder: async () => (await import('./opus.js')).createOpusEncoder },
  aac: { contentType: 'audio/aac', extension: 'aac', encoder: async () => (await import('./aac.js')).createAacEncoder, needsAvcodec: true },
  flac: { contentType: 'audio/flac', extension: 'flac', encoder: async () => (await import('./flac.js')).createFlacEncoder },
  pcm: { contentType: 'audio/pcm', extension: 'pcm', encoder: async () => (await import('./pcm.js')).createPcmEncoder }
}

export function isAudioFormat (value: unknown): value is AudioFormat {
  return typeof value === 'string' && (AUDIO_FORMATS as readonly string[]).includes(value)
}

/** `x.mp3` → mp3; undefined for an extension no format uses. */
export function formatForExtension (path: string): AudioFormat | undefined {
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase()
  return AUDIO_FORMATS.find(f => FORMAT_INFO[f].extension === extension)
}

/** The format an Accept header asks for (first listed match), if any. */
export function formatForAccept (accept: string): AudioFormat | undefined {
  for (const part of accept.split(',')) {
    const type = part.split(';')[0].trim().toLowerCase()
    const match = AUDIO_FORMATS.find(f => FORMAT_INFO[f].contentType === type)
    if (match !== undefined) return match
  }
  return undefined
}
