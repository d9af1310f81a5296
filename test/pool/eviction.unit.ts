// Which voices make room for another: least recently used idle voices first,
// by bytes, never busy ones; retiring pools count until they close.

import t from 'tap'
import { overBudget, planRoom, type Occupant } from '../../src/pool/eviction.js'

const MB = 1_000_000
const voice = (name: string, bytes: number, lastUsed: number, idle = true): Occupant => ({ name, bytes: bytes * MB, lastUsed, idle })
const none = { count: 0, bytes: 0 }
const capacity = (budgetMb: number, maxVoices = 64) => ({ budgetBytes: budgetMb * MB, maxVoices })

t.test('a voice that fits loads without evicting', async t => {
  t.same(planRoom([voice('a', 100, 1)], none, 100 * MB, capacity(200)), { kind: 'fits' })
})

t.test('the least recently used idle voices go, until the newcomer fits by bytes', async t => {
  const table = [voice('recent', 100, 30), voice('oldest', 50, 10), voice('older', 100, 20)]
  // 250 used + 150 needed = 400 > 300: freeing 'oldest' (50) is not enough, 'older' too is.
  t.same(planRoom(table, none, 150 * MB, capacity(300)), {
    kind: 'evict',
    victims: [{ name: 'oldest', reason: 'memory' }, { name: 'older', reason: 'memory' }]
  })
  // A small newcomer only needs the oldest to go.
  t.same(planRoom(table, none, 100 * MB, capacity(300)), { kind: 'evict', victims: [{ name: 'oldest', reason: 'memory' }] })
})

t.test('busy voices are never chosen, however old', async t => {
  const table = [voice('busy', 100, 1, false), voice('idle', 100, 50)]
  t.same(planRoom(table, none, 100 * MB, capacity(200)), { kind: 'evict', victims: [{ name: 'idle', reason: 'memory' }] })
})

t.test('when evicting every idle voice would not make room, none goes: the load waits', async t => {
  const table = [voice('busy', 150, 1, false), voice('idle', 50, 2)]
  t.same(planRoom(table, none, 100 * MB, capacity(200)), { kind: 'wait' })
})

t.test('retiring pools count until closed, and do not cause more evictions', async t => {
  const table = [voice('a', 100, 1)]
  t.same(planRoom(table, { count: 1, bytes: 100 * MB }, 100 * MB, capacity(250)), { kind: 'wait' }, 'room comes back when the retiring pool closes')
  t.same(planRoom(table, none, 100 * MB, capacity(250)), { kind: 'fits' })
})

t.test('the cap on loaded voices applies on top of the budget', async t => {
  const table = [voice('b', 1, 20), voice('a', 1, 10)]
  t.same(planRoom(table, none, 1 * MB, capacity(1000, 2)), { kind: 'evict', victims: [{ name: 'a', reason: 'count' }] })
})

t.test('a voice larger than the whole budget still loads alone', async t => {
  t.same(planRoom([], none, 500 * MB, capacity(100)), { kind: 'fits' })
  t.same(planRoom([voice('a', 10, 1)], none, 500 * MB, capacity(100)), { kind: 'evict', victims: [{ name: 'a', reason: 'memory' }] })
  t.same(planRoom([], { count: 1, bytes: 10 * MB }, 500 * MB, capacity(100)), { kind: 'wait' }, 'but not beside a pool still closing')
})

t.test('after a load reports more than its estimate, LRU idle voices go until the budget holds', async t => {
  const table = [voice('new', 300, 40, false), voice('old', 100, 10), voice('mid', 100, 20), voice('recent', 100, 30)]
  t.same(overBudget(table, 450 * MB), ['old', 'mid'])
  t.same(overBudget(table, 600 * MB), [], 'within the budget: nothing goes')
  t.same(overBudget([voice('busy', 300, 1, false), voice('idle', 100, 2)], 100 * MB), ['idle'], 'busy voices stay, over budget or not')
  t.same(overBudget([voice('alone', 300, 1)], 100 * MB), [], 'a voice alone stays')
})
