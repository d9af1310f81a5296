import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { DEFAULT_CATALOG_PATH, loadCatalog, parseCatalog } from '../../src/voices/catalog.js'
import { CatalogError, VoiceNotInCatalogError } from '../../src/voices/errors.js'

const entry = (name: string, files: Record<string, unknown>): Record<string, unknown> => ({ [name]: { num_speakers: 1, files, aliases: [] } })
const file = (size: number, md5 = 'd41d8cd98f00b204e9800998ecf8427e') => ({ size_bytes: size, md5_digest: md5 })

t.test('the project catalogue loads with both files of every voice', async t => {
  const catalog = await loadCatalog()
  t.equal(catalog.source, DEFAULT_CATALOG_PATH)
  t.ok(catalog.size > 100)
  const lessac = catalog.get('en_US-lessac-medium')
  t.same(lessac.model, {
    path: 'en/en_US/lessac/medium/en_US-lessac-medium.onnx',
    sizeBytes: 63201294,
    md5: '2fc642b535197b6305c7c8f92dc8b24f'
  })
  t.equal(lessac.config.path, 'en/en_US/lessac/medium/en_US-lessac-medium.onnx.json')
  t.equal(lessac.language, 'en_US')
  t.equal(lessac.quality, 'medium')
  t.equal(catalog.get('en_GB-vctk-medium').numSpeakers, 109)
  t.ok(catalog.get('en_US-ryan-medium').model.sizeBytes > 1_000_000)
  t.equal(catalog.get('pt_PT-tugão-medium').model.path, 'pt/pt_PT/tugão/medium/pt_PT-tugão-medium.onnx')
  t.equal(catalog.names().length, catalog.size)
  t.equal(catalog.list()[0]?.name, catalog.names()[0])
})

t.test('a voice not in the catalogue is a typed error, with a hint for an alias or a case slip', async t => {
  const catalog = await loadCatalog()
  t.notOk(catalog.has('en_US-nobody-medium'))
  t.throws(() => catalog.get('en_US-nobody-medium'), {
    name: 'VoiceNotInCatalogError',
    code: 'ERR_VOICE_NOT_IN_CATALOG',
    status: 404,
    message: 'Voice "en_US-nobody-medium" is not in the voice catalogue'
  })
  t.throws(() => catalog.get('en-us-lessac-medium'), { message: /\(did you mean "en_US-lessac-medium"\?\)$/, details: { suggestion: 'en_US-lessac-medium' } })
  t.throws(() => catalog.get('en_us-ryan-medium'), { message: /did you mean "en_US-ryan-medium"/ })
  t.throws(() => catalog.get('__proto__'), VoiceNotInCatalogError)
})

t.test('every malformed part is named, with what was expected and what arrived', async t => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['not an object', [], /Expected an object of voices for \(root\) but received \[\] \(array\)/],
    ['bad key', entry('../x', {}), /Expected a voice name like en_US-lessac-medium for \["\.\.\/x"\] \(key\) but received "\.\.\/x"/],
    ['entry not an object', { 'en_US-a-low': 5 }, /Expected an object for \["en_US-a-low"\] but received 5 \(number\)/],
    ['no files', { 'en_US-a-low': {} }, /Expected an object of files for \["en_US-a-low"\]\.files but received undefined/],
    ['no model', entry('en_US-a-low', { 'en_US-a-low.onnx.json': file(1) }), /exactly one file named en_US-a-low\.onnx for \["en_US-a-low"\]\.files but received \["en_US-a-low\.onnx\.json"\]/],
    ['two models', entry('en_US-a-low', { 'x/en_US-a-low.onnx': file(1), 'y/en_US-a-low.onnx': file(1), 'en_US-a-low.onnx.json': file(1) }), /exactly one file named en_US-a-low\.onnx/],
    ['traversal', entry('en_US-a-low', { '../../en_US-a-low.onnx': file(1), 'en_US-a-low.onnx.json': file(1) }), /relative path without "\." or "\.\." segments for .*"\.\.\/\.\.\/en_US-a-low\.onnx"/],
    ['absolute', entry('en_US-a-low', { '/etc/en_US-a-low.onnx': file(1), 'en_US-a-low.onnx.json': file(1) }), /relative path/],
    ['backslash', entry('en_US-a-low', { 'a\\b/en_US-a-low.onnx': file(1), 'en_US-a-low.onnx.json': file(1) }), /relative path/],
    ['negative size', entry('en_US-a-low', { 'en_US-a-low.onnx': file(-1), 'en_US-a-low.onnx.json': file(1) }), /Expected a non-negative integer for \["en_US-a-low"\]\.files\["en_US-a-low\.onnx"\]\.size_bytes but received -1 \(number\)/],
    ['string size', entry('en_US-a-low', { 'en_US-a-low.onnx': { size_bytes: '1', md5_digest: 'd41d8cd98f00b204e9800998ecf8427e' }, 'en_US-a-low.onnx.json': file(1) }), /size_bytes but received "1" \(string\)/],
    ['bad md5', entry('en_US-a-low', { 'en_US-a-low.onnx': file(1, 'xyz'), 'en_US-a-low.onnx.json': file(1) }), /Expected 32 hex digits for .*\.md5_digest but received "xyz"/],
    ['bad speakers', { 'en_US-a-low': { num_speakers: 0, files: {} } }, /positive integer for \["en_US-a-low"\]\.num_speakers but received 0/],
    ['bad aliases', { 'en_US-a-low': { aliases: 'x', files: {} } }, /array of names for \["en_US-a-low"\]\.aliases/]
  ]
  for (const [name, json, message] of cases) {
    t.throws(() => parseCatalog(json, 'test.json'), { name: 'CatalogError', code: 'ERR_VOICE_CATALOG', message }, name)
    t.throws(() => parseCatalog(json, 'test.json'), { message: /^Invalid voice catalogue test\.json: / }, `${name} names the source`)
  }
  const minimal = parseCatalog(entry('en_US-a-low', { 'en_US-a-low.onnx': file(1, 'D41D8CD98F00B204E9800998ECF8427E'), 'en_US-a-low.onnx.json': file(2) }), 'x')
  t.same(minimal.get('en_US-a-low').model, { path: 'en_US-a-low.onnx', sizeBytes: 1, md5: 'd41d8cd98f00b204e9800998ecf8427e' }, 'md5 is lowercased')
})

t.test('missing and malformed catalogue files', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-catalog-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await t.rejects(loadCatalog(join(dir, 'nope.json')), { code: 'ERR_VOICE_CATALOG', message: /^Cannot read voice catalogue .*nope\.json: file not found$/ })
  await writeFile(join(dir, 'bad.json'), '{"en_US-a-low": ')
  await t.rejects(loadCatalog(join(dir, 'bad.json')), { code: 'ERR_VOICE_CATALOG', message: /bad\.json: not valid JSON/ })
  await t.rejects(loadCatalog(dir), CatalogError, 'a folder is not a catalogue')
})
