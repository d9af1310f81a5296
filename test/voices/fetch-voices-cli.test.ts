import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Writable } from 'node:stream'
import { promisify } from 'node:util'
import t from 'tap'
import { runFetchVoices } from '../../scripts/fetch-voices.js'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { makeMirror } from './fixtures/mirror.js'
import { serveMirror } from './fixtures/mirror-server.js'
import { CHILD_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { nodeCommand, TSX_ARGS } from '../helpers/tsx.js'

const scratch = await mkdtemp(join(tmpdir(), 'chorus-fetch-cli-'))
t.teardown(() => rm(scratch, { recursive: true, force: true }))
const mirror = await makeMirror([{ name: 'en_US-good-medium' }, { name: 'en_US-badmd5-medium', defect: 'md5' }], scratch)

interface Run { code: number, stdout: string, stderr: string }

async function run (argv: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const sink = (append: (text: string) => void) => ({ write: (text: string) => { append(text); return true } }) as unknown as Writable
  const code = await runFetchVoices(argv, { stdout: sink(s => { stdout += s }), stderr: sink(s => { stderr += s }) })
  return { code, stdout, stderr }
}

t.test('usage errors exit 2 and name the problem', async t => {
  const cases: Array<[string[], RegExp]> = [
    [['--bogus', 'en_US-good-medium'], /^fetch-voices: Unknown option '--bogus'/],
    [['--dest'], /^fetch-voices: Option '--dest <value>' argument missing/],
    [[], /^fetch-voices: name at least one voice/],
    [['--mirror', 'a', '--base-url', 'http://127.0.0.1:1/', 'en_US-good-medium'], /--mirror and --base-url cannot be used together/],
    [['--timeout-ms', '5s', 'en_US-good-medium'], /^fetch-voices: Expected a positive integer for --timeout-ms but received "5s" \(string\)/],
    [['--catalog', mirror.catalogPath, '--mirror', mirror.dir, '../etc/passwd'], /^fetch-voices: Expected a voice name like en_US-lessac-medium for names\[0\] but received "\.\.\/etc\/passwd" \(string\)$/m],
    [['--base-url', 'ftp://x/', 'en_US-lessac-medium'], /for options\.baseUrl but received "ftp:\/\/x\/"/]
  ]
  for (const [argv, message] of cases) {
    const result = await run(argv)
    t.equal(result.code, 2, argv.join(' '))
    t.match(result.stderr, message)
    t.equal(result.stdout, '')
  }
  t.match((await run(['--bogus'])).stderr, /Usage: fetch-voices/, 'usage follows the reason')
})

t.test('--help and --list', async t => {
  const help = await run(['--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /^Usage: fetch-voices \[--dest DIR\] \[--mirror DIR \| --base-url URL\] NAME\.\.\./)
  const list = await run(['--list', '--catalog', mirror.catalogPath])
  t.equal(list.code, 0)
  t.match(list.stdout, /^en_US-good-medium +0\.2 MiB\nen_US-badmd5-medium +0\.2 MiB\n$/)
  const real = await run(['--list'])
  t.match(real.stdout, /^en_US-lessac-medium +60\.3 MiB$/m)
  t.match(real.stdout, /^en_GB-vctk-medium +\d+\.\d MiB {2}109 speakers$/m)
})

t.test('installs from a mirror, prints what it did, skips what is there', async t => {
  const dest = join(scratch, 'dest-mirror')
  const first = await run(['--dest', dest, '--mirror', mirror.dir, '--catalog', mirror.catalogPath, 'en_US-good-medium'])
  t.equal(first.code, 0, first.stderr)
  t.equal(first.stdout, `installed en_US-good-medium: ${join(dest, 'en_US-good-medium.onnx')}\n`)
  t.match(first.stderr, /^fetching en\/en_US\/good\/medium\/en_US-good-medium\.onnx \(195\.3 KiB\) from .*\nfetching .*\.onnx\.json .*\ninstalled en_US-good-medium in /)
  t.same((await readdir(dest)).sort(), ['en_US-good-medium.onnx', 'en_US-good-medium.onnx.json'])
  const second = await run(['--dest', dest, '--mirror', mirror.dir, '--catalog', mirror.catalogPath, 'en_US-good-medium'])
  t.equal(second.stdout, `already installed en_US-good-medium: ${join(dest, 'en_US-good-medium.onnx')}\n`)
})

t.test('a failure exits 1 with the reason', async t => {
  const dest = join(scratch, 'dest-fail')
  const bad = await run(['--dest', dest, '--mirror', mirror.dir, '--catalog', mirror.catalogPath, 'en_US-badmd5-medium'])
  t.equal(bad.code, 1)
  t.match(bad.stderr, /\nfetch-voices: MD5 mismatch for en\/en_US\/badmd5\/medium\/en_US-badmd5-medium\.onnx from .*: expected [0-9a-f]{32}, computed [0-9a-f]{32}\n$/)
  t.same(await readdir(dest), [])
  const unknown = await run(['--dest', dest, '--mirror', mirror.dir, '--catalog', mirror.catalogPath, 'en_US-nobody-medium'])
  t.equal(unknown.code, 1)
  t.equal(unknown.stderr, 'fetch-voices: Voice "en_US-nobody-medium" is not in the voice catalogue\n')
  const missingCatalog = await run(['--catalog', join(scratch, 'none.json'), 'en_US-good-medium'])
  t.equal(missingCatalog.code, 1)
  t.match(missingCatalog.stderr, /Cannot read voice catalogue .*none\.json: file not found/)
})

t.test('as a process: downloads over HTTP and exits promptly; bad flags exit 2', async t => {
  const server = await serveMirror(mirror.dir)
  t.teardown(() => server.close())
  const script = join(PACKAGE_ROOT, 'scripts/fetch-voices.ts')
  const dest = join(scratch, 'dest-process')
  const ok = await promisify(execFile)(...nodeCommand([...TSX_ARGS, script, '--dest', dest, '--base-url', server.baseUrl,
    '--catalog', mirror.catalogPath, 'en_US-good-medium']), { cwd: PACKAGE_ROOT, timeout: CHILD_HANG_GUARD_MS })
  t.equal(ok.stdout, `installed en_US-good-medium: ${join(dest, 'en_US-good-medium.onnx')}\n`)
  t.ok((await readFile(join(dest, 'en_US-good-medium.onnx'))).equals(mirror.files.get('en_US-good-medium')?.model as Buffer))
  const bad = await promisify(execFile)(...nodeCommand([...TSX_ARGS, script, '--nope']), { cwd: PACKAGE_ROOT, timeout: CHILD_HANG_GUARD_MS })
    .then(() => ({ code: 0, stderr: '' }), (error: { code: number, stderr: string }) => error)
  t.equal(bad.code, 2)
  t.match(bad.stderr, /Unknown option '--nope'/)
})
