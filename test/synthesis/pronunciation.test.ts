// Inline phonemes and the SSML subset through the service, on every kind of
// voice. The probe voice spells out the phoneme ids and length_scale it was
// given, so the ids are compared with those of the reading each feature
// stands for (piper1-gpl's joining of [[ ]], a say-as kind's words, another
// language's phonemes). On a bench voice (a real Piper graph, with
// durations) and the built-in voice every element and say-as kind is
// spoken with timing: the phonemes tile the audio, a break is a pause entry
// of its length, and every word is its slice of the text as sent (the SSML
// source).

import { cp, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import WebSocket from 'ws'
import { readProbeOutput } from '../../scripts/lib/probe-model.js'
import { initRuntime, parseVoiceConfig, sentencePhonemes, toCodepoints, type VoiceConfig } from '../../src/engine/index.js'
import { WAV_HEADER_BYTES } from '../../src/engine/riff-wave.js'
import { loadServiceConfig } from '../../src/service/config.js'
import { startService } from '../../src/service/server.js'
import { createLogger } from '../../src/shared/logger.js'
import type { SpeechChunk } from '../../src/synthesis/speech-service.js'
import type { TimingChunk } from '../../src/synthesis/timing.js'
import type { TtsRequest } from '../../src/synthesis/tts-request.js'
import { BUILTIN_VOICE } from '../../src/voices/builtin.js'
import { postTts } from '../helpers/service.js'
import { BENCH_VOICES, testVoiceDir } from '../helpers/voices.js'
import { localAdmission } from '../../src/synthesis/speech-admission.js'

const PROBE = 'en_US-probe-medium'
const BENCH = 'en_US-bench-medium'
const { binding } = initRuntime()

const voiceDir = await mkdtemp(join(tmpdir(), 'chorus-pronounce-'))
const probeDir = await testVoiceDir()
for (const [dir, name] of [[probeDir, PROBE], [probeDir, 'en_GB-probemulti-medium'], [BENCH_VOICES, BENCH]]) {
  for (const ext of ['.onnx', '.onnx.json']) await cp(join(dir, name + ext), join(voiceDir, name + ext))
}
const probeConfig: VoiceConfig = parseVoiceConfig(JSON.parse(await readFile(join(voiceDir, `${PROBE}.onnx.json`), 'utf8')), PROBE)
const service = await startService(loadServiceConfig({
  TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: '0', TTS_VOICE_DIR: voiceDir, TTS_DEFAULT_VOICE: PROBE,
  TTS_WORKERS_PER_VOICE: '1', TTS_TIMEOUT_SECONDS: '3600', TTS_CACHE_BYTES: '0'
}), createLogger('chorus-tts', 'error'))
t.teardown(async () => {
  await service.close()
  await rm(voiceDir, { recursive: true, force: true })
})

interface ProbeSentence { ids: number[], lengthScale: number, speakerId?: number }

/** The sentences a probe voice spoke, each from its marker (the peak) to
 * the next, less the silence of a break after it (the probe's own last
 * samples, its scales, are not zero at the default settings). */
function probeSentences (wav: Buffer, speakerInput = false): ProbeSentence[] {
  const pcm = new Int16Array(wav.buffer.slice(wav.byteOffset + WAV_HEADER_BYTES, wav.byteOffset + wav.length))
  const starts = [...pcm.keys()].filter(i => pcm[i] === 32767)
  return starts.map((s, k) => {
    let end = starts[k + 1] ?? pcm.length
    while (end > s && pcm[end - 1] === 0) end--
    return readProbeOutput(Array.from(pcm.subarray(s, end), v => v / 32767), speakerInput)
  })
}

async function spoken (body: Record<string, unknown>, path = '/tts'): Promise<ProbeSentence[]> {
  const reply = await postTts(service.url, { voice: PROBE, ...body, ...(path === '/tts' ? {} : { model: 'tts-1', response_format: 'wav', normalize: false }) }, path)
  if (reply.status !== 200) throw new Error(`${path} ${reply.status}: ${reply.body.toString()}`)
  return probeSentences(reply.body, body.voice === 'en_GB-probemulti-medium')
}

/** The ids Piper gives a sentence's phoneme string (BOS, a pad after each phoneme, EOS). */
function idsOf (phonemes: string, config = probeConfig): number[] {
  const map = new binding.PhonemeIdMap(config.phonemeIdMap)
  return Array.from(map.toIds(toCodepoints(phonemes, config.phonemeMap)).ids, Number)
}

/** A plain text's sentences as the probe voice reads them. */
function plainIds (text: string, espeakVoice = 'en-us'): number[][] {
  return sentencePhonemes(binding, text, { ...probeConfig, espeakVoice }).map(p => idsOf(String.fromCodePoint(...p)))
}

t.test('[[ ]] is read as piper1-gpl reads it, on /tts and the OpenAI route', async t => {
  // piper1-gpl: the text around a block phonemized on its own, the block
  // joined to the sentence before it, a space each side the text has one.
  const [before] = binding.phonemize('Hello ', 'en-us')
  const [after] = binding.phonemize(' world.', 'en-us')
  const expected = [idsOf(`${before} bˈætmæn ${after}`)]
  const text = 'Hello [[ bˈætmæn ]] world.'
  t.same((await spoken({ text })).map(s => s.ids), expected, '/tts')
  t.same((await spoken({ input: text }, '/v1/audio/speech')).map(s => s.ids), expected, '/v1/audio/speech')
  const next = binding.phonemize('. Next one.', 'en-us')
  t.same((await spoken({ text: '[[ ˈeɪ ]]. Next one.' })).map(s => s.ids), [idsOf('ˈeɪ' + next[0]), ...next.slice(1).map(p => idsOf(p))], 'a block with no sentence before it starts one; the text after joins it')
  t.same((await spoken({ text: 'Say \\[[x]] now.' })).map(s => s.ids), plainIds('Say [[x]] now.'), 'an escaped \\[[ is text, the backslash unspoken')
})

t.test('[[ ]] with a symbol the voice lacks is refused, naming it and where', async t => {
  const reply = await postTts(service.url, { voice: PROBE, text: 'Hi [[ hæ☃ ]] there' })
  t.equal(reply.status, 400)
  t.equal(reply.json.code, 'ERR_UNKNOWN_PHONEME')
  t.equal(reply.json.error, 'Expected phonemes that voice en_US-probe-medium can speak for [[ ]] at text offset 3 but received "hæ☃": it has no phoneme "☃" (U+2603)')
  const builtin = await postTts(service.url, { voice: BUILTIN_VOICE, text: 'Hi [[ hæ☃ ]] there' })
  t.equal(builtin.status, 400)
  t.match(builtin.json.error, /voice en_US-espeak-low .* it has no phoneme "☃"/)
})

t.test('SSML on the probe voice: the ids of what each element stands for', async t => {
  const say = async (inner: string): Promise<number[][]> => (await spoken({ text: `<speak>${inner}</speak>` })).map(s => s.ids)
  t.same(await say('Hello <phoneme alphabet="ipa" ph="bˈætmæn">Batman</phoneme>.'), [idsOf(`${binding.phonemize('Hello ', 'en-us')[0]} bˈætmæn${binding.phonemize('.', 'en-us')[0] ?? ''}`)], '<phoneme>')
  t.same(await say('I saw <sub alias="Doctor">Dr.</sub> Who.'), plainIds('I saw Doctor Who.'), '<sub>: the alias in the sentence')
  t.same(await say('<s>One</s><s>two</s>'), [...plainIds('One'), ...plainIds('two')], '<s>: two sentences')
  t.same(await say('<p>One</p><p>two</p>'), [...plainIds('One'), ...plainIds('two')], '<p>: two sentences')
  t.same(await say('<lang xml:lang="de">Guten Tag</lang>'), plainIds('Guten Tag', 'de'), '<lang>: German phonemes')
  const kinds: Array<[string, string, string]> = [
    ['characters', 'NPC', 'N P C'], ['cardinal', '1,234', '1234'], ['ordinal', '3', '3rd'], ['digits', '42', '4 2'],
    ['date', '2024-03-15', 'March 15th, 2024'], ['time', '3:05pm', '3 oh 5 pm'], ['telephone', '555-0100', '5 5 5, 0 1 0 0']
  ]
  for (const [kind, content, reading] of kinds) {
    t.same(await say(`<say-as interpret-as="${kind}">${content}</say-as>`), plainIds(reading), `<say-as interpret-as="${kind}">`)
  }
  const rates = (await spoken({ text: '<speak>Normal. <prosody rate="50%">Slow.</prosody> <prosody rate="x-fast">Fast.</prosody></speak>' })).map(s => Math.round(s.lengthScale * 100) / 100)
  t.same(rates, [1, 2, 0.67], '<prosody rate>: length_scale divided by the rate')
  const switched = await postTts(service.url, { voice: PROBE, text: '<speak>Hi <voice name="en_GB-probemulti-medium">there</voice></speak>' })
  t.equal(switched.status, 200, '<voice> switches to another voice of the same rate within one answer')
  const reply = await postTts(service.url, { voice: PROBE, text: '<speak><voice name="en_US-espeak-low">x</voice><voice name="nobody">y</voice></speak>' })
  t.equal(reply.status, 400)
  t.match(reply.json.error, /^Voice model not found: nobody/)
})

t.test('SSML only when asked: "ssml": true, or a text starting with <speak>', async t => {
  t.same((await spoken({ text: '<speak>One</speak>' })).map(s => s.ids), plainIds('One'))
  const refused = await postTts(service.url, { voice: PROBE, text: 'One <b>two</b>', ssml: true })
  t.equal(refused.status, 400)
  t.equal(refused.json.error, 'Expected one of the elements speak, p, s, break, prosody, sub, phoneme, say-as, lang, voice for an SSML element but received <b> at line 1, column 5', 'a text without <speak> is read as its content')
  t.same((await spoken({ text: 'Plain text.', ssml: false })).map(s => s.ids), plainIds('Plain text.'))
})

t.test('the WebSocket: [[ ]] in any text, SSML with enable_ssml_parsing, pieces never cut inside them', async t => {
  const ws = new WebSocket(`${service.url.replace('http', 'ws')}/v1/text-to-speech/${PROBE}/stream-input?output_format=pcm_22050&enable_ssml_parsing=true&auto_mode=true`)
  const replies: Array<Record<string, any>> = []
  ws.on('message', data => replies.push(JSON.parse(String(data))))
  const closed = new Promise<void>(resolve => ws.once('close', () => resolve()))
  await new Promise(resolve => ws.once('open', resolve))
  // Cut as a token stream would cut it: inside the block, inside a tag, inside <sub>.
  for (const text of [' ', 'Hello [[ bˈæt', 'mæn ]] world. <br', 'eak time="200ms"/> I saw <sub alias="Doctor Who">Dr. ', 'Who</sub>. ', '']) ws.send(JSON.stringify({ text }))
  await closed
  t.same(replies.filter(r => r.error !== undefined), [], 'no piece was refused')
  const pcm = Buffer.concat(replies.filter(r => typeof r.audio === 'string').map(r => Buffer.from(r.audio, 'base64')))
  const samples = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length))
  const wav = Buffer.concat([Buffer.alloc(WAV_HEADER_BYTES), pcm])
  const [after] = binding.phonemize(' world.', 'en-us')
  const heard = probeSentences(wav).map(s => JSON.stringify(s.ids))
  // auto_mode cuts at once where it may: "Hello" before the block, the block with the rest of its sentence.
  t.ok(heard.includes(JSON.stringify(idsOf(`bˈætmæn ${after}`))), '[[ ]] cut across two messages, spoken whole')
  t.equal(heard.at(-1), JSON.stringify(plainIds('Doctor Who.')[0]), '<sub> cut across two messages (inside it, after "Dr. "), spoken whole')
  let longest = 0
  let run = 0
  for (const sample of samples) {
    run = sample === 0 ? run + 1 : 0
    longest = Math.max(longest, run)
  }
  t.ok(longest >= Math.floor(22050 * 0.2), `the break's silence is there (${longest} samples of zero in a row)`)
})

interface Heard { timing: TimingChunk[], samples: number, late: number }

async function hear (request: TtsRequest): Promise<Heard> {
  const speech = await service.deps.speech.open({ request, format: 'wav', stream: request.stream, log: service.deps.log, timestamps: ['word', 'phoneme'], admission: localAdmission() })
  let bytes = 0
  let late = 0
  const timing: TimingChunk[] = []
  for await (const chunk of speech.chunks as AsyncIterable<SpeechChunk>) {
    if (chunk.kind === 'audio') bytes += chunk.bytes.length
    else {
      timing.push(chunk)
      if (chunk.phonemes.length > 0 && chunk.phonemes[0].startSample < Math.max(0, (bytes - WAV_HEADER_BYTES) / 2)) late++
    }
  }
  return { timing, samples: (bytes - WAV_HEADER_BYTES) / 2, late }
}

/** The phonemes tile the whole answer; the words are in order and each is its slice of `text`. */
function exact (t: Test, heard: Heard, text: string, label: string): string[] {
  const phonemes = heard.timing.flatMap(c => c.phonemes)
  t.equal(heard.late, 0, `${label}: every timing chunk before its audio`)
  t.ok(phonemes.every((p, i) => p.startSample === (i === 0 ? 0 : phonemes[i - 1].endSample)), `${label}: the phonemes follow each other from sample 0`)
  t.equal(phonemes.at(-1)?.endSample, heard.samples, `${label}: the last ends at the answer's last sample`)
  const words = heard.timing.flatMap(c => c.words)
  t.ok(words.every((w, i) => text.slice(w.textStart, w.textEnd) === w.word && (i === 0 || w.textStart >= words[i - 1].textStart)), `${label}: each word is its slice of the text as sent, in order`)
  return words.map(w => w.word)
}

const EVERY_ELEMENT = '<speak xml:lang="en-US"><p><s>Hello <break time="300ms"/> there.</s></p>' +
  '<prosody rate="slow" volume="loud">Slowly</prosody> <sub alias="Doctor">Dr.</sub> <phoneme alphabet="ipa" ph="təmˈeɪtoʊ">tomato</phoneme> [[ bˈætmæn ]]' +
  '<break strength="weak"/><lang xml:lang="en-GB">colour</lang>. <say-as interpret-as="characters">NPC</say-as> <say-as interpret-as="cardinal">12</say-as> ' +
  '<say-as interpret-as="ordinal">3</say-as> <say-as interpret-as="digits">42</say-as> <say-as interpret-as="date">2024-03-15</say-as> ' +
  '<say-as interpret-as="time">3:05pm</say-as> <say-as interpret-as="telephone">555-0100</say-as></speak>'
const EVERY_WORD = ['Hello', 'there', 'Slowly', 'Dr.', 'tomato', 'bˈætmæn', 'colour', 'NPC', '12', '3', '42', '2024-03-15', '3:05pm', '555-0100']

t.test('every element and say-as kind with timing, on a bench voice: exact, streamed and whole', async t => {
  for (const stream of [false, true]) {
    const heard = await hear({ text: EVERY_ELEMENT, voice: BENCH, stream })
    const label = stream ? 'streamed' : 'whole'
    t.same(exact(t, heard, EVERY_ELEMENT, label), EVERY_WORD, `${label}: the words as written, one per element`)
    const pauses = heard.timing.filter(c => c.phonemes.length === 1 && c.phonemes[0].phoneme === '_').map(c => c.endSample - c.startSample)
    t.same(pauses, [Math.floor(22050 * 0.3), Math.floor(22050 * 0.25)], `${label}: each break a pause of its length`)
  }
  const voiced = await hear({ text: '<speak>Hi <voice name="en_US-bench-medium">there</voice></speak>', voice: BUILTIN_VOICE, stream: false })
  exact(t, voiced, '<speak>Hi <voice name="en_US-bench-medium">there</voice></speak>', 'the built-in voice, then a Piper voice')
})

t.test('every element and say-as kind with timing, on the built-in voice', async t => {
  for (const stream of [false, true]) {
    const heard = await hear({ text: EVERY_ELEMENT, voice: BUILTIN_VOICE, stream })
    const label = `built-in ${stream ? 'streamed' : 'whole'}`
    const words = exact(t, heard, EVERY_ELEMENT, label)
    t.ok(EVERY_WORD.every(w => words.includes(w)), `${label}: every word as written (${words.join(' ')})`)
  }
  // espeak-ng reads [[ ]] in its own mnemonics: "həlˈoʊ" is spoken as "Hello" is.
  const sounds = async (text: string): Promise<string> => (await hear({ text, voice: BUILTIN_VOICE, stream: false })).timing.flatMap(c => c.phonemes.map(p => p.phoneme)).filter(p => p !== '^' && p !== '_').join('')
  t.equal(await sounds('[[ həlˈoʊ ]]'), await sounds('Hello'), 'IPA in [[ ]] as espeak-ng\'s own phonemes')
})
