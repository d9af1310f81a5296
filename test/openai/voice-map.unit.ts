// TTS_OPENAI_VOICES: read once at start-up; a bad file stops the service
// with exit code 2 and a message naming the entry.

import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { DEFAULT_VOICE_MAP, loadVoiceMap, OPENAI_VOICES } from '../../src/openai/voice-map.js'
import { chorusCommand } from '../helpers/chorus-command.js'
import { CHILD_HANG_GUARD_MS } from '../helpers/hang-guard.js'

const dir = await mkdtemp(join(tmpdir(), 'chorus-voice-map-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

async function file (name: string, content: string): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, content)
  return path
}

t.test('every OpenAI voice has a default onto a bundled voice', async t => {
  t.same(Object.keys(DEFAULT_VOICE_MAP).sort(), [...OPENAI_VOICES].sort())
  for (const target of Object.values(DEFAULT_VOICE_MAP)) t.match(target.voice, /^en_US-(lessac|ryan)-medium$/)
  t.same(loadVoiceMap(undefined), DEFAULT_VOICE_MAP)
})

t.test('a file replaces entries and adds names', async t => {
  const map = loadVoiceMap(await file('ok.json', JSON.stringify({ alloy: 'en_GB-alba-medium', echo: { voice: 'en_GB-vctk-medium', speaker: 'p226' }, narrator: { voice: 'en_US-ryan-medium', speaker: 0 } })))
  t.same(map.alloy, { voice: 'en_GB-alba-medium' })
  t.same(map.echo, { voice: 'en_GB-vctk-medium', speaker: 'p226' })
  t.same(map.narrator, { voice: 'en_US-ryan-medium', speaker: 0 })
  t.same(map.onyx, DEFAULT_VOICE_MAP.onyx, 'others keep their defaults')
})

t.test('bad files are refused with the entry named', async t => {
  const cases: Array<[string, RegExp]> = [
    ['{not json', /TTS_OPENAI_VOICES: cannot read .* as JSON/],
    ['[1]', /Expected a JSON object of voice names for the file in TTS_OPENAI_VOICES .* but received \[1\] \(array\)/],
    ['{"alloy": "../etc/passwd"}', /Expected a voice name like en_US-lessac-medium for "alloy" in TTS_OPENAI_VOICES .* but received "..\/etc\/passwd" \(string\)/],
    ['{"echo": {"voice": "en_US-ryan-medium", "speaker": -1}}', /Expected a speaker id \(integer from 0\) or name for "echo".speaker .* but received -1 \(number\)/],
    ['{"Big Name": "en_US-ryan-medium"}', /for a key in TTS_OPENAI_VOICES .* but received "Big Name"/]
  ]
  for (const [content, message] of cases) {
    t.throws(() => loadVoiceMap(join(dir, 'missing.json')), { code: 'ERR_CONFIG' })
    const path = await file('bad.json', content)
    t.throws(() => loadVoiceMap(path), { code: 'ERR_CONFIG', message }, content)
  }
})

t.test('chorus serve stops with exit code 2 on a bad mapping file', async t => {
  const path = await file('serve.json', '{"alloy": 7}')
  const result = await promisify(execFile)(...chorusCommand(['serve']), {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TTS_OPENAI_VOICES: path, TTS_HTTP_PORT: '0', TTS_VOICE_DIR: dir }, timeout: CHILD_HANG_GUARD_MS
  }).then(() => ({ code: 0, stderr: '' }), (error: { code: number, stderr: string }) => error)
  t.equal(result.code, 2)
  t.match(result.stderr, /Expected a voice name or \{"voice": …, "speaker": …\} for "alloy" in TTS_OPENAI_VOICES/)
})
