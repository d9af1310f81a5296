// The hostile probe's amplification, 32 times at once, against slow readers:
// a few characters that ask for many minutes of audio (`"Go. " × N` with a
// long sentence_silence, and the longest text at the slowest length_scale)
// on the built-in voice, as whole WAV files, WAV streams and encoded
// streams, each read a few KB a second for a bounded time. The service process (a `chorus serve` of its own, so the clients'
// memory is not counted) must stay under the ceiling docs/security.md
// states, computed here from its settings over its idle RSS measured in the
// same run; and the probe's own request is refused with 413 before any work.

import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { request as httpRequest } from 'node:http'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, request } from '../helpers/service.js'
import { SANITIZED } from '../helpers/sanitizer.js'
import { figures, MB, most, ROUNDS } from './figures.js'

const CLIENTS = 32
/** The service's settings: every term of the ceiling comes from them. */
const SETTINGS = {
  maxPending: CLIENTS,
  responseBufferBytes: 1024 * 1024,
  // Only bounds a hang: the whole answers' espeak-ng calls take turns, and
  // beside a busy CPU all of them took minutes. What is measured is memory.
  timeoutSeconds: 900
}
/** What docs/security.md allows each admitted request beyond the buffers:
 * the sentence being made, an encoder's state, and the garbage its chunks
 * leave for the collector (encoded streams leave the most). */
const PER_REQUEST_BYTES = 4 * 1024 * 1024
/** The probe's shape: 990 s of silence and some 35 s of speech a request,
 * a 45 MB WAV file from 400 characters. Its zeros are pages the kernel never
 * has to make resident, even in a file held whole; the next shape's are not. */
const PROBE = { text: 'Go. '.repeat(100).trim(), sentence_silence: 10 }
/** The longest text at the slowest length_scale: some 570 s of speech, a
 * 25 MB WAV file of samples that are all there to be held. */
const SPEECH = { text: 'The quick brown fox jumps over the lazy dog near the quiet river bank. '.repeat(70).trim(), length_scale: 5 }
/** Each client reads this fast, for this long, then leaves. */
const READ_BYTES_PER_SECOND = 4096
const READ_SECONDS = 12
/** Whole WAV files, WAV streams and encoded streams, in turn. */
const SHAPES = [
  { format: 'wav', stream: false, ...PROBE },
  { format: 'wav', stream: true, ...PROBE },
  { format: 'wav', stream: false, ...SPEECH },
  { format: 'mp3', stream: true, ...PROBE },
  { format: 'wav', stream: false, ...PROBE },
  { format: 'opus', stream: true, ...PROBE },
  { format: 'wav', stream: true, ...SPEECH },
  { format: 'flac', stream: true, ...PROBE }
]

interface Service {
  child: ChildProcess
  url: string
  exited: Promise<unknown>
}

async function startService (env: Record<string, string>): Promise<Service> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'src/bin.cts'), 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const exited = once(child, 'exit')
  const listening = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', line => {
      if (!line.includes('"msg":"listening"')) return
      const { port } = JSON.parse(line) as { port: number }
      resolve(`http://127.0.0.1:${port}`)
    })
    exited.then(() => reject(new Error('the service exited before it listened')), reject)
    // Only bounds a hang: a cold start beside a busy CPU takes a while.
    setTimeout(() => reject(new Error('the service did not listen within 5 minutes')), 300_000).unref()
  })
  try {
    return { child, url: await listening, exited }
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
}

function statusBytes (pid: number, field: string, status: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status)
  if (match === null) throw new Error(`no ${field} for process ${pid}`)
  return Number(match[1]) * 1024
}

async function memory (pid: number): Promise<{ rss: number, peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return { rss: statusBytes(pid, 'VmRSS', status), peak: statusBytes(pid, 'VmHWM', status) }
}

/** One slow reader: posts, reads at READ_BYTES_PER_SECOND for READ_SECONDS
 * (or to the end), then leaves. Resolves with the status and bytes read. */
async function slowReader (url: string, body: object): Promise<{ status: number, bytes: number }> {
  return await new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/tts`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
      const started = performance.now()
      let bytes = 0
      const done = (): void => {
        res.destroy()
        resolve({ status: res.statusCode ?? 0, bytes })
      }
      void (async () => {
        try {
          for await (const chunk of res) {
            bytes += (chunk as Buffer).length
            const elapsed = (performance.now() - started) / 1000
            if (elapsed >= READ_SECONDS) break
            const ahead = bytes / READ_BYTES_PER_SECOND - elapsed
            if (ahead > 0) await sleep(Math.min(ahead, READ_SECONDS - elapsed) * 1000)
          }
        } catch {
          // Cut by the service: what was read counts.
        }
        done()
      })()
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

t.test('32 amplifying requests with slow readers stay under the documented ceiling; the probe gets 413', { skip: SANITIZED ? 'RSS is not meaningful under AddressSanitizer' : false }, async t => {
  const voiceDir = await mkdtemp(join(tmpdir(), 'chorus-amplified-voices-'))
  const spoolDir = await mkdtemp(join(tmpdir(), 'chorus-amplified-spool-'))
  t.teardown(() => Promise.all([rm(voiceDir, { recursive: true, force: true }), rm(spoolDir, { recursive: true, force: true })]))
  const service = await startService({
    TTS_HTTP_HOST: '127.0.0.1',
    TTS_HTTP_PORT: '0',
    TTS_VOICE_DIR: voiceDir,
    CHORUS_INSTALL_BUNDLED: '0',
    TTS_DEFAULT_VOICE: 'en_US-espeak-low',
    TTS_MAX_PENDING: String(SETTINGS.maxPending),
    TTS_RESPONSE_BUFFER_BYTES: String(SETTINGS.responseBufferBytes),
    TTS_TIMEOUT_SECONDS: String(SETTINGS.timeoutSeconds),
    TTS_SPOOL_DIR: spoolDir,
    // Off: every request does its work (the cache has its own budget in the ceiling).
    TTS_CACHE_BYTES: '0'
  })
  t.teardown(async () => {
    service.child.kill('SIGTERM')
    await service.exited
  })
  const pid = service.child.pid as number

  const probe = await postTts(service.url, { text: 'Go. '.repeat(1250).trim(), sentence_silence: 10, voice: 'en_US-espeak-low' })
  t.equal(probe.status, 413, 'the probe\'s own request: 413 before any work')
  t.equal(probe.json?.code, 'ERR_AUDIO_TOO_LONG')

  // Every path warm (espeak, each encoder, a spooled answer), then the idle baseline.
  for (const shape of SHAPES) {
    t.equal((await postTts(service.url, { ...shape, text: 'Go. Go.', sentence_silence: 1 })).status, 200, `warm-up ${shape.format}`)
  }
  await sleep(1000)
  const idle = (await memory(pid)).rss
  // TTS_BUFFER_BYTES defaults to every admitted request's own buffer.
  const bufferBytes = SETTINGS.maxPending * SETTINGS.responseBufferBytes
  const ceiling = idle + bufferBytes + SETTINGS.maxPending * PER_REQUEST_BYTES
  figures(t, 'idle RSS', [idle], 'MB')
  figures(t, 'ceiling: idle + TTS_BUFFER_BYTES + TTS_MAX_PENDING × 4 MiB', [ceiling], 'MB')

  const peaks: number[] = []
  const read: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    // The last round's requests end when their work has stopped, a moment after their readers left.
    await eventually('the last round\'s requests to end', async () => (await request(`${service.url}/health`)).json.pending_requests === 0)
    await writeFile(`/proc/${pid}/clear_refs`, '5')
    const replies = await Promise.all(Array.from({ length: CLIENTS }, (_, i) =>
      slowReader(service.url, { voice: 'en_US-espeak-low', ...SHAPES[i % SHAPES.length] })))
    t.same(replies.filter(reply => reply.status !== 200), [], `round ${round + 1}: every request answered`)
    peaks.push((await memory(pid)).peak)
    read.push(replies.reduce((sum, reply) => sum + reply.bytes, 0))
  }
  figures(t, 'peak RSS per round', peaks, 'MB')
  figures(t, 'peak over idle per round', peaks.map(peak => peak - idle), 'MB')
  figures(t, 'bytes the clients read per round', read, 'MB')
  const whole = (text: string): number => SHAPES.filter(shape => !shape.stream && shape.text === text).length * CLIENTS / SHAPES.length
  t.comment(`whole WAV answers per round: ${whole(PROBE.text)} of the probe's shape, ${whole(SPEECH.text)} of some 25 MB of speech`)
  t.ok(most(peaks) < ceiling, `peak ${(most(peaks) / MB).toFixed(0)} MB under the ceiling ${(ceiling / MB).toFixed(0)} MB`)

  // Every reader has gone: the spooled files are closed (and were never visible).
  await sleep(500)
  t.same(await readdir(spoolDir), [], 'nothing left in TTS_SPOOL_DIR')
})
