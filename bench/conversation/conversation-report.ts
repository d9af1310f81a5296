// The conversation benchmark's Markdown report: every level, then per
// scheduler, transport and scenario the capacity and first audio at half of
// it, each against the run's bare ONNX Runtime ceilings.

import { markdownTable, num, ratio } from '../table.js'
import type { ConversationCapacity } from './capacity.js'
import type { ConversationResults } from './conversation.js'
import type { Scenario } from './level.js'
import type { TransportName } from './transport.js'

/** How each transport sends a reply, for the report's first lines. */
const TRANSPORT_TEXT: Record<TransportName, string> = {
  http: 'each sentence as POST /tts?stream=1 once its end arrived (http)',
  websocket: 'each token over stream-input as it arrived, PCM at the voice\'s rate (websocket)',
  reply: 'the whole reply as one POST /tts?stream=1 when the reply started (reply)',
  cartesia: 'each token over Cartesia\'s /tts/websocket as it arrived, PCM at the voice\'s rate (cartesia)',
  deepgram: 'each token as a Speak over Deepgram\'s /v1/speak as it arrived, then Flush, PCM at the voice\'s rate (deepgram)'
}

function scenarioText (scenario: Scenario, rampMs: number): string {
  return scenario === 'crowd'
    ? 'crowd: every bot answers each line within 200 ms of the others; the next line once every reply was heard and a pause'
    : `spread: each bot back to back with pauses, its first reply within ${rampMs / 1000} s of the level's start`
}

const ms = (value: number | null): string => value === null ? '–' : num(value)

function levelsTable (results: ConversationResults): string {
  const { ceiling } = results
  const rows = results.levels.map(l => [
    l.scheduler, l.transport, l.scenario, String(l.bots), String(l.replies), ms(l.firstAudioP50Ms), ms(l.firstAudioP95Ms), `${ms(l.laterFirstAudioP50Ms)} / ${ms(l.laterFirstAudioP95Ms)}`,
    `${l.underrunReplies}/${l.replies}`, `${l.laterUnderrunReplies}/${l.laterReplies}`, String(l.underruns), num(l.underrunMs), num(l.maxUnderrunMs), num(l.audioSecondsPerSecond),
    ceiling === null ? '–' : num(l.audioSecondsPerSecond / ceiling.audioSecondsPerSecond), String(l.errors)
  ])
  return markdownTable(['scheduler', 'transport', 'scenario', 'bots', 'replies', 'first audio p50 ms', 'p95 ms', 'p50 / p95 after the first reply', 'replies with underrun', 'after the first reply', 'underruns', 'underrun ms', 'worst reply ms', 'audio s/s', '× ceiling', 'errors']
    .map((header, i) => ({ header, align: i < 3 ? 'left' as const : 'right' as const })), rows)
}

function capacityTable (capacity: readonly ConversationCapacity[]): string {
  const rows = capacity.map(c => [
    c.scheduler, c.transport, c.scenario, `${c.atTopLevel ? '≥ ' : ''}${c.bots}`, ratio(c.ceilingRatio), String(c.steadyBots),
    c.half === null ? '–' : String(c.half.bots),
    c.half === null ? '–' : `${ms(c.half.firstAudioP50Ms)} / ${ms(c.half.firstAudioP95Ms)}`,
    c.half === null ? '–' : `${ratio(c.half.p50Ratio)} / ${ratio(c.half.p95Ratio)}`
  ])
  return markdownTable(['scheduler', 'transport', 'scenario', 'bots without a gap', '× ceiling', 'past each bot\'s first reply', 'half capacity (bots)', 'first audio p50 / p95 ms there', '× a bare first sentence']
    .map((header, i) => ({ header, align: i < 3 ? 'left' as const : 'right' as const })), rows)
}

export function conversationReport (results: ConversationResults): string {
  const { ceiling, bareFirstSentence, config } = results
  return [
    `# Conversation benchmark (${config.voice})`,
    '',
    `Bots told replies of ${config.sentences.min}–${config.sentences.max} sentences at ${config.tokensPerSecond.min}–${config.tokensPerSecond.max} tokens/s, ` +
      `sent ${config.transports.map(t => TRANSPORT_TEXT[t]).join(', or ')}; listeners play after a ${config.jitterMs} ms jitter buffer; ` +
      `pauses of up to ${config.maxPauseMs / 1000} s; ${config.durationMs / 1000} s per level. Scenarios: ${config.scenarios.map(s => scenarioText(s, config.rampMs)).join('; ')}.`,
    '',
    levelsTable(results),
    '',
    ...results.levels.filter(l => l.firstError !== null).flatMap(l => [`${l.scheduler}, ${l.transport}, ${l.scenario}, ${l.bots} bot(s): ${l.errors} replies failed, the first with "${l.firstError ?? ''}".`, '']),
    capacityTable(results.capacity),
    '',
    'Bots without a gap: the largest level with no underrun and no failed reply, below the first that had one (≥: the largest level run). ' +
      '× ceiling: those bots over the bare ceiling\'s audio s/s (a bot back to back hears about one audio second per second). ' +
      'First audio at the largest level at or below half of it, over bare ONNX Runtime\'s whole run of a reply\'s first sentence.',
    ceiling === null ? 'The ceilings were not measured (--no-ceiling).' : `Bare ONNX Runtime ceiling: ${num(ceiling.audioSecondsPerSecond)} audio s/s (${ceiling.workers} workers, median of ${ceiling.repeatResults.length}).`,
    bareFirstSentence === null ? '' : `Bare ONNX Runtime, a reply's first sentence whole on one worker: ${num(bareFirstSentence.ms)} ms (median of ${bareFirstSentence.sentences} sentences, each the median of ${bareFirstSentence.repeats}).`,
    ''
  ].join('\n')
}
