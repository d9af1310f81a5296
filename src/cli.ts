// `chorus <command>`: one entry point for every part of Chorus.
//   serve                      the TTS HTTP service (configured by env, see README)
//   say TEXT [flags] -o FILE   one-off synthesis without a server
//   voices [list|install|...]  list, install, remove and copy bundled voices
//   tools [--stdio] [flags]    the bot spawner tool server (MCP)
//   spawner [flags]            the reference bot spawner
//   bench [SUBCOMMAND]         the load-test harness, from the repository's
//                              bench/ folder (docs/benchmarks.md)
// Every command takes --help. Returns the exit code: 2 for bad configuration
// or usage, 1 for other failures the user can act on.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ChorusError, ConfigError } from './errors.js'
import { PACKAGE_ROOT } from './package-root.js'
import type { Env } from './shared/config-values.js'

const USAGE = `usage: chorus <command> [flags]    (chorus <command> --help for its flags)
  serve                                   run the TTS HTTP service (env: TTS_*, see README)
  say TEXT [--voice NAME] [--speaker S] [--length-scale X] [--noise-scale X]
      [--noise-w X] [--sentence-silence S] [--normalize] [--ssml]
      [--lexicon ID]... [--voice-dir DIR] [--timestamps FILE.json] -o FILE.wav
                                          speak into a WAV file, no server needed
  voices [list | install-bundled]         list voices; copy bundled ones into TTS_VOICE_DIR
  voices install|remove NAME...           add catalogue voices (size, md5 checked) or remove them
  tools [--stdio] [flags]                 bot spawner tools over MCP (see README)
  spawner [flags]                         the reference bot spawner
  bench [SUBCOMMAND] [flags]              the load-test harness (in a clone of the
                                          repository, not in the package): targets,
                                          conversation, fairness, mixed, backlog,
                                          profile, fleet, compare A.json B.json
  --version                               print the version`

function version (): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version
}

/** What `chorus bench` needs of the harness: its entry point, bench/cli.ts. */
export type BenchMain = (argv: string[], env: Env) => Promise<number>

// The load-test harness is the repository's bench/ folder, which the package
// leaves out (package.json "files"). Loaded by URL, not by a literal
// specifier: so src/ does not depend on it, and tsc builds the service
// without it (the image's build context has no bench/ either).
const HARNESS = new URL('../bench/cli.js', import.meta.url)

function harnessPresent (): boolean {
  const path = fileURLToPath(HARNESS)
  // From the sources (tsx) the file is still TypeScript.
  return existsSync(path) || existsSync(path.replace(/\.js$/, '.ts'))
}

async function bench (argv: string[], env: Env): Promise<number> {
  let harness: { benchMain: BenchMain }
  try {
    harness = await import(HARNESS.href) as { benchMain: BenchMain }
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error
    if (!harnessPresent()) {
      console.error(`chorus bench: the load-test harness is not part of the installed package.
It lives in the bench/ folder of Chorus's source repository; from a clone:
  npm install
  npm run bench -- --help        (or npx chorus bench --help)`)
    } else {
      // A clone installed with --omit=dev: the harness's own libraries (vega) are dev dependencies.
      console.error(`chorus bench: the load-test harness needs the repository's dev dependencies (${(error as Error).message}): run npm install, without --omit=dev`)
    }
    return 2
  }
  return await harness.benchMain(argv, env)
}

export async function main (argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv
  try {
    switch (command) {
      case 'serve': return await (await import('./commands/serve.js')).serve(rest, process.env)
      case 'say': return await (await import('./commands/say.js')).say(rest, process.env)
      case 'voices': return await (await import('./commands/voices.js')).voices(rest, process.env)
      case 'tools': return await (await import('./tools/cli.js')).runToolsCommand(rest, { env: process.env })
      case 'spawner': return await (await import('./spawner/cli.js')).runSpawnerCommand(rest, { env: process.env })
      case 'bench': return await bench(rest, process.env)
      case '--version':
        console.log(version())
        return 0
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        console.log(USAGE)
        return command === undefined ? 2 : 0
      default:
        console.error(`chorus: unknown command ${JSON.stringify(command)}\n${USAGE}`)
        return 2
    }
  } catch (error) {
    // util.parseArgs rejects unknown flags with ERR_PARSE_ARGS_* codes.
    const usage = String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')
    if (usage || (error instanceof ChorusError && error.code === 'ERR_INVALID_ARGUMENT')) {
      console.error(`chorus ${command}: ${(error as Error).message}\n(chorus ${command} --help shows the usage)`)
      return 2
    }
    if (error instanceof ConfigError) {
      console.error(`chorus ${command}: ${error.message}`)
      return 2
    }
    if (error instanceof ChorusError) {
      console.error(`chorus ${command}: ${error.message}`)
      return 1
    }
    throw error
  }
}
