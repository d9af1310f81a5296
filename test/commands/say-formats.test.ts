// `chorus say -o FILE` picks the format by the file's extension; .aac
// needs FFmpeg's libavcodec, and says so when it is missing.

import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { adtsFrames, decodeFlac, decodeOggOpus, mp3Frames } from '../helpers/audio-decode.js'
import { chorusCommand } from '../helpers/chorus-command.js'
import { CHILD_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { unless, whyUnavailable } from '../helpers/test-tools.js'

const run = promisify(execFile)
const out = await mkdtemp(join(tmpdir(), 'chorus-say-'))
t.teardown(() => rm(out, { recursive: true, force: true }))

async function say (file: string, env: Record<string, string> = {}): Promise<Buffer> {
  const { stdout } = await run(...chorusCommand(['say', 'Hello from Chorus.', '--voice', 'en_US-espeak-low', '-o', join(out, file)]), {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TTS_VOICE_DIR: out, ...env }, timeout: CHILD_HANG_GUARD_MS
  })
  const bytes = await readFile(join(out, file))
  t.match(stdout, `wrote ${join(out, file)} (${bytes.length} bytes)`)
  return bytes
}

t.test('.mp3, .opus and .flac files hold those formats', async t => {
  const mp3 = mp3Frames(await say('a.mp3'))
  t.ok(mp3.frames > 10 && mp3.sampleRate === 22050)
  const opus = decodeOggOpus(await say('a.opus'))
  t.ok(opus.pcm.length / 48000 > 0.5, 'some speech')
  const flac = await decodeFlac(await say('a.flac'))
  t.ok(Math.abs(flac.pcm.length / 48000 * 48000 / 22050 - opus.pcm.length / 48000) < 0.05, 'same speech length')
  t.equal((await say('a.wav')).subarray(0, 4).toString(), 'RIFF', 'WAV stays WAV')
})

t.test('.aac holds ADTS AAC-LC', unless(whyUnavailable([], { avcodec: true })), async t => {
  const frames = adtsFrames(await say('a.aac'))
  t.ok(frames.length > 10 && frames.every(f => f.objectType === 2 && f.sampleRate === 22050 && f.channels === 1))
})

t.test('.aac without libavcodec: the error says what to install, and no file is left', async t => {
  const failed = await say('b.aac', { CHORUS_AVCODEC_LIBRARY: '/nonexistent/libavcodec.so.59' }).then(() => undefined, (error: { code: number, stderr: string }) => error)
  t.ok(failed !== undefined && failed.code !== 0, 'chorus say fails')
  t.match(failed?.stderr, /aac is not available here: it needs FFmpeg's libavcodec 59, which did not load \(install Debian 12's libavcodec59, or set CHORUS_AVCODEC_LIBRARY/)
  t.match(failed?.stderr, /Cannot load FFmpeg's libavcodec from \/nonexistent\/libavcodec\.so\.59/, 'the log line gives the cause')
  t.notOk(existsSync(join(out, 'b.aac')))
})
