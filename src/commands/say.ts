// chorus say "text" [--voice NAME] -o out.wav: one synthesis in this
// process, no server, through the service's own speech path (speech-service.ts). Its flags go through the shared reader (config-values.ts,
// the HTTP fields' LIMITS, errors that name the flag); it picks the voice and
// checks the settings with the service's own code (default-voice.ts,
// settings.ts, tts-request.ts), so a line that works here works over HTTP and
// the other way round. The output's extension picks the format (.mp3, .opus, .aac, .flac, .pcm;
// anything else is WAV).

import { open, rm, type FileHandle } from 'node:fs/promises'
import { resolve } from 'node:path'
import { formatForExtension, type AudioFormat } from '../audio/formats.js'
import { LIMITS } from '../engine/index.js'
import { InvalidArgumentError } from '../errors.js'
import { DEFAULT_VOICE_DIR, loadServiceConfig, type ServiceConfig } from '../service/config.js'
import { openLocalSpeech } from '../service/server.js'
import { numberSetting, parseCommandLine, pickSetting, stringSetting, type Env, type FlagValues } from '../shared/config-values.js'
import { createLogger } from '../shared/logger.js'
import { TIMING_KINDS } from '../synthesis/timing.js'
import { TimingAssembly } from '../synthesis/timing/wire.js'
import { parseTtsRequest, type TtsRequest } from '../synthesis/tts-request.js'
import { expectedMessage, hasVisibleText } from '../validate.js'
import { BUILTIN_VOICE } from '../voices/builtin.js'
import { localAdmission } from '../synthesis/speech-admission.js'

export const SAY_USAGE = `usage: chorus say TEXT [--voice NAME] [--speaker S] [--length-scale X]
         [--noise-scale X] [--noise-w X] [--sentence-silence S] [--normalize]
         [--ssml] [--lexicon ID]... [--voice-dir DIR] [--timestamps FILE.json]
         -o FILE.wav|.mp3|.opus|.aac|.flac|.pcm

Speaks TEXT into an audio file, in this process (no server needed); the
file's extension picks the format (WAV for any other; .aac needs FFmpeg's
libavcodec59, or CHORUS_AVCODEC_LIBRARY).
  --voice NAME         a voice in the voice folder, or ${BUILTIN_VOICE} (built in,
                       needs no files); default: the service's default voice
                       (TTS_DEFAULT_VOICE, else the built-in voice when that
                       is not installed)
  --voice-dir DIR      the voice folder (default: TTS_VOICE_DIR, else ./${DEFAULT_VOICE_DIR})
  --speaker S          speaker id or name, for voices with several speakers
  --length-scale X     slower when larger (0.1 to 5), and the other settings:
  --noise-scale X, --noise-w X, --sentence-silence SECONDS
                       the same ranges as POST /tts (see README)
  --normalize          read TEXT as language models write it: markdown, emoji,
                       URLs, money, units, dates and times, abbreviations
                       (English voices; docs/normalizer.md); default: as written
  --ssml               read TEXT as SSML (docs/pronunciation.md); a TEXT that
                       starts with <speak> is SSML anyway. [[ IPA ]] in any TEXT
                       is spoken as those phonemes
  --lexicon ID         apply an installed lexicon (TTS_LEXICON_DIR), up to 3;
                       the voice folder's lexicon files apply without it
  -o, --output FILE    the file to write
  --timestamps FILE    also write the word, phoneme and viseme timing as JSON
                       (docs/timing.md; Piper voices that give durations)
  -h, --help           show this help`

const OPTIONS = {
  voice: { type: 'string' },
  'voice-dir': { type: 'string' },
  speaker: { type: 'string' },
  'length-scale': { type: 'string' },
  'noise-scale': { type: 'string' },
  'noise-w': { type: 'string' },
  'sentence-silence': { type: 'string' },
  normalize: { type: 'boolean' },
  ssml: { type: 'boolean' },
  lexicon: { type: 'string', multiple: true },
  output: { type: 'string', short: 'o' },
  timestamps: { type: 'string' },
  help: { type: 'boolean', short: 'h' }
} as const

/** A synthesis setting's flag, checked against the same LIMITS as the HTTP
 * field, by the shared reader: errors name the flag, not the wire field. */
function settingFlag (values: FlagValues, flag: string, range: { min: number, max: number }): number | undefined {
  return numberSetting(pickSetting(values, flag, {}, []), range.min, range.max, null) ?? undefined
}

/** Opened before any work, so a bad path fails at once and names the flag. */
async function openOutput (path: string, flag = '-o/--output'): Promise<FileHandle> {
  try {
    return await open(path, 'w')
  } catch (error) {
    throw new InvalidArgumentError(`${expectedMessage('a file path that can be written', flag, path)}: ${(error as Error).message}`)
  }
}

/** The file's bytes, through the service's own speech path: a whole WAV
 * (exact sizes) or the encoder pool's stream, written as it is made. */
async function speak (request: TtsRequest, config: ServiceConfig, format: AudioFormat, output: FileHandle, timing?: TimingAssembly): Promise<number> {
  const log = createLogger('chorus-say', 'warn')
  const local = await openLocalSpeech(config, log)
  try {
    // The voice is resolved once, by the service (a missing one names the folder searched).
    const speech = await local.speech.open({ request, format, stream: false, log, admission: localAdmission(), ...(timing !== undefined ? { timestamps: TIMING_KINDS } : {}) })
    let bytes = 0
    // Each write awaited before the next chunk is read: the disk paces the synthesis.
    for await (const chunk of speech.chunks) {
      if (chunk.kind !== 'audio') {
        timing?.add(chunk)
        continue
      }
      await output.write(chunk.bytes)
      bytes += chunk.bytes.length
    }
    return bytes
  } finally {
    await local.close()
  }
}

export async function say (argv: string[], env: Env): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, OPTIONS, 'say', true)
  if (values.help === true) {
    console.log(SAY_USAGE)
    return 0
  }
  const text = positionals.join(' ').trim()
  if (!hasVisibleText(text)) throw new InvalidArgumentError(expectedMessage('some text to speak', 'TEXT', text))
  const outputPath = stringSetting(pickSetting(values, 'output', {}, []), undefined)
  if (outputPath === undefined) throw new InvalidArgumentError(expectedMessage('an output file', '-o/--output', undefined))
  const voiceDirFlag = stringSetting(pickSetting(values, 'voice-dir', {}, []), undefined)
  const envConfig = loadServiceConfig(env)
  const config = { ...envConfig, voiceDir: voiceDirFlag === undefined ? envConfig.voiceDir : resolve(voiceDirFlag) }
  const speakerFlag = stringSetting(pickSetting(values, 'speaker', {}, []), undefined)
  const speaker = speakerFlag === undefined ? undefined : /^\d+$/.test(speakerFlag) ? Number(speakerFlag) : speakerFlag
  // The HTTP body's checks, on the flags turned into its fields.
  const request = parseTtsRequest({
    text,
    voice: stringSetting(pickSetting(values, 'voice', {}, []), undefined),
    speaker,
    length_scale: settingFlag(values, 'length-scale', LIMITS.lengthScale),
    noise_scale: settingFlag(values, 'noise-scale', LIMITS.noiseScale),
    noise_w: settingFlag(values, 'noise-w', LIMITS.noiseW),
    sentence_silence: settingFlag(values, 'sentence-silence', LIMITS.sentenceSilence),
    normalize: values.normalize === true,
    ssml: values.ssml === true,
    ...(values.lexicon !== undefined ? { lexicons: values.lexicon } : {})
  }, config.maxTextLength)
  const timingPath = stringSetting(pickSetting(values, 'timestamps', {}, []), undefined)
  const output = await openOutput(outputPath)
  const timingFile = timingPath === undefined ? undefined : await openOutput(timingPath, '--timestamps')
  // The --timestamps file: every chunk's events, in the HTTP answer's shape.
  const timing = timingFile === undefined ? undefined : new TimingAssembly()
  let bytes: number
  try {
    bytes = await speak(request, config, formatForExtension(outputPath) ?? 'wav', output, timing)
    await timingFile?.writeFile(JSON.stringify(timing?.events) + '\n')
  } catch (error) {
    await output.close()
    await timingFile?.close()
    await rm(outputPath, { force: true })
    if (timingPath !== undefined) await rm(timingPath, { force: true })
    throw error
  }
  await output.close()
  await timingFile?.close()
  console.log(`wrote ${outputPath} (${bytes} bytes)${timingPath !== undefined ? ` and ${timingPath}` : ''}`)
  return 0
}
