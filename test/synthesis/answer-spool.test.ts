// A whole answer's spool: memory up to its share and while the service's
// budget has room, the rest on disk in a file no one else can see, silence
// only counted; read back identical, in order, its memory given back. A
// whole WAV answer past its share spills and comes back identical, a spool
// that cannot be written is a clear 507, and a stalled reader holds its
// answer back, counted, until its time cuts it.

import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { AnswerSpool, SPOOL_PIECE_BYTES } from '../../src/synthesis/answer-spool.js'
import { ByteBudget } from '../../src/synthesis/byte-budget.js'
import { loadServiceConfig } from '../../src/service/config.js'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, request, startTestService } from '../helpers/service.js'

const dir = await mkdtemp(join(tmpdir(), 'chorus-spool-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))

/** Bytes whose every position tells where it came from. */
function pattern (length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 7 + seed) % 251)
}

async function readAll (spool: AnswerSpool): Promise<{ bytes: Buffer, pieces: number[] }> {
  const pieces: Uint8Array[] = []
  for await (const piece of spool.read()) pieces.push(Buffer.from(piece))
  return { bytes: Buffer.concat(pieces), pieces: pieces.map(piece => piece.length) }
}

t.test('within its share the answer stays in memory, counted in the service\'s budget until read', async t => {
  const budget = new ByteBudget(1_000_000)
  const spool = new AnswerSpool({ memoryBytes: 10_000, budget, dir })
  const parts = [pattern(4000, 1), pattern(5000, 2)]
  for (const part of parts) await spool.write(part)
  spool.zeros(3000)
  t.equal(spool.length, 12_000)
  t.equal(spool.spilledBytes, 0, 'nothing on disk')
  t.equal(budget.bytes, 9000, 'silence costs nothing')
  t.same((await readAll(spool)).bytes, Buffer.concat([...parts, new Uint8Array(3000)]))
  t.equal(budget.bytes, 0, 'given back as read')
  await spool.close()
  t.same(await readdir(dir), [], 'no file was made')
})

t.test('past its share, or with the service\'s budget full, it spills; it reads back identical, in bounded pieces', async t => {
  const budget = new ByteBudget(1_000_000)
  const spool = new AnswerSpool({ memoryBytes: 10_000, budget, dir })
  const parts = [pattern(8000, 1), pattern(300_000, 2), pattern(1500, 3), pattern(50_000, 4)]
  await spool.write(parts[0])
  spool.zeros(200_001)
  for (const part of parts.slice(1)) await spool.write(part)
  t.equal(spool.spilledBytes, 350_000, 'the parts past the share went to disk')
  t.equal(budget.bytes, 9500, 'what stayed in memory is counted')
  t.same(await readdir(dir), [], 'the file is unlinked: only the spool\'s handle holds it')
  const { bytes, pieces } = await readAll(spool)
  t.same(bytes, Buffer.concat([parts[0], new Uint8Array(200_001), ...parts.slice(1)]), 'identical, in order')
  t.ok(pieces.every(length => length > 0 && length <= SPOOL_PIECE_BYTES), 'in pieces of at most SPOOL_PIECE_BYTES')
  t.equal(budget.bytes, 0)
  await spool.close()

  const full = new ByteBudget(1000)
  t.ok(full.tryTake(900))
  const crowded = new AnswerSpool({ memoryBytes: 10_000, budget: full, dir })
  await crowded.write(pattern(500, 5))
  t.equal(crowded.spilledBytes, 500, 'no room in the service\'s budget: to disk, without waiting')
  t.equal(full.bytes, 900)
  t.same((await readAll(crowded)).bytes, Buffer.from(pattern(500, 5)))
  await crowded.close()
})

t.test('closing early gives the memory back; a folder that cannot be written is ERR_INSUFFICIENT_STORAGE', async t => {
  const budget = new ByteBudget(1_000_000)
  const spool = new AnswerSpool({ memoryBytes: 10_000, budget, dir })
  await spool.write(pattern(6000, 1))
  await spool.write(pattern(60_000, 2))
  await spool.close()
  await spool.close()
  t.equal(budget.bytes, 0, 'given back once, when closed unread')
  const nowhere = new AnswerSpool({ memoryBytes: 0, budget, dir: join(dir, 'missing') })
  await t.rejects(nowhere.write(pattern(10, 1)), { code: 'ERR_INSUFFICIENT_STORAGE', status: 507, message: /ask for a stream/ })
  await nowhere.close()
})

t.test('TTS_SPOOL_DIR: the OS temp folder by default, else a folder that exists at start-up (exit 2 otherwise)', async t => {
  const config = (env: Record<string, string>) => loadServiceConfig({ TTS_VOICE_MEMORY_BYTES: '1000000', ...env })
  t.equal(config({}).spoolDir, tmpdir())
  t.equal(config({ TTS_SPOOL_DIR: dir }).spoolDir, dir)
  const missing = join(dir, 'missing')
  t.throws(() => config({ TTS_SPOOL_DIR: missing }), { code: 'ERR_CONFIG', message: `Expected an existing directory for TTS_SPOOL_DIR but received "${missing}" (string)` })
})

t.test('a whole WAV past the in-memory share spills and comes back identical; a spool that fails is a 507', async t => {
  const spoolDir = await mkdtemp(join(tmpdir(), 'chorus-service-spool-'))
  t.teardown(() => rm(spoolDir, { recursive: true, force: true }))
  // A voice whose output depends on its input alone (espeak-ng's does not
  // quite); one worker each, as a second would only cost its start.
  const voice = 'en_US-vits-medium'
  const roomy = await startTestService({ TTS_DEFAULT_VOICE: voice, TTS_WORKERS_PER_VOICE: '1' }, [voice])
  t.teardown(() => roomy.stop())
  const tight = await startTestService({ TTS_DEFAULT_VOICE: voice, TTS_WORKERS_PER_VOICE: '1', TTS_RESPONSE_BUFFER_BYTES: '1024', TTS_SPOOL_DIR: spoolDir }, [voice])
  t.teardown(() => tight.stop())
  const body = { text: 'Good morning. Your table is ready. Please follow me to the window.', sentence_silence: 0.5 }
  const kept = await postTts(roomy.url, body)
  const spilled = await postTts(tight.url, body)
  t.equal(spilled.status, 200)
  t.equal(Number(spilled.headers.get('content-length')), spilled.body.length, 'the exact length, announced before the first byte')
  t.same(spilled.body, kept.body, 'the same bytes as an answer kept in memory')
  t.notOk(roomy.logs.some(line => line.msg === 'whole answer spooled to disk'), 'within the share: not spooled')
  const spooled = tight.logs.filter(line => line.msg === 'whole answer spooled to disk')
  t.ok(spooled.length > 0 && spooled.every(line => (line.spilled as number) > 0), 'past the share: spooled')
  t.same(await readdir(spoolDir), [], 'nothing left in the spool folder')

  await rm(spoolDir, { recursive: true })
  const failed = await postTts(tight.url, body)
  t.equal(failed.status, 507)
  t.match(failed.json, { code: 'ERR_INSUFFICIENT_STORAGE', error: /ask for a stream/ })
  t.notOk(failed.body.toString().includes(spoolDir), 'the folder is in the log, not the answer')
  t.ok(tight.logs.some(line => line.msg === 'cannot spool a whole answer' && line.dir === spoolDir))
  t.equal((await postTts(tight.url, { ...body, stream: true })).status, 200, 'a stream still works')
})

t.test('a whole answer whose client stops reading: sent only as it reads, counted as pending, cut at its time', async t => {
  const spoolDir = await mkdtemp(join(tmpdir(), 'chorus-stalled-spool-'))
  t.teardown(() => rm(spoolDir, { recursive: true, force: true }))
  const service = await startTestService({ TTS_DEFAULT_VOICE: 'en_US-espeak-low', TTS_TIMEOUT_SECONDS: '10', TTS_RESPONSE_BUFFER_BYTES: '65536', TTS_SPOOL_DIR: spoolDir }, [])
  t.teardown(() => service.stop())
  // 50 sentences with 10 s between them: a 22 MB file, far more than the socket buffers hold.
  const body = { text: Array.from({ length: 50 }, () => 'Go.').join(' '), sentence_silence: 10 }
  const reply = await new Promise<{ res: IncomingMessage, length: number }>((resolve, reject) => {
    const req = httpRequest(`${service.url}/tts`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
      res.once('data', () => {
        // Reads nothing more.
        res.pause()
        resolve({ res, length: Number(res.headers['content-length']) })
      })
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
  t.equal(reply.res.statusCode, 200)
  t.ok(reply.length > 20_000_000, 'the whole file\'s length announced')
  t.equal((await request(`${service.url}/health`)).json.pending_requests, 1, 'counted while its bytes wait for the client')
  await eventually('the request\'s time to end the answer', () => service.logs.some(line => line.msg === 'streaming synthesis stopped' && line.code === 'ERR_TIMEOUT'))
  let received = 0
  const closed = new Promise<void>(resolve => reply.res.once('close', resolve))
  reply.res.on('error', () => {})
  reply.res.on('data', (chunk: Buffer) => { received += chunk.length })
  reply.res.resume()
  await closed
  t.ok(received < reply.length, 'cut: fewer bytes than announced, so the client can tell')
  await eventually('the request to end', async () => (await request(`${service.url}/health`)).json.pending_requests === 0)
  t.equal(service.deps.speech.buffered.bytes, 0, 'nothing left counted in TTS_BUFFER_BYTES')
  t.same(await readdir(spoolDir), [])
})
