// `chorus bench …`: the load-test harness. Returns the exit code: 0 after a
// run, 1 when the run fails, 2 for a bad flag or file.
//   chorus bench [flags]                 a sweep (closed or open loop)
//   chorus bench targets --voices D --voice V   the README's figures, side by side
//   chorus bench fleet --voices D --voice V    many voices against one, and memory
//   chorus bench conversation --voices D --voice V   bots talking in real time (issue 30)
//   chorus bench fairness --voices D --voice V       one busy tenant against quiet ones (issue 27)
//   chorus bench mixed --voices D --voice V          streaming bots beside whole answers (issue 43)
//   chorus bench backlog --voices D --voice V        a short answer behind four long ones (issue 43)
//   chorus bench profile --voices D --voice V  where the time goes at saturation, against the ceiling
//   chorus bench compare a.json b.json   ratios between two runs

import type { BenchMain } from '../src/cli.js'
import { ChorusError, ConfigError } from '../src/errors.js'
import { compareResults } from './compare.js'
import { checkVoiceFolder, parseCompareArgs, parseFleetConfig, parseProfileConfig, parseRunConfig, parseTargetsConfig } from './config.js'
import { parseConversationConfig, parseFairnessConfig } from './conversation/config.js'
import { runConversation } from './conversation/conversation.js'
import { runFairness } from './conversation/fairness.js'
import { runBacklog } from './whole-answers/backlog.js'
import { parseBacklogConfig, parseMixedConfig } from './whole-answers/config.js'
import { runMixed } from './whole-answers/mixed.js'
import { runFleet } from './fleet.js'
import { processIo, type BenchIo } from './io.js'
import { runProfile } from './profile.js'
import { readResults } from './results.js'
import { runSweep } from './run.js'
import { runTargets } from './targets.js'

/** `chorus bench`'s entry point, which src/cli.ts loads by URL (the type keeps the two in step). */
export const benchMain: BenchMain = async (argv, env) => await runBenchCommand(argv, processIo(env))

const BENCH_USAGE = `Usage: chorus bench [flags]            sweep load levels against a Chorus service
       chorus bench targets --voices DIR --voice NAME [--quick] [--out DIR]
       chorus bench fleet --voices DIR --voice NAME [--count 8] [--clients 4] [--cycles 30] [--quick] [--out DIR]
       chorus bench conversation --voices DIR --voice NAME [--bots 1,2,4,8] [--transport http,websocket,reply]
                              [--scenarios crowd,spread] [--quick] [--out DIR]
       chorus bench fairness --voices DIR --voice NAME [--busy-bots 32] [--quiet-tenants 4] [--rounds 3] [--quick]
       chorus bench mixed --voices DIR --voice NAME [--bots 8] [--whole-clients 2] [--long-sentences 10-40] [--quick]
       chorus bench backlog --voices DIR --voice NAME [--long-requests 4] [--long-sentences 250] [--keys none,one]
       chorus bench profile --voices DIR --voice NAME [--clients 4] [--rounds 3] [--duration 40] [--ceiling-seconds 15] [--quick]
       chorus bench compare a/results.json b/results.json

Conversation, fairness and mixed (docs/benchmarks.md#conversations):
  --duration S              per level or phase (default 60; --quick 5)
  --jitter MS               the listener's jitter buffer (default 200)
  --pause S                 a pause of up to S between replies (default 2; 0: back to back)
  --ramp S                  spread: each bot's first reply starts within S of the level's start
                            (conversation, mixed: default 12, about one reply; fairness and --quick: 1)
  --tokens-per-second A-B   the reply's token rate (default 20-50)
  --sentences A-B           sentences per reply (default 2-4)
  --schedulers deadline,fifo   TTS_SCHEDULER values, each on a fresh service (default both)
  --transport http,websocket,reply   (conversation, mixed) POST /tts?stream=1 per sentence,
                            stream-input token by token, or the whole reply as one
                            POST /tts?stream=1; each on a fresh service per scheduler (default all
                            three); conversation also takes cartesia and deepgram (their sockets,
                            token by token), never run unless named
  --scenarios crowd,spread  (conversation) crowd: every bot answers each line within 200 ms,
                            line after line; spread: back to back from starts over --ramp
                            (default both)
  --no-ceiling, --ceiling-seconds S, --ceiling-repeats N   (conversation)
  --scenario crowd|spread   (mixed) how the bots start (default spread)
  --whole-clients N         (mixed) closed-loop clients of whole answers, short and long in turn (default 2)
  --long-sentences A-B      (mixed) sentences of a long whole answer (default 10-40)
  --idle-repeats N          (mixed, backlog) short answers timed on the idle service (default 5; --quick 3)

Backlog (issue 43's probe: a one-sentence answer sent after four long whole answers):
  --long-requests N         long answers sent at once (default 4)
  --long-sentences N        short sentences in each (default 250)
  --delay S                 the one-sentence request this long after them (default 0.5)
  --keys none,one           without API keys, and all under one key (default both)
  --seed N, --out DIR, --progress, --quick

Service (one of):
  --url URL                 drive a running service (http://127.0.0.1:8995)
  --voices DIR              start one in-process over DIR (TTS_* variables apply);
                            with --url, DIR only gives the models for the ceiling
Load:
  --concurrency 1,2,4,8     closed loop: clients, each sending when its last request ends (default)
  --rate 2,4 | 50%,70%      open loop: requests per second, or shares of the ceiling
  --arrivals constant|poisson   open-loop arrivals (default constant)
  --duration S              seconds per level (default 15), or
  --requests N              requests per level
  --warmup S                warm-up before each level (default 3)
  --timeout S               per request (default 60)
  --max-in-flight N         open loop: requests in flight at most (default 512)
  --endpoint tts|health     health: GET /health, to show the harness's own limit
Workload:
  --voice NAME[:W],…        voice mix with weights (default: the service's default voice)
  --voices-count N          many voices: the one --voice installed under N names (from
                            --voices DIR, served in-process), sent round-robin; the
                            report adds voice loads and evictions per level
  --text-file PATH          one text per line instead of the built-in corpus
  --seed N                  corpus, mix and arrivals seed (default 1)
  --repeat R                share of requests (0–1) repeating a stock phrase (default 0)
  --stream                  ask for streamed WAVs
  --format F                audio format to ask for: wav (default), mp3, opus, pcm
  --speaker S --length-scale X --noise-scale X --noise-w X --sentence-silence S
Ceiling (bare engine, same voice and texts, one worker per core, no HTTP):
  --ceiling-seconds S       per repeat (default 8)
  --ceiling-repeats N       the median is reported (default 3)
  --ceiling-workers N       default: the number of cores
  --no-ceiling
Output:
  --out DIR                 default bench-results/<time>: results.json, report.md, *.svg
  --label NAME              the run's name in reports and comparisons
  --progress                the live progress line even when stderr is not a terminal
  --scrape-interval S       /metrics sampling (default 1)
`

/** A subcommand: parses its flags (null: --help) and runs, resolving with the exit code. */
type Command = (argv: string[], io: BenchIo) => Promise<number | null>

/** Parses with `parse`, checks the voice folder, runs; exit 0 unless `ok` says the run missed. */
function command<C extends { voiceDir: string | null }, R> (parse: (argv: string[]) => C | 'help', run: (config: C, io: BenchIo) => Promise<R>, ok: (results: R) => boolean = () => true): Command {
  return async (argv, io) => {
    const config = parse(argv)
    if (config === 'help') return null
    checkVoiceFolder(config.voiceDir)
    return ok(await run(config, io)) ? 0 : 1
  }
}

const COMMANDS: Record<string, Command> = {
  compare: async (argv, io) => {
    const args = parseCompareArgs(argv)
    if (args === 'help') return null
    const a = await readResults(args.a, 'the first file')
    const b = await readResults(args.b, 'the second file')
    io.stdout.write(compareResults(a, b))
    return 0
  },
  targets: command(parseTargetsConfig, runTargets, results => results.figures.every(figure => figure.met !== null)),
  conversation: command(parseConversationConfig, runConversation),
  fairness: command(parseFairnessConfig, runFairness),
  mixed: command(parseMixedConfig, runMixed),
  backlog: command(parseBacklogConfig, runBacklog),
  profile: command(parseProfileConfig, runProfile),
  fleet: command(parseFleetConfig, runFleet, results => results.figures.every(figure => figure.met !== null))
}

export async function runBenchCommand (argv: string[], io: BenchIo): Promise<number> {
  const [first, ...rest] = argv
  const subcommand = first !== undefined && Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined
  try {
    const code = subcommand === undefined
      ? await command(parseRunConfig, runSweep)(argv, io)
      : await subcommand(rest, io)
    return code ?? usage(io)
  } catch (error) {
    if (error instanceof ConfigError || (error instanceof ChorusError && error.code === 'ERR_INVALID_ARGUMENT')) {
      io.stderr.write(`chorus bench: ${error.message}\n`)
      return 2
    }
    if (error instanceof ChorusError) {
      io.stderr.write(`chorus bench: ${error.message}\n`)
      return 1
    }
    throw error
  }
}

function usage (io: BenchIo): number {
  io.stdout.write(BENCH_USAGE)
  return 0
}
