// `chorus say -o FILE` picks the format by the file's extension.

import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { decodeFlac, decodeOggOpus, mp3Frames } from '../helpers/audio-decode.js'
import { TSX_ARGS } from '../helpers/tsx.js'
import { CHILD_HANG_GUARD_MS } from '../helpers/hang-guard.js'

const run = promisify(execFile)
const out = await mkdtemp(join(tmpdir(), 'chorus-say-'))
t.teardown(() => rm(out, { recursive: true, force: true }))

async function say (file: string): Promise<Buffer> {
  const { stdout } = await run(process.execPath, [...TSX_ARGS, join(PACKAGE_ROOT, 'src/bin.cts'), 'say', 'Hello from Chorus.', '--voice', 'en_US-espeak-low', '-o', join(out, file)], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TTS_VOICE_DIR: out }, timeout: CHILD_HANG_GUARD_MS
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
