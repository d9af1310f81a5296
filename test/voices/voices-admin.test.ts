// The voice admin API on a real service, installing from a fake Piper
// mirror on 127.0.0.1: the admin token, install (with size and md5 checked),
// use and removal of a voice, a bad checksum, a disconnect mid-download,
// progress while a download is under way, a second install joining the
// first, and a read-only voice folder.

import { chmod, readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import Koa from 'koa'
import t from 'tap'
import { requireAdmin } from '../../src/http/auth/middleware.js'
import { serviceErrors } from '../../src/http/app.js'
import { listen } from '../../src/shared/listen.js'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, request, startTestService } from '../helpers/service.js'
import { testVoiceDir } from '../helpers/voices.js'
import { makeMirror } from './fixtures/mirror.js'
import { PARTIAL_BYTES, serveMirror } from './fixtures/mirror-server.js'

const TOKEN = 'admin-token-for-tests-0123456789'
const probe = join(await testVoiceDir(), 'en_US-probe-medium')
const realFiles = { model: await readFile(`${probe}.onnx`), config: await readFile(`${probe}.onnx.json`) }
const mirror = await makeMirror([
  { name: 'en_US-added-medium', files: realFiles },
  // Larger than what the fake mirror sends before pausing (the probe voice is smaller).
  { name: 'en_US-paused-medium', modelBytes: 4 * PARTIAL_BYTES },
  { name: 'en_US-badmd5-medium', defect: 'md5' },
  { name: 'en_US-cut-medium' }
])
const server = await serveMirror(mirror.dir)
t.teardown(() => server.close())
const service = await startTestService({
  TTS_ADMIN_TOKEN: TOKEN,
  TTS_VOICE_SOURCE: server.baseUrl,
  TTS_VOICE_CATALOG: mirror.catalogPath
}, ['en_US-probe-medium'])
t.teardown(service.stop)

const admin = { Authorization: `Bearer ${TOKEN}` }
const call = async (method: string, path: string, headers: Record<string, string> = admin) =>
  await request(service.url + path, { method, headers })
const folder = async (): Promise<string[]> => (await readdir(service.voiceDir)).sort()
const modelPath = (name: string): string => mirror.files.get(name)?.modelPath as string

t.test('without the admin token nothing is listed, installed or removed', async t => {
  for (const [method, path] of [['GET', '/admin/voices'], ['POST', '/admin/voices/en_US-added-medium'], ['DELETE', '/admin/voices/en_US-probe-medium']] as const) {
    const missing = await call(method, path, {})
    t.equal(missing.status, 401, `${method} ${path} without a token`)
    t.equal(missing.headers.get('www-authenticate'), 'Bearer realm="chorus-admin"')
    t.match(missing.json, { code: 'ERR_UNAUTHORIZED', error: /Authorization header/ })
    const wrong = await call(method, path, { Authorization: 'Bearer not-the-token-at-all' })
    t.equal(wrong.status, 401, `${method} ${path} with a wrong token`)
  }
  t.same(server.requests, [], 'nothing was downloaded')
  t.same(await folder(), ['en_US-probe-medium.onnx', 'en_US-probe-medium.onnx.json'], 'nothing was removed')
})

t.test('a service without TTS_ADMIN_TOKEN refuses every admin call', async t => {
  const app = new Koa()
  app.use(serviceErrors())
  app.use(requireAdmin(undefined))
  app.use(ctx => { ctx.body = 'reached' })
  const bare = await listen(app, '127.0.0.1', 0)
  t.teardown(bare.close)
  const reply = await request(bare.url, { headers: admin })
  t.equal(reply.status, 403)
  t.same(reply.json, { error: 'Voice administration is off: the service has no TTS_ADMIN_TOKEN (or keys file with an admin key)', code: 'ERR_ADMIN_DISABLED' })
})

t.test('the catalogue lists what is installed and what may be', async t => {
  const reply = await call('GET', '/admin/voices')
  t.equal(reply.status, 200)
  t.equal(reply.json.source, server.baseUrl)
  const byName = new Map<string, Record<string, unknown>>(reply.json.voices.map((v: { name: string }) => [v.name, v]))
  t.match(byName.get('en_US-added-medium'), { state: 'available', in_catalog: true, language: 'en_US', quality: 'medium', num_speakers: 1, size_bytes: realFiles.model.length + realFiles.config.length })
  t.match(byName.get('en_US-probe-medium'), { state: 'installed', in_catalog: false }, 'a voice put in the folder by hand')
})

t.test('a voice is installed, used and removed', async t => {
  const installed = await call('POST', '/admin/voices/en_US-added-medium')
  t.equal(installed.status, 201)
  t.same(installed.json, { voice: 'en_US-added-medium', status: 'installed', bytes_written: realFiles.model.length + realFiles.config.length, installed: true })
  t.ok((await call('GET', '/voices')).json.voices.includes('en_US-added-medium'), 'listed at once, without waiting for a rescan')
  const speech = await postTts(service.url, { text: 'Installed over the API.', voice: 'en_US-added-medium' })
  t.equal(speech.status, 200)
  t.equal(speech.headers.get('content-type'), 'audio/wav')
  t.ok(speech.body.length > 44, 'audio')

  const again = await call('POST', '/admin/voices/en_US-added-medium')
  t.equal(again.status, 200, 'already there: nothing to do')
  t.match(again.json, { status: 'present', bytes_written: 0 })
  t.match((await call('GET', '/admin/voices')).json.voices.find((v: { name: string }) => v.name === 'en_US-added-medium'), { state: 'installed' })

  const removed = await call('DELETE', '/admin/voices/en_US-added-medium')
  t.equal(removed.status, 204)
  t.notOk((await call('GET', '/voices')).json.voices.includes('en_US-added-medium'), 'gone at once')
  t.same(await folder(), ['en_US-probe-medium.onnx', 'en_US-probe-medium.onnx.json'])
  const gone = await postTts(service.url, { text: 'Still there?', voice: 'en_US-added-medium' })
  t.equal(gone.status, 400, 'an unknown voice, as for any voice not installed')
  t.match(gone.json.error, /en_US-added-medium/)
  const twice = await call('DELETE', '/admin/voices/en_US-added-medium')
  t.equal(twice.status, 404)
  t.same(twice.json, { error: `Voice "en_US-added-medium" is not installed in ${service.voiceDir}`, code: 'ERR_VOICE_NOT_INSTALLED', voice: 'en_US-added-medium' })
})

t.test('bad names and voices the catalogue does not have are refused', async t => {
  const bad = await call('POST', '/admin/voices/en_US-a..b-medium')
  t.equal(bad.status, 400)
  t.equal(bad.json.error, 'Expected a voice name like en_US-lessac-medium for voice but received "en_US-a..b-medium" (string)')
  const unknown = await call('POST', '/admin/voices/en_US-nobody-medium')
  t.equal(unknown.status, 404)
  t.match(unknown.json, { code: 'ERR_VOICE_NOT_IN_CATALOG', error: 'Voice "en_US-nobody-medium" is not in the voice catalogue' })
  t.equal((await call('DELETE', '/admin/voices/en_US-nobody-medium')).status, 404)
})

t.test('a bad checksum installs nothing and says which file and which digests', async t => {
  const reply = await call('POST', '/admin/voices/en_US-badmd5-medium')
  t.equal(reply.status, 502)
  t.match(reply.json, { code: 'ERR_VOICE_FILE_MD5', file: modelPath('en_US-badmd5-medium'), error: /^MD5 mismatch for .*en_US-badmd5-medium\.onnx from http:\/\/127\.0\.0\.1:\d+\/.*: expected [0-9a-f]{32}, computed [0-9a-f]{32}$/ })
  t.same(await folder(), ['en_US-probe-medium.onnx', 'en_US-probe-medium.onnx.json'], 'no voice file, no temporary file')
})

t.test('a disconnect mid-download installs nothing', async t => {
  server.misbehave(modelPath('en_US-cut-medium'), 'disconnect')
  t.teardown(() => server.misbehave(modelPath('en_US-cut-medium'), undefined))
  const reply = await call('POST', '/admin/voices/en_US-cut-medium')
  t.equal(reply.status, 502)
  t.match(reply.json, { code: 'ERR_VOICE_DOWNLOAD', error: /en_US-cut-medium\.onnx failed while reading the body/ })
  t.same(await folder(), ['en_US-probe-medium.onnx', 'en_US-probe-medium.onnx.json'])
  t.notOk((await call('GET', '/voices')).json.voices.includes('en_US-cut-medium'))
})

t.test('progress is visible, a half-downloaded file is no voice, a second install joins the first', async t => {
  const path = modelPath('en_US-paused-medium')
  server.misbehave(path, 'pause')
  t.teardown(() => server.misbehave(path, undefined))
  const first = call('POST', '/admin/voices/en_US-paused-medium')
  let installing: Array<Record<string, unknown>> = []
  await eventually('the download to be under way', async () => {
    installing = (await call('GET', '/voices')).json.installing
    return installing.length === 1 && installing[0]?.bytes_done === PARTIAL_BYTES
  })
  const paused = mirror.files.get('en_US-paused-medium') as { model: Buffer, config: Buffer }
  t.match(installing[0], { voice: 'en_US-paused-medium', state: 'installing', bytes_done: PARTIAL_BYTES, bytes_total: paused.model.length + paused.config.length })
  t.notOk((await call('GET', '/voices')).json.voices.includes('en_US-paused-medium'), 'not a voice yet')
  const files = await folder()
  t.equal(files.length, 3)
  t.match(files[0], /^\.en_US-paused-medium\.onnx\.\d+-[0-9a-f]{8}\.part$/, 'only a hidden temporary file')
  t.match((await call('GET', '/admin/voices')).json.voices.find((v: { name: string }) => v.name === 'en_US-paused-medium'), { state: 'installing', bytes_done: PARTIAL_BYTES })

  const second = call('POST', '/admin/voices/en_US-paused-medium')
  await eventually('the second request to join the first', () => service.logs.some(line => line.msg === 'joining the install of en_US-paused-medium under way'))
  server.resume()
  const [a, b] = await Promise.all([first, second])
  t.equal(a.status, 201)
  t.same(b.json, a.json, 'the second request got the first one\'s outcome')
  t.equal(server.requests.filter(p => p === path).length, 1, 'downloaded once')
  t.same((await call('GET', '/voices')).json.installing, [])
  t.ok((await readFile(join(service.voiceDir, 'en_US-paused-medium.onnx'))).equals(paused.model), 'the whole model, byte for byte')
  t.equal((await call('DELETE', '/admin/voices/en_US-paused-medium')).status, 204)
})

t.test('a read-only voice folder is refused with a clear error', async t => {
  await chmod(service.voiceDir, 0o555)
  t.teardown(async () => { await chmod(service.voiceDir, 0o755) })
  for (const [method, path] of [['POST', '/admin/voices/en_US-added-medium'], ['DELETE', '/admin/voices/en_US-probe-medium']] as const) {
    const reply = await call(method, path)
    t.equal(reply.status, 409, `${method} ${path}`)
    t.same(reply.json, {
      error: `The voice folder ${service.voiceDir} is read-only (it has no write permission): voices cannot be installed or removed here; mount it read-write, or manage its files outside Chorus`,
      code: 'ERR_VOICE_DIR_READ_ONLY',
      dir: service.voiceDir,
      reason: 'it has no write permission'
    })
  }
  t.same(await folder(), ['en_US-probe-medium.onnx', 'en_US-probe-medium.onnx.json'])
})
