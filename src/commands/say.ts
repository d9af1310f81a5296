// chorus say "text" --voice NAME [--speaker S] -o out.wav: one synthesis in
// this process, no server. The output's extension picks the format (.mp3,
// .opus, .flac, .pcm; anything else is WAV). The voice comes from TTS_VOICE_DIR (or
// --voice-dir); the built-in voice needs no files.

import { existsSync } from 'node:fs'
import { encodeWavFile } from '../audio/encode-file.js'
import { formatForExtension } from '../audio/formats.js'
import { writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { encodeWav, initRuntime, joinSentences, PiperVoice, resolveSynthesisConfig, silenceLength } from '../engine/index.js'
import { InvalidArgumentError, VoiceNotFoundError } from '../errors.js'
import { loadServiceConfig } from '../service/config.js'
import type { Env } from '../service/env.js'
import { BUILTIN_VOICE, espeakRate, splitSentences } from '../voices/builtin.js'
import { voiceFiles } from '../voices/voice-name.js'
import { expectedMessage } from '../validate.js'

function numberFlag (value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const parsed = Number(value)
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new InvalidArgumentError(expectedMessage('a number', flag, value))
  return parsed
}

export async function say (argv: string[], env: Env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      voice: { type: 'string' },
      'voice-dir': { type: 'string' },
      speaker: { type: 'string' },
      'length-scale': { type: 'string' },
      'noise-scale': { type: 'string' },
      'noise-w': { type: 'string' },
      'sentence-silence': { type: 'string' },
      output: { type: 'string', short: 'o' }
    }
  })
  const text = positionals.join(' ').trim()
  if (text === '') throw new InvalidArgumentError(expectedMessage('some text to speak', 'TEXT', text))
  if (values.output === undefined) throw new InvalidArgumentError(expectedMessage('an output file', '-o/--output', undefined))
  const config = loadServiceConfig(env)
  const voiceDir = values['voice-dir'] ?? config.voiceDir
  const name = values.voice ?? config.defaultVoice
  const speaker = values.speaker === undefined ? undefined : /^\d+$/.test(values.speaker) ? Number(values.speaker) : values.speaker
  const overrides = {
    lengthScale: numberFlag(values['length-scale'], '--length-scale'),
    noiseScale: numberFlag(values['noise-scale'], '--noise-scale'),
    noiseW: numberFlag(values['noise-w'], '--noise-w'),
    sentenceSilence: numberFlag(values['sentence-silence'], '--sentence-silence'),
    speaker
  }
  const runtime = initRuntime({ ortLibrary: config.ortLibrary, espeakData: config.espeakData })
  let wav: Buffer
  if (name === BUILTIN_VOICE) {
    const rate = espeakRate(overrides.lengthScale ?? 1)
    const sentences: Int16Array[] = []
    for (const sentence of splitSentences(text)) sentences.push(await runtime.binding.espeakSynthesize(sentence, 'en-us', rate))
    const gap = silenceLength(runtime.espeakSampleRate, overrides.sentenceSilence ?? 0)
    wav = encodeWav(joinSentences(sentences, gap), runtime.espeakSampleRate)
  } else {
    const files = voiceFiles(voiceDir, name)
    if (!existsSync(files.model)) throw new VoiceNotFoundError(name, [])
    const voice = await PiperVoice.load(files.model, { configPath: files.config, warmUp: false, ortLibrary: config.ortLibrary, espeakData: config.espeakData })
    try {
      const result = await voice.synthesize(text, resolveSynthesisConfig(overrides, voice.config))
      wav = encodeWav(result.pcm, result.sampleRate)
    } finally {
      voice.close()
    }
  }
  const file = await encodeWavFile(wav, formatForExtension(values.output) ?? 'wav')
  await writeFile(values.output, file)
  console.log(`wrote ${values.output} (${file.length} bytes)`)
  return 0
}
