// `chorus <command>`: one entry point for every part of Chorus.
//   serve                      the TTS HTTP service (configured by env, see README)
//   say TEXT [flags] -o FILE   one-off synthesis without a server
//   voices install-bundled     copy bundled voices missing from TTS_VOICE_DIR
//   tools [--stdio] [flags]    the bot spawner tool server (MCP)
//   spawner [flags]            the reference bot spawner
//   bench [targets|compare]    the load-test harness (see README, Benchmarks)
// Every command takes --help. Returns the exit code: 2 for bad configuration
// or usage, 1 for other failures the user can act on.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ChorusError, ConfigError } from './errors.js'
import { PACKAGE_ROOT } from './package-root.js'

const USAGE = `usage: chorus <command> [flags]    (chorus <command> --help for its flags)
  serve                                   run the TTS HTTP service (env: TTS_*, see README)
  say TEXT [--voice NAME] [--speaker S] [--length-scale X] [--noise-scale X]
      [--noise-w X] [--sentence-silence S] [--voice-dir DIR] -o FILE.wav
                                          speak into a WAV file, no server needed
  voices install-bundled                  copy bundled voices into TTS_VOICE_DIR
  tools [--stdio] [flags]                 bot spawner tools over MCP (see README)
  spawner [flags]                         the reference bot spawner
  bench [flags] | bench targets | bench compare a.json b.json
                                          the load-test harness
  --version                               print the version`

function version (): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version
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
      case 'bench': {
        const bench = await import('./bench/cli.js')
        return await bench.runBenchCommand(rest, bench.processIo(process.env))
      }
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
