// The `chorus` command as a user gets it: `npm pack`, the tarball installed
// into a scratch prefix, and the installed bin run as an executable (its
// shebang, its mode) from a PATH that holds node, npm and a shell and
// nothing else. Without cmake, a compiler or apt-get on that PATH, a
// successful install proves the package carries a working addon and the
// espeak-ng data, and that Chorus's install script (which npm runs for a
// dependency) takes its prebuilt path. The scratch project denies
// onnxruntime-node's install script as the README tells operators to (it
// downloads GPU files from a host this machine cannot reach). It does not
// prove a build from source: `npm install` in a clone (CI's first command)
// does.
// Slow (tsc, a full dependency install): run by `npm run test:slow`.

import { execFile, spawn } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { parseWav } from '../../src/engine/index.js'
import { PACKAGE_ROOT } from '../../src/package-root.js'

const run = promisify(execFile)

const scratch = await mkdtemp(join(tmpdir(), 'chorus-installed-'))
t.teardown(() => rm(scratch, { recursive: true, force: true }))
const bin = join(scratch, 'bin')
const prefix = join(scratch, 'prefix')
const chorus = join(prefix, 'node_modules/.bin/chorus')
const env = { PATH: bin, HOME: process.env.HOME ?? scratch }
let packedFiles: string[] = []
let installLog = ''

// Set-up inside before(): tap ends a file's root test (and runs its
// teardown) when its queue drains, which a long top-level await would allow.
t.before(async () => {
  // A PATH with only what an install needs from the system.
  await mkdir(bin)
  for (const tool of ['node', 'npm', 'sh', 'bash']) {
    const found = (await run('sh', ['-c', `command -v ${tool}`])).stdout.trim()
    await symlink(realpathSync(found), join(bin, tool))
  }
  const packed = await run('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: PACKAGE_ROOT, maxBuffer: 64 * 1024 * 1024 })
  const [{ filename, files }] = JSON.parse(packed.stdout) as Array<{ filename: string, files: Array<{ path: string }> }>
  packedFiles = files.map(file => file.path)
  await mkdir(prefix)
  await writeFile(join(prefix, 'package.json'), JSON.stringify({ name: 'scratch', private: true, allowScripts: { 'onnxruntime-node': false } }))
  const installed = await run('npm', ['install', '--foreground-scripts', '--prefer-offline', '--no-audit', '--no-fund', join(scratch, filename)], {
    cwd: prefix, env, maxBuffer: 64 * 1024 * 1024
  })
  installLog = installed.stdout + installed.stderr
})

t.test('the tarball carries the built addon, the espeak-ng data and the compiled CLI, not the tests', async t => {
  const paths = new Set(packedFiles)
  for (const path of ['build/Release/chorus_native.node', 'native/third_party/espeak-ng-data/phontab', 'dist/src/bin.cjs', 'voices/catalog.json', 'LICENSE']) {
    t.ok(paths.has(path), path)
  }
  t.notOk(packedFiles.some(path => path.startsWith('test/') || path.startsWith('dist/test/')), 'no tests')
  t.notOk(packedFiles.some(path => path.startsWith('native/third_party/downloads')), 'no third-party downloads')
  t.notOk(packedFiles.some(path => /^(dist\/)?(bench|src\/bench)\//.test(path) || /(^|\/)scripts\/(soak|bench-)/.test(path)), 'no load-test harness')
})

t.test('installing needs no compiler: the install script uses the shipped addon', async t => {
  t.match(installLog, /chorus: using the prebuilt native addon shipped in the package/)
})

t.test('the installed bin is an executable node script', async t => {
  const target = realpathSync(chorus)
  t.equal((await readFile(target, 'utf8')).split('\n')[0], '#!/usr/bin/env node')
  t.ok(((await stat(target)).mode & 0o111) !== 0, 'executable')
})

t.test('chorus --help', async t => {
  const { stdout } = await run(chorus, ['--help'], { cwd: scratch, env })
  t.match(stdout, /^usage: chorus <command>/)
  t.match(stdout, /serve/)
  t.match(stdout, /say TEXT/)
})

t.test('chorus bench: the harness is not in the package; exit 2 and where to find it', async t => {
  const error = await run(chorus, ['bench', '--help'], { cwd: scratch, env }).then(() => undefined, (failure: unknown) => failure as { code: number, stderr: string })
  t.equal(error?.code, 2)
  t.match(error?.stderr, /^chorus bench: the load-test harness is not part of the installed package\.\nIt lives in the bench\/ folder of Chorus's source repository/)
  t.match(error?.stderr, /npm run bench -- --help/)
  const installed = async (name: string) => await stat(join(prefix, 'node_modules', name)).then(() => true, () => false)
  t.notOk(await installed('vega') || await installed('vega-lite'), 'the harness\'s charting libraries are not installed')
})

t.test('chorus say speaks with the built-in voice', async t => {
  const { stdout } = await run(chorus, ['say', 'Hello.', '--voice', 'en_US-espeak-low', '-o', 'x.wav'], { cwd: scratch, env })
  t.match(stdout, /wrote x\.wav/)
  const wav = parseWav(await readFile(join(scratch, 'x.wav')))
  t.equal(wav.channels, 1)
  t.ok(wav.duration > 0.3, `${wav.duration} s of audio`)
})

t.test('chorus serve starts from the installed package: the playground, speech, and SIGTERM → exit 0', async t => {
  const child = spawn(chorus, ['serve'], {
    cwd: scratch,
    env: { ...env, TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: '0', TTS_VOICE_DIR: join(scratch, 'voices'), CHORUS_INSTALL_BUNDLED: '0' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output)
      if (match !== null) resolve(match[1])
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    void exited.then(code => reject(new Error(`chorus serve exited (${code}) before listening:\n${output}`)))
  })
  const page = await fetch(`${url}/`, { signal: AbortSignal.timeout(30_000) })
  t.equal(page.status, 200, 'GET / (the playground, from the package\'s public/)')
  t.match(page.headers.get('content-type') ?? '', /text\/html/)
  const speech = await fetch(`${url}/tts`, { method: 'POST', body: JSON.stringify({ text: 'Hello.' }), headers: { 'Content-Type': 'application/json' }, signal: AbortSignal.timeout(30_000) })
  t.equal(speech.status, 200)
  t.ok(parseWav(Buffer.from(await speech.arrayBuffer())).duration > 0.3, 'the built-in voice speaks')
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'SIGTERM ends it cleanly')
})
