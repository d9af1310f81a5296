// Streamed requests that name the one they are heard after share a playback
// queue; ids are per tenant, and the registry is bounded in count and age.

import t from 'tap'
import { PlaybackRegistry } from '../../src/synthesis/playback-registry.js'

t.test('after joins the named request\'s queue; unknown or absent starts a new one', async t => {
  const registry = new PlaybackRegistry()
  const first = registry.queueFor('bot', 'r1-s0', undefined)
  t.equal(registry.queueFor('bot', 'r1-s1', 'r1-s0'), first)
  t.equal(registry.queueFor('bot', 'r1-s2', 'r1-s1'), first, 'chained through the second')
  t.not(registry.queueFor('bot', 'r2-s0', 'never-sent'), first)
  t.not(registry.queueFor('other-key', 'x', 'r1-s0'), first, 'another tenant cannot join it')
  t.equal(registry.size, 5)
})

t.test('bounded: the oldest ids go past the count, and ids past their age', async t => {
  let now = 0
  const registry = new PlaybackRegistry(2, 1000, () => now)
  const a = registry.queueFor('t', 'a', undefined)
  registry.queueFor('t', 'b', undefined)
  registry.queueFor('t', 'c', undefined)
  t.equal(registry.size, 2)
  t.not(registry.queueFor('t', 'd', 'a'), a, 'a was the oldest and went')
  now = 5000
  registry.queueFor('t', 'e', undefined)
  t.equal(registry.size, 1, 'the old ones expired')
})
