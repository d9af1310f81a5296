// The conversation and fairness benchmarks' arithmetic, apart from any
// timing: the player model's underruns, the token timeline of a reply, which
// sentence a stream-input message speaks, the capacity, the fairness ratio,
// and the flags' checks. Runs against a real service: conversation-run.test.ts.

import t from 'tap'
import { parseConversationConfig, parseFairnessConfig } from '../../bench/conversation/config.js'
import { capacityFigures, capacityOf, halfCapacityLevel, steadyCapacityOf, type ConversationLevel } from '../../bench/conversation/capacity.js'
import { pendingRequestsFor } from '../../bench/conversation/conversation.js'
import { fairnessRatio, type FairnessRound } from '../../bench/conversation/fairness.js'
import { summariseReplies, type GroupFigures } from '../../bench/conversation/level.js'
import { play } from '../../bench/conversation/player.js'
import { replyTimeline, ReplySource } from '../../bench/conversation/replies.js'
import { attributeAligned, attributeAudio } from '../../bench/conversation/websocket-transport.js'

t.test('the player: plays from the first arrival plus the jitter buffer; a piece not there yet is an underrun', async t => {
  const smooth = play([
    { arrivedMs: 100, durationMs: 300, askedMs: 0 },
    { arrivedMs: 350, durationMs: 1000, askedMs: 0 },
    { arrivedMs: 900, durationMs: 500, askedMs: 0 }
  ], 200)
  t.same(smooth, { startMs: 300, endMs: 2100, underruns: [] }, 'each piece arrived before the player reached it')

  const dry = play([
    { arrivedMs: 100, durationMs: 300, askedMs: 0 },
    { arrivedMs: 1000, durationMs: 1000, askedMs: 0 }
  ], 200)
  t.same(dry?.underruns, [{ atAudioMs: 300, durationMs: 400 }], 'ran dry at 600 ms, the audio came at 1,000')
  t.equal(dry?.endMs, 2000)
})

t.test('the player: a gap while the model had not written the sentence yet is not the service\'s', async t => {
  const playback = play([
    { arrivedMs: 100, durationMs: 300, askedMs: 0 },
    // Asked at 900 (its text arrived then), answered at 1,000: 100 ms are the service's.
    { arrivedMs: 1000, durationMs: 500, askedMs: 900 },
    // Asked late and answered before the player needed it: nothing.
    { arrivedMs: 1400, durationMs: 100, askedMs: 1450 }
  ], 200)
  t.same(playback?.underruns, [{ atAudioMs: 300, durationMs: 100 }])
  t.equal(play([], 200), null)
})

t.test('a reply\'s sentences are due when their last token arrives; tokens are words with their space', async t => {
  const timeline = replyTimeline('Hello there. How are you today? Fine!', 10)
  t.same(timeline.sentences, [
    { text: 'Hello there.', endMs: 200 },
    { text: 'How are you today?', endMs: 600 },
    { text: 'Fine!', endMs: 700 }
  ])
  t.same(timeline.tokens.map(token => token.text), ['Hello ', 'there. ', 'How ', 'are ', 'you ', 'today? ', 'Fine!'], 'no space after the last word')
  t.same(timeline.tokens.map(token => token.atMs), [100, 200, 300, 400, 500, 600, 700])
  t.equal(timeline.tokens.map(token => token.text).join(''), timeline.sentences.map(s => s.text).join(' '), 'the same text both ways')
  const source = new ReplySource(7, { min: 2, max: 3 }, { min: 20, max: 50 })
  const again = new ReplySource(7, { min: 2, max: 3 }, { min: 20, max: 50 })
  const reply = source.next()
  t.same(again.next(), reply, 'seeded: the same replies every run')
  t.ok(reply.sentences.length >= 2 && reply.sentences.length <= 3, `${reply.sentences.length} sentences`)
  t.ok(reply.sentences.every((s, i) => i === 0 || s.endMs > reply.sentences[i - 1].endMs), 'in order')
  t.ok(reply.sentences.every(s => reply.tokens.some(token => token.atMs === s.endMs)), 'each sentence ends on a token')
})

t.test('stream-input audio is put to the sentence holding the same share of the characters', async t => {
  const sentences = [{ characters: 10, sentMs: 100 }, { characters: 30, sentMs: 500 }]
  const pieces = attributeAudio([
    { arrivedMs: 300, durationMs: 200 },
    { arrivedMs: 400, durationMs: 300 },
    // Starts at 500 of 2000 ms: a quarter, where the second sentence starts.
    { arrivedMs: 900, durationMs: 1000 },
    { arrivedMs: 1200, durationMs: 500 }
  ], sentences)
  t.same(pieces.map(p => p.askedMs), [100, 100, 500, 500])
  t.same(pieces.map(p => [p.arrivedMs, p.durationMs]), [[300, 200], [400, 300], [900, 1000], [1200, 500]], 'arrivals and durations kept')
  t.same(attributeAudio([], sentences), [])
  t.same(attributeAudio([{ arrivedMs: 5, durationMs: 0 }], sentences).map(p => p.askedMs), [100], 'no audio yet: the first sentence')
})

t.test('stream-input audio put to its sentence by the alignment it carries', async t => {
  // "Hello there." and "How are you?": 12 characters each, the second from 13 (after a space).
  const sentences = [{ characters: 12, sentMs: 100 }, { characters: 12, sentMs: 500 }]
  const pieces = attributeAligned([
    { arrivedMs: 300, durationMs: 200, textAt: 0 },
    { arrivedMs: 400, durationMs: 900, textAt: null },
    // " How are you?": its alignment starts with the space between the pieces.
    { arrivedMs: 900, durationMs: 300, textAt: 13 },
    { arrivedMs: 1200, durationMs: 500, textAt: null }
  ], sentences)
  t.same(pieces?.map(p => p.askedMs), [100, 100, 500, 500], 'a message without alignment speaks on from the one before')
  t.same(pieces?.map(p => [p.arrivedMs, p.durationMs]), [[300, 200], [400, 900], [900, 300], [1200, 500]], 'arrivals and durations kept')
  t.same(pieces?.[0], { arrivedMs: 300, durationMs: 200, askedMs: 100 }, 'textAt is not handed on')
  t.same(attributeAligned([{ arrivedMs: 300, durationMs: 200, textAt: 7 }], sentences)?.map(p => p.askedMs), [100], 'a piece cut inside the first sentence')
  t.equal(attributeAligned([{ arrivedMs: 300, durationMs: 200, textAt: null }], sentences), undefined, 'no alignment at all: not known here')
})

function figures (bots: number, underruns: number, errors = 0): GroupFigures {
  return { ...summariseReplies([], bots, 1000), replies: 5, underruns, errors }
}

t.test('capacity: the largest level below the first with an underrun or an error', async t => {
  t.equal(capacityOf([figures(1, 0), figures(2, 0), figures(4, 1), figures(8, 0)]), 2)
  t.equal(capacityOf([figures(4, 0), figures(1, 0), figures(2, 0)]), 4, 'levels in any order')
  t.equal(capacityOf([figures(1, 2)]), 0)
  t.equal(capacityOf([figures(1, 0), figures(2, 0, 1)]), 1, 'a failed reply ends it too')
})

t.test('steady capacity: underruns in each bot\'s first reply do not count', async t => {
  const level = (bots: number, laterUnderrunReplies: number, errors = 0) => ({ bots, laterReplies: 5, laterUnderrunReplies, errors })
  t.equal(steadyCapacityOf([level(4, 0), level(6, 0), level(8, 1), level(10, 0)]), 6)
  t.equal(steadyCapacityOf([level(4, 0), level(6, 0, 1)]), 4, 'a failed reply ends it too')
  t.equal(steadyCapacityOf([{ bots: 2, laterReplies: 0, laterUnderrunReplies: 0, errors: 0 }]), 0, 'no reply after the first: nothing is known')
})

t.test('half capacity: the largest level at or below half of it; against the ceilings', async t => {
  const levels = [1, 2, 4, 6, 8, 12, 16].map(bots => ({ bots }))
  t.equal(halfCapacityLevel(levels, 12)?.bots, 6)
  t.equal(halfCapacityLevel(levels, 8)?.bots, 4)
  t.equal(halfCapacityLevel(levels, 6)?.bots, 2, 'half is 3: the level below it')
  t.equal(halfCapacityLevel(levels, 1)?.bots, 1, 'a capacity of one bot: that level')
  t.equal(halfCapacityLevel(levels, 0), undefined, 'no capacity, no half')
  const level = (bots: number, underruns: number, p50: number, p95: number): ConversationLevel =>
    ({ ...figures(bots, underruns), laterReplies: 4, firstAudioP50Ms: p50, firstAudioP95Ms: p95, scheduler: 'deadline', transport: 'reply', scenario: 'crowd' })
  const ceiling = { audioSecondsPerSecond: 20, repeatResults: [20], secondsPerRepeat: 1, workers: 2, intraOpThreads: 1, voices: [], texts: 1, sentences: 1, audioSecondsPerText: 1 }
  const measured = capacityFigures([level(2, 0, 100, 200), level(4, 0, 150, 400), level(8, 0, 300, 900), level(12, 3, 400, 2000)], ceiling, { ms: 200, sentences: 5, repeats: 1 })
  t.same(measured, { bots: 8, atTopLevel: false, steadyBots: 12, ceilingRatio: 0.4, half: { bots: 4, firstAudioP50Ms: 150, firstAudioP95Ms: 400, p50Ratio: 0.75, p95Ratio: 2 } })
  const bare = capacityFigures([level(2, 0, 100, 200)], null, null)
  t.same([bare.bots, bare.atTopLevel, bare.ceilingRatio, bare.half?.p95Ratio], [2, true, null, null], 'without the ceilings, no ratios; the top level held: more may')
  t.equal(capacityFigures([level(2, 1, 100, 200)], ceiling, null).half, null)
})

t.test('TTS_MAX_PENDING covers every bot\'s sentences in flight, never below the default', async t => {
  t.equal(pendingRequestsFor([1, 2, 4], 4), 64)
  t.equal(pendingRequestsFor([8, 30, 12], 4), 120)
  t.equal(pendingRequestsFor([30], 3.5), 105)
  t.equal(pendingRequestsFor([33], 2.5), 83, 'a whole number of requests')
})

t.test('replies summed up: p95 of first audio, underrun replies, audio per second', async t => {
  const summary = summariseReplies([
    { firstAudioMs: 100, underruns: 0, underrunMs: 0, audioMs: 2000, first: false },
    { firstAudioMs: 300, underruns: 2, underrunMs: 150, audioMs: 3000, first: true },
    { firstAudioMs: Number.NaN, underruns: 0, underrunMs: 0, audioMs: 0, first: false, error: 'POST /tts?stream=1 answered 503' }
  ], 2, 10_000)
  t.equal(summary.replies, 2)
  t.equal(summary.errors, 1)
  t.equal(summary.firstError, 'POST /tts?stream=1 answered 503')
  t.equal(summary.firstAudioP50Ms, 200)
  t.equal(summary.firstAudioP95Ms, 290)
  t.equal(summary.underrunReplies, 1)
  t.equal(summary.underrunMs, 150)
  t.equal(summary.laterReplies, 1, 'the failed reply counts in neither')
  t.equal(summary.laterUnderrunReplies, 0, 'the underrun was in a first reply')
  t.equal(summary.laterFirstAudioP95Ms, 100, 'first audio past the start burst counts the later reply only')
  t.equal(summary.audioSecondsPerSecond, 0.5)
})

t.test('fairness: shared over alone, round by round, the median', async t => {
  const round = (phase: 'alone' | 'shared', p95: number | null): FairnessRound =>
    ({ scheduler: 'deadline', phase, quiet: { ...figures(4, 0), firstAudioP95Ms: p95 }, busy: null })
  t.equal(fairnessRatio([round('alone', 100), round('shared', 150), round('shared', 300), round('alone', 200), round('alone', 100), round('shared', 110)]), 1.5)
  t.equal(fairnessRatio([round('alone', null), round('shared', 100)]), null)
  const failed = { ...round('shared', 100), quiet: { ...figures(4, 0, 1), firstAudioP95Ms: 100 } }
  t.equal(fairnessRatio([round('alone', 100), failed]), null, 'a quiet reply failed: no figure')
})

t.test('flags: checked at the edge with the one message format', async t => {
  t.throws(() => parseConversationConfig(['--voice', 'en_US-bench-medium']), { message: /^Expected a folder of Piper voices for --voices but received/ })
  t.throws(() => parseConversationConfig(['--voices', 'v', '--voice', 'x/../y']), { message: /^Expected a voice name like en_US-lessac-medium for --voice but received/ })
  t.throws(() => parseConversationConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--bots', '1,0']), { message: /^Expected bot counts like 1,2,4,8 \(1-1024\) for --bots but received "1,0"/ })
  t.throws(() => parseConversationConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--schedulers', 'lifo']), { message: /^Expected schedulers among deadline, fifo for --schedulers/ })
  t.throws(() => parseConversationConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--transport', 'http,grpc']), { message: /^Expected transports among http, websocket, reply, cartesia, deepgram for --transport but received "http,grpc"/ })
  t.throws(() => parseConversationConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--scenarios', 'crowd,burst']), { message: /^Expected scenarios among crowd, spread for --scenarios but received "crowd,burst" \(string\)/ }, 'a clear ConfigError')
  t.throws(() => parseConversationConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--scenarios', '']), { name: 'ConfigError', message: /for --scenarios but received ""/ })
  t.throws(() => parseFairnessConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--tokens-per-second', '50-20']), { message: /^Expected a number or a range like 20-50 within 1-1000 for --tokens-per-second but received "50-20"/ })
  const config = parseConversationConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--bots', '4,1,2', '--pause', '0', '--quick'])
  t.not(config, 'help')
  if (config === 'help') return
  t.same(config.levels, [1, 2, 4])
  t.equal(config.maxPauseMs, 0)
  t.equal(config.durationMs, 5000, '--quick: short levels')
  t.equal(config.rampMs, 1000, '--quick: the bots start within a second')
  t.same(config.schedulers, ['deadline', 'fifo'], 'both schedulers by default, to compare')
  t.same(config.transports, ['http', 'websocket', 'reply'], 'the default set: Cartesia\'s and Deepgram\'s sockets only when named')
  const vendors = parseConversationConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--transport', 'cartesia,deepgram,http'])
  if (vendors !== 'help') t.same(vendors.transports, ['cartesia', 'deepgram', 'http'], 'named, they run')
  t.same(config.scenarios, ['crowd', 'spread'], 'both scenarios by default')
  const one = parseConversationConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--transport', 'websocket'])
  if (one !== 'help') t.same([one.transports, one.rampMs, one.scenarios], [['websocket'], 12_000, ['crowd', 'spread']], 'the spread scenario\'s first replies over about one reply by default')
  const picked = parseConversationConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--transport', 'reply', '--scenarios', 'spread,crowd,spread'])
  if (picked !== 'help') t.same([picked.transports, picked.scenarios], [['reply'], ['spread', 'crowd']], 'picked in the order given, once each')
  const burst = parseConversationConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--ramp', '0.5'])
  if (burst !== 'help') t.equal(burst.rampMs, 500)
  t.throws(() => parseConversationConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--ramp', '-1']), { message: /for --ramp but received "-1"/ })
  const fairness = parseFairnessConfig(['--voices', 'v', '--voice', 'en_US-a-medium'])
  t.not(fairness, 'help')
  if (fairness !== 'help') t.same([fairness.busyBots, fairness.quietTenants, fairness.rounds, fairness.rampMs], [32, 4, 3, 1000])
})
