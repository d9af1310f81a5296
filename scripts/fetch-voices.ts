// Installs Piper voices from the catalogue into a voice folder.
//   tsx scripts/fetch-voices.ts [--dest DIR] [--mirror DIR | --base-url URL] NAME...
//   node dist/scripts/fetch-voices.js …   (the same, compiled)
// Exit codes: 0 done, 1 a voice could not be installed (the reason is
// printed), 2 bad usage, 130 interrupted. Everything comes from flags: this
// script reads no environment variables.

import type { Writable } from 'node:stream'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { ChorusError, InvalidArgumentError } from '../src/errors.js'
import { DEFAULT_VOICE_DIR } from '../src/service/config.js'
import { expectedMessage } from '../src/validate.js'
import type { InstallLog } from '../src/voices/bundled.js'
import { DEFAULT_CATALOG_PATH, loadCatalog, type VoiceCatalog } from '../src/voices/catalog.js'
import { DEFAULT_BASE_URL, DEFAULT_TIMEOUT_MS, fetchVoices, type FetchVoicesOptions } from '../src/voices/fetch.js'

// The folder every chorus command reads by default (README, Voices).
const DEFAULT_DEST = resolve(DEFAULT_VOICE_DIR)

export const USAGE = `Usage: fetch-voices [--dest DIR] [--mirror DIR | --base-url URL] NAME...
       fetch-voices --list

Installs catalogue voices (NAME.onnx and NAME.onnx.json) into DIR, checking
each file's size and md5 against the catalogue. Voices already installed
intact are skipped.

  --dest DIR          voice folder to install into (default ${DEFAULT_DEST})
  --mirror DIR        read files from a folder laid out like the Piper voices
                      repository instead of downloading them
  --base-url URL      http:, https: or file: URL of that repository
                      (default ${DEFAULT_BASE_URL})
  --catalog FILE      voice catalogue (default ${DEFAULT_CATALOG_PATH})
  --timeout-ms MS     wait for a response, and for each chunk of its body
                      (default ${DEFAULT_TIMEOUT_MS})
  --list              list the catalogue's voices and exit
  -h, --help          show this help
`

export interface FetchVoicesIo {
  stdout?: Writable
  stderr?: Writable
  /** Stops the fetch (SIGINT, SIGTERM); partial files are removed. */
  signal?: AbortSignal
}

class UsageError extends Error {}

export async function runFetchVoices (argv: string[], io: FetchVoicesIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout
  const stderr = io.stderr ?? process.stderr
  let parsed
  try {
    parsed = parseFlags(argv)
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof InvalidArgumentError || isParseArgsError(error))) throw error
    stderr.write(`fetch-voices: ${(error as Error).message}\n${USAGE}`)
    return 2
  }
  if (parsed === 'help') {
    stdout.write(USAGE)
    return 0
  }
  try {
    if (parsed.list) {
      stdout.write(formatList(await loadCatalog(parsed.catalogPath)))
      return 0
    }
    const results = await fetchVoices(parsed.names, { ...parsed.options, signal: io.signal, log: printer(stderr) })
    for (const voice of results) {
      stdout.write(`${voice.status === 'installed' ? 'installed' : 'already installed'} ${voice.name}: ${voice.model}\n`)
    }
    return 0
  } catch (error) {
    if (io.signal?.aborted === true) {
      stderr.write('fetch-voices: interrupted; no partial file was left behind\n')
      return 130
    }
    if (error instanceof InvalidArgumentError) {
      stderr.write(`fetch-voices: ${error.message}\n`)
      return 2
    }
    if (error instanceof ChorusError) {
      stderr.write(`fetch-voices: ${error.message}\n`)
      return 1
    }
    throw error
  }
}

interface ParsedFlags {
  list: boolean
  catalogPath: string
  names: string[]
  options: FetchVoicesOptions
}

function parseFlags (argv: string[]): ParsedFlags | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      dest: { type: 'string' },
      mirror: { type: 'string' },
      'base-url': { type: 'string' },
      catalog: { type: 'string' },
      'timeout-ms': { type: 'string' },
      list: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false }
    }
  })
  if (values.help) return 'help'
  if (values.mirror !== undefined && values['base-url'] !== undefined) {
    throw new UsageError('--mirror and --base-url cannot be used together')
  }
  if (!values.list && positionals.length === 0) throw new UsageError('name at least one voice, e.g. en_US-lessac-medium')
  const catalogPath = resolve(values.catalog ?? DEFAULT_CATALOG_PATH)
  return {
    list: values.list,
    catalogPath,
    names: positionals,
    options: {
      destDir: resolve(values.dest ?? DEFAULT_DEST),
      catalog: catalogPath,
      ...(values.mirror === undefined ? {} : { mirrorDir: resolve(values.mirror) }),
      ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
      ...(values['timeout-ms'] === undefined ? {} : { timeoutMs: parseTimeout(values['timeout-ms']) })
    }
  }
}

function parseTimeout (text: string): number {
  const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(value) || value < 1 || value > 2_147_483_647) {
    throw new InvalidArgumentError(expectedMessage('a positive integer', '--timeout-ms', text))
  }
  return value
}

function isParseArgsError (error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')
}

/** Progress goes to stderr, so stdout holds only the results. */
function printer (stream: Writable): InstallLog {
  const line = (_fields: Record<string, unknown>, message: string): void => { stream.write(`${message}\n`) }
  return { info: line, warn: line }
}

function formatList (catalog: VoiceCatalog): string {
  const rows = catalog.list().map(voice => {
    const megabytes = ((voice.model.sizeBytes + voice.config.sizeBytes) / 1024 / 1024).toFixed(1)
    const speakers = voice.numSpeakers === 1 ? '' : `  ${voice.numSpeakers} speakers`
    return `${voice.name.padEnd(40)} ${megabytes.padStart(6)} MiB${speakers}\n`
  })
  return rows.join('')
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const controller = new AbortController()
  const stop = (): void => { controller.abort(new Error('interrupted')) }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  process.exitCode = await runFetchVoices(process.argv.slice(2), { signal: controller.signal })
  process.off('SIGINT', stop)
  process.off('SIGTERM', stop)
}
