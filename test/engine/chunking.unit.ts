// How sentences are cut: decoder chunks of a latent (planChunks) and phoneme
// runs of a long sentence (capPhonemes, encoderRuns).

import t, { type Test } from 'tap'
import { capPhonemes, DEFAULT_CHUNKING, encoderRuns, flowParts, planChunks, SPREAD_MARGINS, windowedFlow, withMargin, type FrameRange } from '../../src/engine/chunking.js'

const settings = { ...DEFAULT_CHUNKING, chunkFrames: 512, firstChunkFrames: 32, marginFrames: 32, streamChunkGrowth: 1 }

function covers (t: Test, ranges: FrameRange[], frames: number): void {
  t.equal(ranges[0].start, 0, 'starts at frame 0')
  t.equal(ranges[ranges.length - 1].end, frames, 'ends at the last frame')
  for (let i = 1; i < ranges.length; i++) t.equal(ranges[i].start, ranges[i - 1].end, 'contiguous')
}

t.test('a sentence that fits in a chunk is decoded in one piece', async t => {
  t.same(planChunks(512, settings, { stream: false, parallelism: 2 }), [{ start: 0, end: 512 }])
  t.same(planChunks(40, settings, { stream: false, parallelism: 4 }), [{ start: 0, end: 40 }])
  t.same(planChunks(0, settings, { stream: false, parallelism: 2 }), [])
})

t.test('longer than SPREAD_MARGINS margins: shared by the workers even within a chunk; one worker takes it whole', async t => {
  const wide = { ...settings, chunkFrames: 1024 }
  for (const marginFrames of [64, 32]) {
    const spread = SPREAD_MARGINS * marginFrames
    t.same(planChunks(spread, wide, { stream: false, parallelism: 2, marginFrames }), [{ start: 0, end: spread }], `${spread} frames at a ${marginFrames}-frame margin: whole`)
    t.same(planChunks(spread + 2, wide, { stream: false, parallelism: 2, marginFrames }),
      [{ start: 0, end: spread / 2 + 1 }, { start: spread / 2 + 1, end: spread + 2 }], `${spread + 2} frames: on both workers`)
  }
  t.same(planChunks(300, wide, { stream: false, parallelism: 2 }), [{ start: 0, end: 300 }], 'not told the margin: the flow cut\'s 64')
  t.same(planChunks(1000, wide, { stream: false, parallelism: 1 }), [{ start: 0, end: 1000 }])
  // The default: a ~45-word sentence (~1,300 frames) in two chunks on two workers, not four.
  t.equal(planChunks(1300, DEFAULT_CHUNKING, { stream: false, parallelism: 2, marginFrames: 32 }).length, 2)
})

t.test('a long sentence: equal chunks, a multiple of the workers, none longer than chunkFrames', async t => {
  for (const [frames, parallelism, count] of [[1240, 2, 4], [1100, 2, 4], [1500, 2, 4], [2100, 2, 6], [600, 2, 2], [600, 1, 2], [1240, 3, 3], [2000, 3, 6]]) {
    const ranges = planChunks(frames, settings, { stream: false, parallelism })
    t.equal(ranges.length, count, `${frames} frames on ${parallelism} workers: ${count} chunks`)
    covers(t, ranges, frames)
    const sizes = ranges.map(r => r.end - r.start)
    t.ok(sizes.every(size => size <= settings.chunkFrames), 'none longer than chunkFrames')
    t.ok(Math.max(...sizes) - Math.min(...sizes) <= Math.ceil(frames / count), 'about equal')
  }
})

t.test('streamed, without growth (TTS_SCHEDULER=fifo): a small first chunk, then chunks of chunkFrames in order, whatever the workers', async t => {
  const flat = { ...settings, growStreamChunks: false }
  const ranges = planChunks(1240, flat, { stream: true, parallelism: 2 })
  t.same(ranges[0], { start: 0, end: 32 })
  covers(t, ranges, 1240)
  t.equal(ranges.length, 1 + Math.ceil((1240 - 32) / 512))
  t.same(planChunks(20, flat, { stream: true, parallelism: 2 }), [{ start: 0, end: 20 }], 'shorter than the first chunk: one piece')
})

t.test('streamed: each chunk after the first as long as the audio before it, up to chunkFrames', async t => {
  const ranges = planChunks(1240, settings, { stream: true, parallelism: 2 })
  t.same(ranges.map(r => r.end - r.start), [32, 32, 64, 128, 256, 512, 216])
  covers(t, ranges, 1240)
  for (const frames of [33, 64, 65, 97, 130, 500, 777, 1040, 3000]) {
    const plan = planChunks(frames, settings, { stream: true, parallelism: 2 })
    covers(t, plan, frames)
    t.equal(plan[0].end, 32, `${frames} frames: the first chunk stays small`)
    for (const range of plan.slice(1)) {
      // The listener has range.start frames to play while this one is made;
      // only a tail shorter than the first chunk is added to the last.
      t.ok(range.end - range.start <= Math.max(32, range.start) + 31, `${frames} frames: [${range.start}, ${range.end}) no longer than what precedes it`)
      t.ok(range.end - range.start <= settings.chunkFrames, 'bounded by chunkFrames')
    }
  }
  t.same(planChunks(130, settings, { stream: true, parallelism: 2 }).map(r => r.end - r.start), [32, 32, 66], 'a 2-frame tail joins the chunk before it')
  t.same(planChunks(20, settings, { stream: true, parallelism: 2 }), [{ start: 0, end: 20 }], 'shorter than the first chunk: one piece')
})

t.test('margins are clipped to the latent', async t => {
  t.same(withMargin({ start: 0, end: 100 }, 300, 32), { start: 0, end: 132 })
  t.same(withMargin({ start: 100, end: 200 }, 300, 32), { start: 68, end: 232 })
  t.same(withMargin({ start: 200, end: 300 }, 300, 32), { start: 168, end: 300 })
})

t.test('phonemes past the cap are cut after a space, or at the cap inside one long word', async t => {
  const text = (s: string) => Uint32Array.from([...s].map(c => c.codePointAt(0) as number))
  const back = (pieces: Uint32Array[]) => pieces.map(p => String.fromCodePoint(...p))
  t.same(back(capPhonemes(text('abc def'), 10)), ['abc def'])
  t.same(back(capPhonemes(text('abc def ghi'), 9)), ['abc def ', 'ghi'])
  t.same(back(capPhonemes(text('abcdefghij'), 4)), ['abcd', 'efgh', 'ij'])
})

t.test('a first run cut short only when asked, when the first audio is due, after a clause if one ends late enough', async t => {
  const text = (s: string) => Uint32Array.from([...s].map(c => c.codePointAt(0) as number))
  const back = (pieces: Uint32Array[]) => pieces.map(p => String.fromCodePoint(...p))
  const sentence = text('ðə kwɪk, bɹaʊn fɒks dʒʌmps ˈoʊvə ðə leɪzi dɒɡ')
  t.same(back(encoderRuns(sentence, DEFAULT_CHUNKING, true)), [String.fromCodePoint(...sentence)], 'off by default')
  const asked = { ...DEFAULT_CHUNKING, firstRunPhonemes: 20 }
  t.same(back(encoderRuns(sentence, asked, false)), [String.fromCodePoint(...sentence)], 'a sentence heard later: as it is')
  t.same(back(encoderRuns(sentence, asked, true)), ['ðə kwɪk, bɹaʊn fɒks ', 'dʒʌmps ˈoʊvə ðə leɪzi dɒɡ'], 'after the last word within 20 phonemes')
  t.same(back(encoderRuns(sentence, { ...asked, firstRunPhonemes: 14 }, true)), ['ðə kwɪk, ', 'bɹaʊn fɒks dʒʌmps ˈoʊvə ðə leɪzi dɒɡ'], 'after a comma in the second half of the run')
  t.same(back(encoderRuns(sentence, { ...asked, firstRunPhonemes: 60 }, true)), [String.fromCodePoint(...sentence)], 'a sentence within the run: as it is')
  t.same(back(encoderRuns(text('abcdefghij klm'), { ...asked, firstRunPhonemes: 5 }, true)), ['abcdefghij klm'], 'no word ends within the run: as it is')
  const long = text('ab cd '.repeat(10))
  t.same(encoderRuns(long, { ...asked, firstRunPhonemes: 7, maxPhonemes: 20 }, true).map(p => p.length), [6, 18, 18, 18], 'the rest within the cap')
})

t.test('streamed with lead: a sentence heard later starts with a chunk as long as the audio before it', async t => {
  t.same(planChunks(1240, settings, { stream: true, parallelism: 2, leadFrames: 0 }).map(r => r.end - r.start), [32, 32, 64, 128, 256, 512, 216], 'no lead: as without')
  const later = planChunks(1240, settings, { stream: true, parallelism: 2, leadFrames: 100 })
  t.same(later.map(r => r.end - r.start), [100, 200, 400, 512, 28])
  covers(t, later, 1240)
  t.equal(later[0].end, 100, 'the first chunk is the lead')
  for (const range of later.slice(1)) t.ok(range.end - range.start <= Math.max(settings.firstChunkFrames, 100 + range.start), 'never longer than the audio before it')
  t.same(planChunks(300, settings, { stream: true, parallelism: 2, leadFrames: 2000 }), [{ start: 0, end: 300 }], 'seconds ahead: decoded whole')
  t.same(planChunks(120, settings, { stream: true, parallelism: 2, leadFrames: 100 }), [{ start: 0, end: 120 }], 'a remainder shorter than the first chunk joins it')
  t.equal(planChunks(2000, settings, { stream: true, parallelism: 2, leadFrames: 5000 })[0].end, settings.chunkFrames, 'never past chunkFrames')
})

t.test('streamed, growth 2 (the default): each chunk at most twice the audio before it, so fewer chunk edges', async t => {
  const twice = { ...settings, streamChunkGrowth: DEFAULT_CHUNKING.streamChunkGrowth }
  t.equal(twice.streamChunkGrowth, 2)
  const plan = planChunks(1240, twice, { stream: true, parallelism: 2, leadFrames: 0 })
  t.same(plan.map(r => r.end - r.start), [32, 64, 192, 512, 440])
  covers(t, plan, 1240)
  for (const range of plan.slice(1)) t.ok(range.end - range.start <= 2 * range.start, 'never longer than twice the audio before it')
  t.same(planChunks(300, twice, { stream: true, parallelism: 2, leadFrames: 0 }).map(r => r.end - r.start), [32, 64, 204], 'a 300-frame sentence: three chunks, not five')
  t.same(planChunks(300, settings, { stream: true, parallelism: 2, leadFrames: 0 }).map(r => r.end - r.start), [32, 32, 64, 128, 44])
  t.equal(planChunks(1240, twice, { stream: true, parallelism: 2, leadFrames: 100 })[0].end, 200, 'a sentence heard later: twice its lead first')
})

t.test('staged voices: the flow runs window by window only for a stream in chunks whose first audio is due before a whole flow', async t => {
  const due = { stream: true, chunks: 3, leadMs: 0, flowEstimateMs: 120, contended: false }
  t.equal(windowedFlow(due), true, 'due now, the whole flow would take 120 ms: the first chunk\'s window first')
  t.equal(windowedFlow({ ...due, leadMs: 500 }), false, 'heard in 500 ms: the whole flow is done by then, with no overlap')
  t.equal(windowedFlow({ ...due, leadMs: 119 }), true)
  t.equal(windowedFlow({ ...due, leadMs: 500, flowEstimateMs: Number.POSITIVE_INFINITY }), true, 'the flow\'s speed not known yet: windows')
  t.equal(windowedFlow({ ...due, chunks: 1 }), false, 'one chunk: one flow either way')
  t.equal(windowedFlow({ ...due, stream: false }), false, 'a whole answer flows once')
  t.equal(windowedFlow({ ...due, contended: true }), false, 'work waits for a slot: no duplicated work')
})

t.test('staged voices: a whole flow takes a second window only on a core nothing else wants', async t => {
  const idle = { busy: false, contended: false, encoderThreads: 2 }
  t.equal(flowParts(idle), 2, 'idle: the encoder\'s two threads, two windows')
  t.equal(flowParts({ ...idle, busy: true }), 1, 'other runs hold the cores')
  t.equal(flowParts({ ...idle, contended: true }), 1, 'work waits for a slot: no repeated context')
  t.equal(flowParts({ ...idle, encoderThreads: 1 }), 1)
  t.equal(flowParts({ ...idle, encoderThreads: 0 }), 1, 'never fewer than one')
})
