import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { installBundledVoices, type InstallLog } from '../../src/voices/bundled.js'

const scratch = await mkdtemp(join(tmpdir(), 'chorus-bundled-'))
t.teardown(() => rm(scratch, { recursive: true, force: true }))

let count = 0
async function bundle (names: string[], extra: Record<string, string> = {}): Promise<string> {
  const dir = join(scratch, `bundled-${++count}`)
  await mkdir(dir, { recursive: true })
  for (const name of names) {
    await writeFile(join(dir, `${name}.onnx`), `model of ${name}`)
    await writeFile(join(dir, `${name}.onnx.json`), `{"config": "${name}"}`)
  }
  for (const [file, text] of Object.entries(extra)) await writeFile(join(dir, file), text)
  return dir
}

function recorder (): { log: InstallLog, lines: Array<[string, Record<string, unknown>, string]> } {
  const lines: Array<[string, Record<string, unknown>, string]> = []
  return {
    lines,
    log: {
      info: (fields, message) => { lines.push(['info', fields, message]) },
      warn: (fields, message) => { lines.push(['warn', fields, message]) }
    }
  }
}

t.test('copies missing voices; leaves present and half-present ones alone, byte for byte', async t => {
  const bundled = await bundle(['en_US-a-medium', 'en_US-b-medium', 'en_US-c-medium'], {
    'en_US-d-medium.onnx': 'no config for this one',
    'README.txt': 'not a voice',
    '.hidden.onnx': 'not a voice name',
    'en_US-e-medium.onnx.json': 'config without model'
  })
  const voices = join(scratch, 'voices-1')
  await mkdir(voices)
  // b: the user's own copy, older and different; c: only its config is there.
  await writeFile(join(voices, 'en_US-b-medium.onnx'), 'user model')
  await writeFile(join(voices, 'en_US-b-medium.onnx.json'), 'user config')
  await writeFile(join(voices, 'en_US-c-medium.onnx.json'), 'user config of c')
  const past = new Date('2020-01-02T03:04:05Z')
  for (const file of ['en_US-b-medium.onnx', 'en_US-b-medium.onnx.json', 'en_US-c-medium.onnx.json']) await utimes(join(voices, file), past, past)

  const { log, lines } = recorder()
  const result = await installBundledVoices(bundled, voices, log)
  t.same(result.copied, ['en_US-a-medium'])
  t.same(result.skipped.map(s => s.name), ['en_US-d-medium', 'en_US-e-medium', 'en_US-b-medium', 'en_US-c-medium'])
  t.match(result.skipped, [
    { reason: /^incomplete in .* \(needs en_US-d-medium\.onnx and en_US-d-medium\.onnx\.json\)$/ },
    { reason: /^incomplete in / },
    { reason: `${join(voices, 'en_US-b-medium.onnx')} already exists` },
    { reason: `${join(voices, 'en_US-c-medium.onnx.json')} already exists` }
  ])

  t.equal(await readFile(join(voices, 'en_US-a-medium.onnx'), 'utf8'), 'model of en_US-a-medium')
  t.equal(await readFile(join(voices, 'en_US-a-medium.onnx.json'), 'utf8'), '{"config": "en_US-a-medium"}')
  t.equal(await readFile(join(voices, 'en_US-b-medium.onnx'), 'utf8'), 'user model')
  t.equal(await readFile(join(voices, 'en_US-b-medium.onnx.json'), 'utf8'), 'user config')
  t.equal(await readFile(join(voices, 'en_US-c-medium.onnx.json'), 'utf8'), 'user config of c')
  for (const file of ['en_US-b-medium.onnx', 'en_US-b-medium.onnx.json', 'en_US-c-medium.onnx.json']) {
    t.equal((await stat(join(voices, file))).mtimeMs, past.getTime(), `${file} mtime kept`)
  }
  t.same((await readdir(voices)).sort(), [
    'en_US-a-medium.onnx', 'en_US-a-medium.onnx.json', 'en_US-b-medium.onnx', 'en_US-b-medium.onnx.json', 'en_US-c-medium.onnx.json'
  ], 'nothing else: no temporary file, no half of c')

  t.match(lines, [
    ['warn', { voice: 'en_US-d-medium' }, /^bundled voice en_US-d-medium skipped: incomplete/],
    ['warn', { voice: 'en_US-e-medium' }, /skipped/],
    ['info', { voice: 'en_US-a-medium', voiceDir: voices }, `bundled voice en_US-a-medium copied into ${voices}`],
    ['info', { voice: 'en_US-b-medium' }, /^bundled voice en_US-b-medium left alone: .* already exists$/],
    ['info', { voice: 'en_US-c-medium' }, /left alone/]
  ])

  const again = await installBundledVoices(bundled, voices)
  t.same(again.copied, [], 'a second run copies nothing')
  t.equal(again.skipped.length, 5)
})

t.test('creates the voice folder; a missing bundle folder is logged, not fatal', async t => {
  const bundled = await bundle(['en_US-lessac-medium', 'en_US-ryan-medium'])
  const voices = join(scratch, 'deep', 'new', 'voices')
  const result = await installBundledVoices(bundled, voices)
  t.same(result, { copied: ['en_US-lessac-medium', 'en_US-ryan-medium'], skipped: [] })
  t.equal((await readdir(voices)).length, 4)

  const { log, lines } = recorder()
  t.same(await installBundledVoices(join(scratch, 'no-such-folder'), voices, log), { copied: [], skipped: [] })
  t.match(lines, [['warn', {}, /^no bundled voices: .*no-such-folder does not exist$/]])
})

t.test('a dangling symbolic link counts as present', async t => {
  const bundled = await bundle(['en_US-a-medium'])
  const voices = join(scratch, 'voices-link')
  await mkdir(voices)
  await symlink(join(scratch, 'nowhere.onnx'), join(voices, 'en_US-a-medium.onnx'))
  const result = await installBundledVoices(bundled, voices)
  t.same(result.copied, [])
  t.same((await readdir(voices)).sort(), ['en_US-a-medium.onnx'])
})

t.test('a copy that fails is a typed error naming the file, and leaves no temporary file', async t => {
  // A folder where the model should be: copyFile fails, even for root.
  const bundled = await bundle([], { 'en_US-a-medium.onnx.json': '{}' })
  await mkdir(join(bundled, 'en_US-a-medium.onnx'))
  const voices = join(scratch, 'voices-failing')
  await t.rejects(installBundledVoices(bundled, voices), {
    name: 'VoiceInstallError',
    code: 'ERR_VOICE_INSTALL',
    path: join(voices, 'en_US-a-medium.onnx'),
    message: /^Cannot copy .*en_US-a-medium\.onnx to .*en_US-a-medium\.onnx: /
  })
  t.same(await readdir(voices), [])
})

t.test('a voice folder path that is a file is a typed error', async t => {
  const bundled = await bundle(['en_US-a-medium'])
  const notADir = join(scratch, 'a-file')
  await writeFile(notADir, '')
  await t.rejects(installBundledVoices(bundled, notADir), { code: 'ERR_VOICE_INSTALL', message: /^Cannot create voice folder .*a-file: / })
})
