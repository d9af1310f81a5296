import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { assertVoiceName, isValidVoiceName, MAX_VOICE_NAME_LENGTH, temporaryPath, voiceFiles } from '../../src/voices/voice-name.js'

const catalogNames = Object.keys(JSON.parse(await readFile(join(PACKAGE_ROOT, 'voices/catalog.json'), 'utf8')))

t.test('every name in the Piper catalogue is a valid voice name', async t => {
  t.ok(catalogNames.length > 100, `${catalogNames.length} names`)
  const rejected = catalogNames.filter(name => !isValidVoiceName(name))
  t.same(rejected, [])
  t.ok(isValidVoiceName('pt_PT-tugão-medium'), 'non-ASCII speaker (precomposed)')
  t.ok(isValidVoiceName('pt_PT-tuga\u0303o-medium'), 'non-ASCII speaker (combining mark)')
  t.ok(isValidVoiceName('en_US-probe-medium'), 'the test voices')
})

t.test('paths, hostile and malformed names are rejected', async t => {
  const hostile: unknown[] = [
    '', '../x', '..', '.', '/etc/passwd', 'en_US-a/b-medium', 'en_US-a\\b-medium', '..\\x',
    'en_US-lessac-medium\0', 'en_US-les\0sac-medium', 'en_US-lessac-medium\n', 'en_US-les\u001bsac-medium',
    '.en_US-lessac-medium', 'en_US-lessac-medium.onnx', 'en_US-lessac-medium/../../x', ' en_US-lessac-medium',
    'en_US-lessac medium-x', 'en_US-lessac', 'en_US--medium', 'en_US-lessac-', 'EN_us-lessac-medium', 'en-us-lessac-medium',
    `en_US-${'a'.repeat(MAX_VOICE_NAME_LENGTH)}-medium`, 'C:\\voices\\x', 'file:///etc/passwd',
    undefined, null, 42, ['en_US-lessac-medium'], { name: 'en_US-lessac-medium' }
  ]
  for (const name of hostile) t.notOk(isValidVoiceName(name), JSON.stringify(name) ?? String(name))
  t.ok(isValidVoiceName(`en_US-${'a'.repeat(MAX_VOICE_NAME_LENGTH - 13)}-medium`), 'exactly the maximum length')
})

t.test('assertVoiceName names the field in the shared message format', async t => {
  t.equal(assertVoiceName('en_US-lessac-medium'), 'en_US-lessac-medium')
  t.throws(() => assertVoiceName('../x', 'body.voice'), {
    name: 'InvalidArgumentError',
    code: 'ERR_INVALID_ARGUMENT',
    message: 'Expected a voice name like en_US-lessac-medium for body.voice but received "../x" (string)'
  })
  t.throws(() => assertVoiceName(7), { message: /for voice but received 7 \(number\)$/ })
})

t.test('voiceFiles gives the two files directly inside the folder, after checking the name', async t => {
  t.same(voiceFiles('/voices', 'en_US-lessac-medium'), {
    model: '/voices/en_US-lessac-medium.onnx',
    config: '/voices/en_US-lessac-medium.onnx.json'
  })
  t.throws(() => voiceFiles('/voices', '../../etc/passwd'), { code: 'ERR_INVALID_ARGUMENT' })
  t.throws(() => voiceFiles('/voices', 'en_US-lessac-medium/..'), { code: 'ERR_INVALID_ARGUMENT' })
})

t.test('temporary paths are hidden, unique siblings', async t => {
  const a = temporaryPath('/voices/en_US-lessac-medium.onnx')
  const b = temporaryPath('/voices/en_US-lessac-medium.onnx')
  t.match(a, /^\/voices\/\.en_US-lessac-medium\.onnx\.\d+-[0-9a-f]{8}\.part$/)
  t.not(a, b)
})
