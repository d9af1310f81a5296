import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { loadCatalog } from '../../src/voices/catalog.js'
import { DEFAULT_BASE_URL, fetchVoices, type FetchVoicesOptions } from '../../src/voices/fetch.js'
import { makeMirror, OVERSIZE_EXTRA } from './fixtures/mirror.js'
import { serveMirror } from './fixtures/mirror-server.js'
import { eventually } from '../helpers/hang-guard.js'

const scratch = await mkdtemp(join(tmpdir(), 'chorus-fetch-'))
t.teardown(() => rm(scratch, { recursive: true, force: true }))

const mirror = await makeMirror([
  { name: 'en_US-good-medium' },
  { name: 'pt_PT-fakeão-medium', modelBytes: 50_000 },
  { name: 'en_US-badmd5-medium', defect: 'md5' },
  { name: 'en_US-short-medium', defect: 'truncated' },
  { name: 'en_US-long-medium', defect: 'oversized' },
  { name: 'en_US-gone-medium', defect: 'missing' },
  { name: 'en_US-slow-medium', modelBytes: 100_000 }
], scratch)
const server = await serveMirror(mirror.dir)
t.teardown(() => server.close())

let destCount = 0
const freshDest = (): string => join(scratch, `dest-${++destCount}`, 'voices')
const listing = async (dir: string): Promise<string[]> => (await readdir(dir).catch(() => [])).sort()
const expectedFiles = (...names: string[]): string[] => names.flatMap(name => [`${name}.onnx`, `${name}.onnx.json`]).sort()
const files = (name: string) => mirror.files.get(name) as NonNullable<ReturnType<typeof mirror.files.get>>

const sources: Record<string, Partial<FetchVoicesOptions>> = {
  mirrorDir: { mirrorDir: mirror.dir },
  'file: base URL': { baseUrl: pathToFileURL(mirror.dir).href },
  'HTTP base URL on 127.0.0.1': { baseUrl: server.baseUrl }
}

for (const [kind, source] of Object.entries(sources)) {
  const fetchInto = async (destDir: string, names: string[]) =>
    await fetchVoices(names, { ...source, destDir, catalog: mirror.catalogPath, timeoutMs: 5000 })

  t.test(`${kind}: good voices are installed byte for byte, nothing else is left`, async t => {
    const dest = freshDest()
    const results = await fetchInto(dest, ['en_US-good-medium', 'pt_PT-fakeão-medium', 'en_US-good-medium'])
    t.same(results.map(r => [r.name, r.status]), [['en_US-good-medium', 'installed'], ['pt_PT-fakeão-medium', 'installed']], 'duplicates fetched once')
    t.equal(results[0]?.model, join(dest, 'en_US-good-medium.onnx'))
    t.equal(results[0]?.config, join(dest, 'en_US-good-medium.onnx.json'))
    t.equal(results[0]?.bytes, files('en_US-good-medium').model.length + files('en_US-good-medium').config.length)
    for (const name of ['en_US-good-medium', 'pt_PT-fakeão-medium']) {
      t.ok((await readFile(join(dest, `${name}.onnx`))).equals(files(name).model), `${name}.onnx bytes`)
      t.ok((await readFile(join(dest, `${name}.onnx.json`))).equals(files(name).config), `${name}.onnx.json bytes`)
    }
    t.same(await listing(dest), expectedFiles('en_US-good-medium', 'pt_PT-fakeão-medium'), 'no temporary files')
  })

  t.test(`${kind}: a wrong md5 is a typed error naming the file, and nothing is left`, async t => {
    const dest = freshDest()
    const { model, modelPath } = files('en_US-badmd5-medium')
    const error = await fetchInto(dest, ['en_US-badmd5-medium']).catch((e: unknown) => e)
    t.match(error, {
      code: 'ERR_VOICE_FILE_MD5',
      status: 502,
      details: { file: modelPath, expected: (mirror.catalog['en_US-badmd5-medium'] as any).files[modelPath].md5_digest, actual: /^[0-9a-f]{32}$/ },
      message: new RegExp(`^MD5 mismatch for ${modelPath} from .+: expected [0-9a-f]{32}, computed [0-9a-f]{32}$`)
    })
    t.equal(model.length, (mirror.catalog['en_US-badmd5-medium'] as any).files[modelPath].size_bytes, 'same size, other bytes')
    t.same(await listing(dest), [], 'no partial or temporary file')
  })

  t.test(`${kind}: a truncated file is a size error, and nothing is left`, async t => {
    const dest = freshDest()
    const { model, modelPath } = files('en_US-short-medium')
    await t.rejects(fetchInto(dest, ['en_US-short-medium']), {
      code: 'ERR_VOICE_FILE_SIZE',
      status: 502,
      details: { file: modelPath, expected: model.length, actual: model.length - 1000 },
      message: new RegExp(`^Size mismatch for ${modelPath} from .+: expected ${model.length} bytes, received ${model.length - 1000}$`)
    })
    t.same(await listing(dest), [])
  })

  t.test(`${kind}: a file longer than the catalogue says is cut off early`, async t => {
    const dest = freshDest()
    const { model } = files('en_US-long-medium')
    const error = await fetchInto(dest, ['en_US-long-medium']).catch((e: unknown) => e) as { details: { actual: number } }
    t.match(error, { code: 'ERR_VOICE_FILE_SIZE', details: { expected: model.length }, message: /received at least \d+$/ })
    t.ok(error.details.actual > model.length && error.details.actual < model.length + OVERSIZE_EXTRA, 'stopped before the end')
    t.same(await listing(dest), [])
  })

  t.test(`${kind}: a file missing from the source is a download error`, async t => {
    const dest = freshDest()
    const { modelPath } = files('en_US-gone-medium')
    await t.rejects(fetchInto(dest, ['en_US-gone-medium']), {
      name: 'VoiceDownloadError',
      code: 'ERR_VOICE_DOWNLOAD',
      message: kind.startsWith('HTTP') ? /^GET http:\/\/127\.0\.0\.1:\d+\/.+\/en_US-gone-medium\.onnx failed: 404 Not Found$/ : /^Cannot read .*en_US-gone-medium\.onnx: file not found$/,
      details: { source: kind.startsWith('HTTP') ? new RegExp(`${modelPath}$`) : /en_US-gone-medium\.onnx$/ }
    })
    t.same(await listing(dest), [])
  })

  t.test(`${kind}: an unknown voice fails before anything is fetched`, async t => {
    const dest = freshDest()
    const before = server.requests.length
    await t.rejects(fetchInto(dest, ['en_US-good-medium', 'en_US-nobody-medium']), {
      name: 'VoiceNotInCatalogError', code: 'ERR_VOICE_NOT_IN_CATALOG', message: 'Voice "en_US-nobody-medium" is not in the voice catalogue'
    })
    await t.rejects(fetchInto(dest, ['en-us-good-medium']), { message: /did you mean "en_US-good-medium"/ })
    t.equal(server.requests.length, before, 'no request made')
    t.same(await listing(dest), [])
  })

  t.test(`${kind}: an intact voice is skipped, a damaged or half one is repaired`, async t => {
    const dest = freshDest()
    await fetchInto(dest, ['en_US-good-medium'])
    const model = join(dest, 'en_US-good-medium.onnx')
    const config = join(dest, 'en_US-good-medium.onnx.json')
    const mtimes = [(await stat(model)).mtimeMs, (await stat(config)).mtimeMs]
    const before = server.requests.length
    const again = await fetchInto(dest, ['en_US-good-medium'])
    t.same(again.map(r => [r.status, r.bytes]), [['present', 0]])
    t.same([(await stat(model)).mtimeMs, (await stat(config)).mtimeMs], mtimes, 'not rewritten')
    t.equal(server.requests.length, before, 'nothing requested')

    await rm(config)
    const half = await fetchInto(dest, ['en_US-good-medium'])
    t.same(half.map(r => [r.status, r.bytes]), [['installed', files('en_US-good-medium').config.length]], 'only the config fetched')
    t.equal((await stat(model)).mtimeMs, mtimes[0], 'the intact model is kept')

    const damaged = Buffer.from(files('en_US-good-medium').model)
    damaged[0] ^= 1
    await writeFile(model, damaged)
    await fetchInto(dest, ['en_US-good-medium'])
    t.ok((await readFile(model)).equals(files('en_US-good-medium').model), 'a same-size damaged model is replaced')
    t.same(await listing(dest), expectedFiles('en_US-good-medium'))
  })
}

t.test('voices before a failing one stay installed; the failing one leaves nothing', async t => {
  const dest = freshDest()
  await t.rejects(fetchVoices(['en_US-good-medium', 'en_US-badmd5-medium'], { destDir: dest, mirrorDir: mirror.dir, catalog: mirror.catalogPath }),
    { code: 'ERR_VOICE_FILE_MD5' })
  t.same(await listing(dest), expectedFiles('en_US-good-medium'))
})

t.test('the catalogue may be a path, parsed JSON or a loaded VoiceCatalog; progress is logged', async t => {
  const loaded = await loadCatalog(mirror.catalogPath)
  for (const catalog of [mirror.catalogPath, mirror.catalog, loaded]) {
    const [result] = await fetchVoices(['en_US-good-medium'], { destDir: freshDest(), mirrorDir: mirror.dir, catalog })
    t.equal(result?.status, 'installed')
  }
  const lines: Array<[Record<string, unknown>, string]> = []
  const log = { info: (fields: Record<string, unknown>, message: string) => { lines.push([fields, message]) }, warn () {} }
  await fetchVoices(['en_US-good-medium'], { destDir: freshDest(), mirrorDir: mirror.dir, catalog: loaded, log })
  t.match(lines, [
    [{ file: files('en_US-good-medium').modelPath }, /^fetching en\/en_US\/good\/medium\/en_US-good-medium\.onnx \(195\.3 KiB\) from /],
    [{ file: files('en_US-good-medium').configPath }, /^fetching .*\.onnx\.json/],
    [{ voice: 'en_US-good-medium' }, /^installed en_US-good-medium in .* \(195\.\d KiB written\)$/]
  ])
})

t.test('options are checked, naming the option', async t => {
  const destDir = freshDest()
  const catalog = mirror.catalogPath
  const cases: Array<[unknown[], Record<string, unknown>, RegExp]> = [
    [['../x'], { destDir, catalog, mirrorDir: mirror.dir }, /^Expected a voice name like en_US-lessac-medium for names\[0\] but received "\.\.\/x" \(string\)$/],
    [['en_US-good-medium', '/etc/passwd'], { destDir, catalog, mirrorDir: mirror.dir }, /for names\[1\] but received "\/etc\/passwd"/],
    [['en_US-good-medium'], { destDir: '', catalog, mirrorDir: mirror.dir }, /^Expected a folder path for options\.destDir but received "" \(string\)$/],
    [['en_US-good-medium'], { destDir, catalog, mirrorDir: mirror.dir, baseUrl: server.baseUrl }, /^Expected no baseUrl when options\.mirrorDir is set for options\.baseUrl/],
    [['en_US-good-medium'], { destDir, catalog, baseUrl: 'ftp://127.0.0.1/' }, /^Expected an http:, https: or file: URL for options\.baseUrl but received "ftp:\/\/127\.0\.0\.1\/" \(string\)$/],
    [['en_US-good-medium'], { destDir, catalog, baseUrl: 'not a url' }, /for options\.baseUrl but received "not a url"/],
    [['en_US-good-medium'], { destDir, catalog, mirrorDir: mirror.dir, timeoutMs: 0 }, /^Expected an integer from 1 to 2147483647 for options\.timeoutMs but received 0 \(number\)$/],
    [['en_US-good-medium'], { destDir, catalog, mirrorDir: mirror.dir, retries: -1 }, /for options\.retries but received -1/],
    [['en_US-good-medium'], { destDir, catalog: 42, mirrorDir: mirror.dir }, /for options\.catalog but received 42 \(number\)/]
  ]
  for (const [names, options, message] of cases) {
    await t.rejects(fetchVoices(names as string[], options as unknown as FetchVoicesOptions), { name: 'InvalidArgumentError', code: 'ERR_INVALID_ARGUMENT', message }, String(message))
  }
  t.same(await listing(destDir), [], 'nothing created')
  t.equal(DEFAULT_BASE_URL, 'https://huggingface.co/rhasspy/piper-voices/resolve/v1.0.0/')
})

t.test('over HTTP', async t => {
  const { modelPath, configPath, model } = files('en_US-slow-medium')
  const options = (extra: Partial<FetchVoicesOptions> = {}): FetchVoicesOptions =>
    ({ destDir: freshDest(), baseUrl: server.baseUrl, catalog: mirror.catalogPath, timeoutMs: 5000, ...extra })
  const requestsFor = (path: string) => server.requests.filter(p => p === path).length

  t.test('a base URL without its trailing slash works; paths are percent-encoded', async t => {
    const [result] = await fetchVoices(['pt_PT-fakeão-medium'], options({ baseUrl: server.baseUrl.replace(/\/$/, '') }))
    t.equal(result?.status, 'installed')
    t.ok(server.requests.includes('pt/pt_PT/fakeão/medium/pt_PT-fakeão-medium.onnx'))
  })

  t.test('a 404 is not retried', async t => {
    const path = files('en_US-gone-medium').modelPath
    const before = requestsFor(path)
    await t.rejects(fetchVoices(['en_US-gone-medium'], options()), { code: 'ERR_VOICE_DOWNLOAD', details: { status: 404 } })
    t.equal(requestsFor(path) - before, 1)
  })

  t.test('a 503 is retried', async t => {
    const before = requestsFor(modelPath)
    server.misbehave(modelPath, 'fail-once')
    const dest = freshDest()
    const [result] = await fetchVoices(['en_US-slow-medium'], options({ destDir: dest }))
    t.equal(result?.status, 'installed')
    t.equal(requestsFor(modelPath) - before, 2)
    t.ok((await readFile(join(dest, 'en_US-slow-medium.onnx'))).equals(model))
  })

  t.test('a body that stalls mid-file fails after the timeout and leaves nothing', async t => {
    server.misbehave(modelPath, 'stall')
    t.teardown(() => server.misbehave(modelPath, undefined))
    const dest = freshDest()
    // The error names the stall timer that fired; the test's own timeout bounds a hang.
    await t.rejects(fetchVoices(['en_US-slow-medium'], options({ destDir: dest, timeoutMs: 300 })), {
      code: 'ERR_VOICE_DOWNLOAD', message: /^GET http:\/\/127\.0\.0\.1:\d+\/.*en_US-slow-medium\.onnx stalled: no data for 300 ms$/
    })
    t.same(await listing(dest), [])
  })

  t.test('a server that never answers times out (with retries off)', async t => {
    server.misbehave(configPath, 'hang')
    t.teardown(() => server.misbehave(configPath, undefined))
    const dest = freshDest()
    await rm(dest, { recursive: true, force: true })
    await t.rejects(fetchVoices(['en_US-slow-medium'], options({ destDir: dest, timeoutMs: 300, retries: 0 })), {
      code: 'ERR_VOICE_DOWNLOAD', message: /en_US-slow-medium\.onnx\.json timed out: no response within 300 ms$/
    })
    t.same(await listing(dest), [], 'the verified model is not installed without its config')
  })

  t.test('aborting stops the download and leaves nothing', async t => {
    server.misbehave(files('en_US-good-medium').modelPath, 'stall')
    t.teardown(() => server.misbehave(files('en_US-good-medium').modelPath, undefined))
    const dest = freshDest()
    const controller = new AbortController()
    const fetching = fetchVoices(['en_US-good-medium'], options({ destDir: dest, signal: controller.signal }))
    // Aborted once the model's download has begun (the mirror then stalls it).
    const requested = server.requests.length
    await eventually('the model download to begin', () => server.requests.slice(requested).includes(files('en_US-good-medium').modelPath))
    controller.abort(new Error('stop'))
    await t.rejects(fetching, { message: 'stop' })
    t.same(await listing(dest), [])
  })

  t.test('a refused connection is a download error that says what failed, not only "fetch failed"', async t => {
    const closed = await serveMirror(mirror.dir)
    await closed.close()
    await t.rejects(fetchVoices(['en_US-good-medium'], options({ baseUrl: closed.baseUrl, retries: 0 })), {
      code: 'ERR_VOICE_DOWNLOAD', message: /^GET http:\/\/127\.0\.0\.1:\d+\/.* failed: fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/
    })
  })
})
