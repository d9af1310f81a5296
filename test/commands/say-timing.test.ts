// `chorus say --timestamps FILE.json` writes the timing beside the audio:
// phonemes from the first sample to the WAV's last, and the words. A `say`
// is a process start and a bench voice load: one run, of a text with two
// sentences, SSML and an inline phoneme block, serves every check on a
// written file (the service's timing of plain text: test/synthesis/timing.test.ts).

import { execFile } from 'node:child_process'
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { BENCH_VOICES } from '../helpers/voices.js'
import { chorusCommand } from '../helpers/chorus-command.js'

const run = promisify(execFile)
const VOICE = 'en_US-bench-x_low'
const dir = await mkdtemp(join(tmpdir(), 'chorus-say-timing-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
for (const ext of ['.onnx', '.onnx.json']) await cp(join(BENCH_VOICES, VOICE + ext), join(dir, VOICE + ext))

const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TTS_VOICE_DIR: dir, TTS_TIMEOUT_SECONDS: '3600' }
const SSML_TEXT = 'Hello there [[ bˈætmæn ]] <break time="200ms"/> <sub alias="Doctor">Dr.</sub> Who. Goodbye.'

interface Said { stdout: string, json: string, timing: any, samples: number }

/** The one `say` of SSML_TEXT with --timestamps, run by the first test that asks. */
let said: Promise<Said> | undefined
async function sayOnce (): Promise<Said> {
  said ??= (async () => {
    const wav = join(dir, 'a.wav')
    const json = join(dir, 'a.json')
    const { stdout } = await run(...chorusCommand(['say', SSML_TEXT, '--ssml', '--voice', VOICE,
      '--sentence-silence', '0.25', '--timestamps', json, '-o', wav]), { env: ENV, timeout: 540_000 })
    return { stdout, json, timing: JSON.parse(await readFile(json, 'utf8')), samples: ((await readFile(wav)).length - 44) / 2 }
  })()
  return await said
}

t.test('the timing file covers the audio file exactly', async t => {
  const { stdout, json, timing, samples } = await sayOnce()
  t.match(stdout, `and ${json}`)
  t.equal(timing.sample_rate, 16000)
  t.equal(timing.phonemes[0].start_sample, 0)
  t.equal(timing.phonemes.at(-1).end_sample, samples, 'the last phoneme ends at the last sample')
  t.equal(timing.visemes.at(-1).end_sample, samples, 'and so does the last viseme')
  t.equal(timing.words.at(-1).word, 'Goodbye', 'the last word')
  t.ok(timing.words.at(-1).end_sample < samples, 'the last word ends before the closing pause')
})

t.test('an unwritable timing path names its flag', async t => {
  const failed = await run(...chorusCommand(['say', 'Hi.', '--voice', VOICE, '--timestamps', join(dir, 'none', 'x.json'), '-o', join(dir, 'b.wav')]),
    { env: ENV, timeout: 540_000 }).then(() => undefined, (error: { stderr: string }) => error)
  t.match(failed?.stderr, /Expected a file path that can be written for --timestamps but received/)
})

t.test('SSML and inline phonemes: the words as written in the source, the break a pause of its length', async t => {
  const { timing } = await sayOnce()
  t.same(timing.words.map((w: { word: string }) => w.word), ['Hello', 'there', 'bˈætmæn', 'Dr.', 'Who', 'Goodbye'])
  t.ok(timing.phonemes.some((p: { phoneme: string, start_sample: number, end_sample: number }) => p.phoneme === '_' && p.end_sample - p.start_sample === 3200), 'a pause of 0.2 s at 16 kHz')
})
