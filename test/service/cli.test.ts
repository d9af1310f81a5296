// The `chorus` command as a user runs it: a child process.

import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { parseWav } from '../../src/engine/index.js'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { testVoiceDir } from '../helpers/voices.js'

const run = promisify(execFile)
const BIN = join(PACKAGE_ROOT, 'src/bin.cts')

async function chorus (args: string[], env: Record<string, string> = {}): Promise<{ code: number, stdout: string, stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 60_000
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number, stdout: string, stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

const out = await mkdtemp(join(tmpdir(), 'chorus-cli-'))
t.teardown(() => rm(out, { recursive: true, force: true }))

t.test('chorus say writes a WAV with a Piper voice', async t => {
  const file = join(out, 'probe.wav')
  const result = await chorus(['say', 'Hello there. Second sentence.', '--voice', 'en_GB-probemulti-medium', '--speaker', '3', '-o', file], { TTS_VOICE_DIR: await testVoiceDir() })
  t.equal(result.code, 0, result.stderr)
  const wav = parseWav(await readFile(file))
  t.equal(wav.sampleRate, 22050)
  t.ok(wav.dataBytes > 0)
})

t.test('chorus say speaks with the built-in voice without any files', async t => {
  const file = join(out, 'builtin.wav')
  const result = await chorus(['say', 'Hello from Chorus.', '--voice', 'en_US-espeak-low', '-o', file], { TTS_VOICE_DIR: join(out, 'no-voices-here') })
  t.equal(result.code, 0, result.stderr)
  t.ok(parseWav(await readFile(file)).duration > 0.5)
})

t.test('bad configuration exits 2 naming the variable', async t => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ TTS_HTTP_PORT: 'eighty' }, /Expected an integer from 0 to 65535 for TTS_HTTP_PORT but received "eighty" \(string\)/],
    [{ TTS_HTTP_PORT: '70000' }, /TTS_HTTP_PORT but received "70000"/],
    [{ TTS_TIMEOUT_SECONDS: '0' }, /Expected a number from 0.1 to 3600 for TTS_TIMEOUT_SECONDS but received "0"/],
    [{ TTS_WORKERS_PER_VOICE: '-1' }, /TTS_WORKERS_PER_VOICE/],
    [{ TTS_LOG_LEVEL: 'loud' }, /Expected one of fatal, error, warn, info, debug, trace, silent for TTS_LOG_LEVEL but received "loud"/]
  ]
  for (const [env, message] of cases) {
    const result = await chorus(['serve'], env)
    t.equal(result.code, 2, JSON.stringify(env))
    t.match(result.stderr, message)
  }
})

t.test('usage errors exit 2', async t => {
  const unknown = await chorus(['sing'])
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /unknown command "sing"/)
  const noOutput = await chorus(['say', 'hi'])
  t.equal(noOutput.code, 2)
  t.match(noOutput.stderr, /Expected an output file for -o\/--output/)
  const unknownFlag = await chorus(['say', 'hi', '--loud'])
  t.equal(unknownFlag.code, 2)
  t.match(unknownFlag.stderr, /--loud/)
  const badFlag = await chorus(['say', 'hi', '--length-scale', 'slow', '-o', join(out, 'x.wav')])
  t.equal(badFlag.code, 2)
  t.match(badFlag.stderr, /Expected a number for --length-scale but received "slow"/)
  const missingVoice = await chorus(['say', 'hi', '--voice', 'en_US-nobody-medium', '-o', join(out, 'x.wav')], { TTS_VOICE_DIR: out })
  t.equal(missingVoice.code, 1)
  t.match(missingVoice.stderr, /Voice model not found: en_US-nobody-medium/)
})

t.test('chorus serve stops gracefully on SIGTERM with exit code 0', async t => {
  const { spawn } = await import('node:child_process')
  const { createServer } = await import('node:net')
  // A free port: bind to 0, read it, let it go.
  const port = await new Promise<number>(resolve => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
  const child = spawn(process.execPath, ['--import', 'tsx', BIN, 'serve'], {
    env: { PATH: process.env.PATH ?? '', TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: String(port), TTS_VOICE_DIR: await testVoiceDir(), TTS_DEFAULT_VOICE: 'en_US-probe-medium', TTS_WORKERS_PER_VOICE: '1' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', chunk => { output += String(chunk) })
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
  const deadline = Date.now() + 30_000
  while (!output.includes('"listening"') && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 100))
  const health = await fetch(`http://127.0.0.1:${port}/health`)
  t.equal(health.status, 200)
  child.kill('SIGTERM')
  t.equal(await exited, 0)
  t.match(output, /"signal":"SIGTERM"/)
  t.match(output, /"msg":"stopped"/)
})
