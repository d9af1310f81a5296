// The mixed load's Markdown report: per scheduler and transport, the short
// whole answers' latency under the load against their idle latency, the
// long ones', and what the streaming bots' listeners heard.

import { markdownTable, num, ratio } from '../table.js'
import type { MixedResults } from './mixed.js'

const ms = (value: number | null): string => value === null ? '–' : num(value)

export function mixedReport (results: MixedResults): string {
  const { config } = results
  const rows = results.levels.map(l => [
    l.scheduler, l.transport, num(l.idleShort.medianMs), `${ms(l.short.p50Ms)} / ${ms(l.short.p95Ms)}`, `${ratio(l.shortP50Ratio)} / ${ratio(l.shortP95Ratio)}`,
    String(l.short.requests), `${ms(l.long.p50Ms)} / ${ms(l.long.p95Ms)}`, String(l.long.requests),
    `${l.bots.underrunReplies}/${l.bots.replies}`, `${ms(l.bots.firstAudioP50Ms)} / ${ms(l.bots.firstAudioP95Ms)}`, String(l.short.errors + l.long.errors + l.bots.errors)
  ])
  const failures = results.levels.flatMap(l => [
    ...(l.short.firstError === null ? [] : [`${l.scheduler}, ${l.transport}: ${l.short.errors} short answer(s) failed, the first with "${l.short.firstError}".`]),
    ...(l.long.firstError === null ? [] : [`${l.scheduler}, ${l.transport}: ${l.long.errors} long answer(s) failed, the first with "${l.long.firstError}".`]),
    ...(l.bots.firstError === null ? [] : [`${l.scheduler}, ${l.transport}: ${l.bots.errors} bot replies failed, the first with "${l.bots.firstError}".`])
  ])
  return [
    `# Mixed load (${config.voice})`,
    '',
    `${config.bots} streaming bots (${config.scenario}; replies of ${config.sentences.min}–${config.sentences.max} sentences, ${config.jitterMs} ms jitter buffer) beside ` +
      `${config.wholeClients} closed-loop clients of whole answers (WAV, not streamed), one sentence and ${config.longSentences.min}–${config.longSentences.max} sentences in turn, ` +
      `${config.durationMs / 1000} s per transport. Idle: the median of ${config.idleRepeats} one-sentence answers one by one on the same service first. Phrase cache off.`,
    '',
    markdownTable(['scheduler', 'transport', 'short idle ms', 'short p50 / p95 ms', '× idle', 'short answers', 'long p50 / p95 ms', 'long answers', 'bot replies with underrun', 'bot first audio p50 / p95 ms', 'errors']
      .map((header, i) => ({ header, align: i < 2 ? 'left' as const : 'right' as const })), rows),
    '',
    ...failures,
    ''
  ].join('\n')
}
