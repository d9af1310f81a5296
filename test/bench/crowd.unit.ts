// The crowd scenario's conductor (bench/conversation/crowd.ts) on a clock of
// the test's own: every bot starts within 200 ms of the line, the next line
// comes only once every reply was heard, lines repeat until stopped, a bot
// whose reply failed leaves, and the starts are the seed's. No real time
// passes: the clock jumps from timer to timer.

import t from 'tap'
import { Rng } from '../../bench/corpus.js'
import { CROWD_SPREAD_MS, crowdOffsets, runCrowd, type CrowdBot, type CrowdClock } from '../../bench/conversation/crowd.js'

/** Timers on virtual time: run() resolves the earliest, lets every promise settle, and goes on. */
class VirtualClock implements CrowdClock {
  private at = 0
  private sequence = 0
  private readonly timers: Array<{ at: number, sequence: number, resolve: () => void }> = []

  now = (): number => this.at

  sleep = async (ms: number): Promise<void> => await new Promise(resolve => {
    this.timers.push({ at: this.at + ms, sequence: this.sequence++, resolve })
  })

  /** Until `done` settles; `onTick` sees the time after each jump. */
  async run<T> (done: Promise<T>, onTick: (now: number) => void): Promise<T> {
    let finished = false
    void done.then(() => { finished = true }, () => { finished = true })
    for (;;) {
      // Nothing here waits on I/O: one turn of the event loop settles every promise.
      await new Promise(resolve => setImmediate(resolve))
      if (finished || this.timers.length === 0) return await done
      this.timers.sort((a, b) => a.at - b.at || a.sequence - b.sequence)
      const next = this.timers.shift()
      if (next === undefined) return await done
      this.at = next.at
      onTick(this.at)
      next.resolve()
    }
  }
}

interface Start { bot: number, line: number, atMs: number, endMs: number, first: boolean }

/** Bots whose replies last 1–2.5 s; `failAt` bot fails on that line. Stopped at `stopAtMs`. */
async function crowd (seed: number, options: { bots: number, stopAtMs: number, maxPauseMs: number, fail?: { bot: number, line: number } }): Promise<{ starts: Start[], lines: number }> {
  const clock = new VirtualClock()
  const stop = new AbortController()
  const starts: Start[] = []
  const heard = new Map<number, number>()
  const bots: CrowdBot[] = Array.from({ length: options.bots }, (_, bot) => async first => {
    const line = heard.get(bot) ?? 0
    heard.set(bot, line + 1)
    const start: Start = { bot, line, atMs: clock.now(), endMs: Number.NaN, first }
    starts.push(start)
    await clock.sleep(1000 + 500 * (bot % 4))
    start.endMs = clock.now()
    return !(options.fail?.bot === bot && options.fail.line === line)
  })
  const lines = await clock.run(runCrowd({ bots, spreadMs: CROWD_SPREAD_MS, maxPauseMs: options.maxPauseMs, rng: new Rng(seed), clock, stop: stop.signal }), now => {
    if (now >= options.stopAtMs) stop.abort()
  })
  return { starts, lines }
}

function byLine (starts: readonly Start[]): Start[][] {
  const lines: Start[][] = []
  for (const start of starts) (lines[start.line] ??= []).push(start)
  return lines
}

t.test('every bot answers a line within 200 ms of the others, and the next line waits for every reply', async t => {
  const { starts, lines } = await crowd(1, { bots: 6, stopAtMs: 20_000, maxPauseMs: 2000 })
  const grouped = byLine(starts)
  t.equal(grouped.length, lines, 'one group of starts per line')
  t.ok(lines >= 4, `lines repeat until stopped (${lines})`)
  for (const [line, group] of grouped.entries()) {
    t.equal(group.length, 6, `line ${line}: every bot answered`)
    const at = group.map(s => s.atMs)
    t.ok(Math.max(...at) - Math.min(...at) < CROWD_SPREAD_MS, `line ${line}: starts within ${Math.max(...at) - Math.min(...at)} ms of each other`)
    t.ok(group.every(s => s.first === (line === 0)), `line ${line}: only the first line's replies are first`)
    if (line > 0) {
      const lastEnd = Math.max(...grouped[line - 1].map(s => s.endMs))
      t.ok(Math.min(...at) >= lastEnd, `line ${line} comes after every reply to line ${line - 1} was heard`)
    }
  }
  t.ok(Math.max(...grouped[0].map(s => s.atMs)) < CROWD_SPREAD_MS, 'the first line is at the start')
  t.ok(Math.min(...grouped[lines - 1].map(s => s.atMs)) < 20_000, 'no line starts after the stop')
  t.ok(grouped[lines - 1].every(s => Number.isFinite(s.endMs)), 'the line under way at the stop finishes')
})

t.test('starts are the seed\'s: the same seed, the same starts; another seed, others', async t => {
  const a = await crowd(7, { bots: 4, stopAtMs: 8000, maxPauseMs: 1000 })
  const b = await crowd(7, { bots: 4, stopAtMs: 8000, maxPauseMs: 1000 })
  const c = await crowd(8, { bots: 4, stopAtMs: 8000, maxPauseMs: 1000 })
  t.same(b.starts, a.starts)
  t.not(JSON.stringify(c.starts.map(s => s.atMs)), JSON.stringify(a.starts.map(s => s.atMs)))
  const offsets = crowdOffsets(new Rng(3), 1000, CROWD_SPREAD_MS)
  t.ok(offsets.every(ms => ms >= 0 && ms < CROWD_SPREAD_MS), 'every offset in [0, 200)')
  t.ok(Math.max(...offsets) - Math.min(...offsets) > CROWD_SPREAD_MS * 0.9, 'spread over the window, not bunched')
})

t.test('a bot whose reply failed leaves the chat; the others go on; no pause: the next line at once', async t => {
  const { starts, lines } = await crowd(2, { bots: 3, stopAtMs: 12_000, maxPauseMs: 0, fail: { bot: 1, line: 1 } })
  const grouped = byLine(starts)
  t.same(grouped[1].map(s => s.bot).sort(), [0, 1, 2], 'it answered the line it failed on')
  t.ok(lines > 3)
  for (const group of grouped.slice(2)) t.same(group.map(s => s.bot).sort(), [0, 2], 'and none after')
  const lastEnd = Math.max(...grouped[0].map(s => s.endMs))
  t.ok(Math.min(...grouped[1].map(s => s.atMs)) - lastEnd < CROWD_SPREAD_MS, 'with --pause 0 the next line follows the last reply')
  const leavesAtOnce = await crowd(2, { bots: 2, stopAtMs: 60_000, maxPauseMs: 0, fail: { bot: 0, line: 0 } })
  t.ok(leavesAtOnce.starts.every(s => s.bot === 1 || s.line === 0), 'the failed bot is gone from the first line on')
})

t.test('stopped during the pause after a line: the next line never comes', async t => {
  // One bot, its reply ends by 1.2 s; the pause (up to 10 s, this seed's 3.2 s) outlasts the stop at 1.3 s.
  const { starts, lines } = await crowd(2, { bots: 1, stopAtMs: 1300, maxPauseMs: 10_000 })
  t.equal(lines, 1)
  t.same(starts.map(s => s.line), [0])
})

t.test('stopped before the first line: none', async t => {
  const stop = new AbortController()
  stop.abort()
  const lines = await runCrowd({ bots: [async () => true], spreadMs: CROWD_SPREAD_MS, maxPauseMs: 0, rng: new Rng(1), clock: new VirtualClock(), stop: stop.signal })
  t.equal(lines, 0)
})
