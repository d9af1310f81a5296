// Lexicons end to end, on the probe voice (its audio spells out the phoneme
// ids it was given): a PLS file with a <phoneme> and an <alias> entry,
// uploaded through the admin API and named in a request, changes exactly
// those words' ids over POST /tts, the OpenAI route and the WebSocket (LiveKit's
// ElevenLabs plugin, unmodified, passing a dictionary locator). Versions,
// scopes (global, voice, API key), the voice folder's files, the check of
// IPA at upload and the caps.

import { setImmediate as nextTurn } from 'node:timers/promises'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { initializeLogger, tts as livekitTts } from '@livekit/agents'
import { TTS, type TTSEncoding } from '@livekit/agents-plugin-elevenlabs'
import { readProbeOutput } from '../../scripts/lib/probe-model.js'
import { initRuntime, toCodepoints } from '../../src/engine/index.js'
import { WAV_HEADER_BYTES } from '../../src/engine/riff-wave.js'
import { STORE_LIMITS } from '../../src/lexicons/store.js'
import { postTts, startTestService } from '../helpers/service.js'

const ADMIN = 'admin-key-0123456789abcdef'
const KEY_A = 'user-key-a-0123456789abcdef'
const KEY_B = 'user-key-b-0123456789abcdef'
const VOICE = 'en_US-probe-medium'
const { binding } = initRuntime()

initializeLogger({ pretty: false, level: 'warn' })
const keysDir = await mkdtemp(join(tmpdir(), 'chorus-lexicon-keys-'))
const keysFile = join(keysDir, 'keys.json')
await writeFile(keysFile, JSON.stringify({ keys: { [ADMIN]: { name: 'ops', role: 'admin' }, [KEY_A]: { name: 'bot-a' }, [KEY_B]: { name: 'bot-b' } } }))
const service = await startTestService({ TTS_API_KEYS_FILE: keysFile }, [VOICE, 'en_GB-probemulti-medium'])
t.teardown(async () => {
  await service.stop()
  await rm(keysDir, { recursive: true, force: true })
})
const probeConfig = service.deps.registry.get(VOICE)?.config
if (probeConfig === undefined) throw new Error('the probe voice is not installed')

const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>Xyrith</grapheme><phoneme>zˈɪɹɪθ</phoneme></lexeme>
  <lexeme><grapheme>NPC</grapheme><alias>N P C</alias></lexeme>
</lexicon>`
const TEXT = 'Xyrith met an NPC today.'

async function admin (method: string, path: string, body?: string, type = 'application/pls+xml'): Promise<{ status: number, json: any, text: string }> {
  const reply = await fetch(service.url + path, { method, headers: { Authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'Content-Type': type }) }, ...(body === undefined ? {} : { body }) })
  const text = await reply.text()
  const json: unknown = reply.headers.get('content-type')?.startsWith('application/json') === true ? JSON.parse(text) : undefined
  return { status: reply.status, json, text }
}

/** The ids of the probe voice's first sentence in a WAV (or raw 16-bit PCM when `raw`). */
function probeIds (audio: Buffer, raw = false): number[] {
  const bytes = raw ? audio : audio.subarray(WAV_HEADER_BYTES)
  const pcm = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))
  const next = pcm.indexOf(32767, 1)
  return readProbeOutput(Array.from(pcm.subarray(0, next < 0 ? pcm.length : next), v => v / 32767), false).ids
}

function idsOf (phonemes: string): number[] {
  const map = new binding.PhonemeIdMap(probeConfig?.phonemeIdMap ?? {})
  return Array.from(map.toIds(toCodepoints(phonemes, probeConfig?.phonemeMap ?? {})).ids, Number)
}

async function tts (body: Record<string, unknown>, key = KEY_A): Promise<number[]> {
  const reply = await fetch(`${service.url}/tts`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` }, body: JSON.stringify({ voice: VOICE, ...body }) })
  const bytes = Buffer.from(await reply.arrayBuffer())
  if (reply.status !== 200) throw new Error(`POST /tts ${reply.status}: ${bytes.toString()}`)
  return probeIds(bytes)
}

// What the lexicon should change: the alias read in place of "NPC" (in the
// same sentence), and Xyrith's phonemes in place of espeak-ng's reading.
const [plain] = binding.phonemize(TEXT, 'en-us')
const [aliased] = binding.phonemize('Xyrith met an N P C today.', 'en-us')
const EXPECTED = idsOf('zˈɪɹɪθ' + aliased.slice(aliased.indexOf(' ')))

t.test('a PLS file uploaded through the admin API: 201 with its id and version id', async t => {
  const made = await admin('POST', '/admin/lexicons/game', PLS)
  t.equal(made.status, 201, made.text)
  t.match(made.json, { id: 'game', version_id: 'v1', latest_version_id: 'v1', scope: 'named', entries: 2 })
  t.match((await admin('GET', '/admin/lexicons')).json, { lexicons: [{ id: 'game', versions: [{ version_id: 'v1', format: 'pls', entries: 2, language: 'en-US' }] }] })
  const file = await admin('GET', '/admin/lexicons/game/v1')
  t.equal(file.text, PLS, 'the version downloads as uploaded')
})

t.test('named in a request, it changes exactly those words\' ids: /tts, the OpenAI route, the WebSocket', async t => {
  t.not(plain.split(' ')[0], 'zˈɪɹɪθ', 'espeak-ng reads Xyrith otherwise (else this test shows nothing)')
  t.same(plain.split(' ').slice(1, 3), aliased.split(' ').slice(1, 3), 'the words between keep their phonemes')
  t.same(await tts({ text: TEXT }), idsOf(plain), 'not named: espeak-ng\'s reading')
  t.same(await tts({ text: TEXT, lexicons: ['game'] }), EXPECTED, '/tts lexicons')
  t.same(await tts({ text: TEXT, pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'game', version_id: 'v1' }] }), EXPECTED, '/tts pronunciation_dictionary_locators')
  const openai = await fetch(`${service.url}/v1/audio/speech`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY_A}` }, body: JSON.stringify({ model: 'tts-1', voice: VOICE, input: TEXT, response_format: 'wav', normalize: false, lexicons: [{ id: 'game' }] }) })
  t.equal(openai.status, 200)
  t.same(probeIds(Buffer.from(await openai.arrayBuffer())), EXPECTED, '/v1/audio/speech lexicons (a Chorus extension)')

  const eleven = new TTS({ apiKey: KEY_A, baseURL: `${service.url}/v1`, voiceId: VOICE, encoding: 'pcm_22050' as TTSEncoding, pronunciationDictionaryLocators: [{ pronunciation_dictionary_id: 'game', version_id: 'v1' }] })
  const stream = eleven.stream({ connOptions: { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 3_600_000 } })
  const feeding = (async () => {
    for (const token of TEXT.split(/(?=\s)/)) {
      stream.pushText(token)
      await nextTurn()
    }
    stream.flush()
    stream.endInput()
  })()
  const frames: Buffer[] = []
  for await (const event of stream) {
    if (event === livekitTts.SynthesizeStream.END_OF_STREAM) continue
    const { data } = event.frame
    frames.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength))
  }
  await feeding
  await eleven.close()
  t.same(probeIds(Buffer.concat(frames), true), EXPECTED, 'the WebSocket, LiveKit\'s ElevenLabs plugin passing a dictionary locator')
})

t.test('versions: a new upload is the latest; a request may name an older one; deleting a version', async t => {
  const second = await admin('POST', '/admin/lexicons/game', PLS.replace('zˈɪɹɪθ', 'zaɪɹˈɪθ'))
  t.equal(second.json.version_id, 'v2')
  const v2 = idsOf('zaɪɹˈɪθ' + aliased.slice(aliased.indexOf(' ')))
  t.same(await tts({ text: TEXT, lexicons: ['game'] }), v2, 'the latest version')
  t.same(await tts({ text: TEXT, lexicons: [{ id: 'game', version: 'v1' }] }), EXPECTED, 'a version named')
  t.equal((await admin('DELETE', '/admin/lexicons/game/v2')).status, 204)
  t.same(await tts({ text: TEXT, lexicons: ['game'] }), EXPECTED, 'v1 is the latest again')
  t.equal((await admin('GET', '/admin/lexicons/game/v2')).status, 404)
})

t.test('phonemes a voice cannot speak are refused at upload, naming the symbol, the entry and the voice', async t => {
  const bad = await admin('POST', '/admin/lexicons/typo', PLS.replace('zˈɪɹɪθ', 'zˈɪɹɪ☃'))
  t.equal(bad.status, 400)
  t.equal(bad.json.code, 'ERR_INVALID_LEXICON')
  t.match(bad.json.error, /^Expected phonemes that voice en_\w+-probe\w*-medium can speak for lexicon "typo" version v1, lexeme 1 \("Xyrith"\) but received "zˈɪɹɪ☃": it has no phoneme "☃" \(U\+2603\)$/)
  t.equal((await admin('GET', '/admin/lexicons/typo')).status, 404, 'nothing kept')
  const broken = await admin('POST', '/admin/lexicons/broken', '<lexicon xml:lang="en"><lexeme><grapheme>x</grapheme></lexeme></lexicon>')
  t.match(broken, { status: 400, json: { error: 'Expected a <phoneme> or an <alias> for lexeme 1 ("x") but received none at line 1, column 24' } })
  t.equal((await admin('POST', '/admin/lexicons/game', 'x', 'text/plain')).status, 415)
  t.equal((await admin('POST', '/admin/lexicons/.hidden', '{}', 'application/json')).status, 400, 'an id is never a path')
})

t.test('scopes: global, a voice\'s, an API key\'s; the voice folder\'s files', async t => {
  const text = 'Hello Xyrith.'
  const [hello] = binding.phonemize(text, 'en-us')
  const replaced = idsOf(hello.slice(0, hello.indexOf(' ') + 1) + 'zˈɪɹɪθ.')
  t.equal((await admin('POST', '/admin/lexicons/mine?scope=key:bot-a', JSON.stringify({ Xyrith: '/zˈɪɹɪθ/' }), 'application/json')).status, 201)
  t.same(await tts({ text }, KEY_A), replaced, 'a key\'s lexicon applies to its requests unnamed')
  t.same(await tts({ text }, KEY_B), idsOf(hello), 'not to another key\'s')
  const foreign = await fetch(`${service.url}/tts`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY_B}` }, body: JSON.stringify({ voice: VOICE, text, lexicons: ['mine'] }) })
  t.equal(foreign.status, 400, 'another key cannot name it')
  t.equal(((await foreign.json()) as { error: string }).error, 'Expected an installed lexicon for lexicons[0] but received "mine"')
  t.equal((await admin('DELETE', '/admin/lexicons/mine')).status, 204)

  t.equal((await admin('POST', `/admin/lexicons/voice?scope=voice:${VOICE}`, JSON.stringify({ xyrith: '/zˈɪɹɪθ/' }), 'application/json')).status, 201)
  t.same(await tts({ text }, KEY_B), replaced, 'a voice\'s lexicon applies to that voice')
  t.equal((await admin('DELETE', '/admin/lexicons/voice')).status, 204)

  t.equal((await admin('POST', '/admin/lexicons/everyone?scope=global', JSON.stringify({ Xyrith: '/zˈɪɹɪθ/' }), 'application/json')).status, 201)
  t.same(await tts({ text }, KEY_B), replaced, 'a global lexicon applies to every request')
  t.equal((await admin('DELETE', '/admin/lexicons/everyone')).status, 204)
  t.same(await tts({ text }, KEY_B), idsOf(hello), 'deleted: gone')

  await writeFile(join(service.voiceDir, `${VOICE}.lexicon.json`), JSON.stringify({ Xyrith: '/zˈɪɹɪθ/' }))
  t.same(await tts({ text }, KEY_B), replaced, '<voice>.lexicon.json in the voice folder')
  await rm(join(service.voiceDir, `${VOICE}.lexicon.json`))
  t.same(await tts({ text }, KEY_B), idsOf(hello), 'removed: gone')
})

t.test('bounded: names per request, lexicons installed', async t => {
  const refused = await postTts(service.url, { text: TEXT, lexicons: ['a', 'b', 'c', 'd'] })
  t.equal(refused.status, 401, 'keys first')
  const many = await fetch(`${service.url}/tts`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY_A}` }, body: JSON.stringify({ voice: VOICE, text: TEXT, lexicons: ['a', 'b', 'c', 'd'] }) })
  t.equal(many.status, 400)
  t.match(((await many.json()) as { error: string }).error, /^Expected a list of at most 3 items/)
  const installed = (await admin('GET', '/admin/lexicons')).json.lexicons.length
  for (let i = installed; i < STORE_LIMITS.lexicons; i++) {
    t.equal((await admin('POST', `/admin/lexicons/filler-${i}`, JSON.stringify({ word: 'word' }), 'application/json')).status, 201)
  }
  const over = await admin('POST', '/admin/lexicons/one-more', JSON.stringify({ word: 'word' }), 'application/json')
  t.equal(over.status, 409)
  t.equal(over.json.error, `Expected at most ${STORE_LIMITS.lexicons} lexicons (delete one first) but received one more`)
  t.equal((await admin('POST', '/admin/lexicons/game', PLS)).status, 201, 'a new version of one installed is still taken')
})
