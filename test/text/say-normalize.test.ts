// chorus say --normalize: the same normalizer as the HTTP fields, off unless
// the flag is given. Run in this process; the probe voice's audio carries
// the phoneme ids it was given.

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { readProbeOutput } from '../../scripts/lib/probe-model.js'
import { say, SAY_USAGE } from '../../src/commands/say.js'
import { testVoiceDir } from '../helpers/voices.js'

const out = await mkdtemp(join(tmpdir(), 'chorus-say-normalize-'))
t.teardown(() => rm(out, { recursive: true, force: true }))
const env = { TTS_VOICE_DIR: await testVoiceDir(), TTS_WORKERS_PER_VOICE: '1' }

async function idsSaid (t: Test, text: string, ...flags: string[]): Promise<number[]> {
  const file = join(out, `${Math.random().toString(36).slice(2)}.wav`)
  t.equal(await say([text, '--voice', 'en_US-probe-medium', ...flags, '-o', file], env), 0)
  const wav = await readFile(file)
  const pcm = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length))
  return readProbeOutput(Array.from(pcm, s => s / 32767), false).ids
}

t.test('--normalize reads "$5" as "5 dollars"; without it the text is spoken as written', async t => {
  const raw = await idsSaid(t, 'It costs $5 today.')
  const spoken = await idsSaid(t, 'It costs 5 dollars today.')
  t.notSame(raw, spoken)
  t.same(await idsSaid(t, 'It costs $5 today.', '--normalize'), spoken)
})

t.test('the usage names the flag', async t => {
  t.match(SAY_USAGE, /--normalize/)
})
