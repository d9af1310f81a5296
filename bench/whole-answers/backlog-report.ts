// The backlog probe's Markdown report: per key mode, the short request's
// idle latency, its latency behind the long answers, and the ratio.

import { quantile } from '../stats.js'
import { markdownTable, num, ratio } from '../table.js'
import type { BacklogResults } from './backlog.js'

/** Issue 43's target for the short request behind the backlog, over its idle latency. */
export const BACKLOG_TARGET = 3

export function backlogReport (results: BacklogResults): string {
  const { config } = results
  const rows = results.probes.map(p => {
    const longMs = p.long.map(l => l.latencyMs)
    return [
      p.keys === 'none' ? 'none' : 'one for all', num(p.idle.medianMs), p.shortMs === null ? `failed: ${p.shortError ?? ''}` : num(p.shortMs), ratio(p.ratio),
      `${p.longAfterShort} of ${p.long.length}`, `${num(quantile(longMs, 0.5))} / ${num(quantile(longMs, 1))}`, String(p.long.filter(l => l.error !== null).length)
    ]
  })
  return [
    `# Backlog probe (${config.voice})`,
    '',
    `${config.longRequests} whole answers (WAV, not streamed) of ${config.longSentences} short sentences each, sent at once; ${config.delayMs / 1000} s later one sentence, ` +
      `"${results.shortText}", whose idle latency is the median of ${config.idleRepeats} on the same idle service first. Phrase cache off.`,
    '',
    markdownTable(['API keys', 'idle ms', 'behind the backlog ms', '× idle', 'long answers still under way', 'long answers p50 / max ms', 'long answers failed']
      .map((header, i) => ({ header, align: i === 0 ? 'left' as const : 'right' as const })), rows),
    '',
    ...results.probes.flatMap(p => p.long.filter(l => l.error !== null).slice(0, 1).map(l => `${p.keys} key(s): a long answer failed with ${l.error ?? ''}.`)),
    `Issue 43's target: the short request within ${BACKLOG_TARGET} × its idle latency, with and without keys (it measured 156 ×).`,
    ''
  ].join('\n')
}
