// The built-in corpus: what chat bots in a virtual world say, generated from
// templates with a seeded PRNG so a run can be repeated exactly. Every
// template has slots, so texts rarely repeat by accident: repetition is a
// workload setting (the phrase cache must not be measured by chance).
//
// The mix follows bot traffic: many greetings and one-liners, replies of
// two to five sentences, and now and then a long paragraph (a tour, a story).

/** mulberry32: small, fast, and good enough for picking texts and arrivals. */
export class Rng {
  private state: number

  constructor (seed: number) {
    this.state = seed >>> 0
  }

  /** Uniform in [0, 1). */
  next (): number {
    this.state = (this.state + 0x6D2B79F5) >>> 0
    let z = this.state
    z = Math.imul(z ^ (z >>> 15), z | 1)
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296
  }

  /** Uniform integer in [0, n). */
  int (n: number): number {
    return Math.floor(this.next() * n)
  }

  /** Uniform integer in [min, max]. */
  between (min: number, max: number): number {
    return min + this.int(max - min + 1)
  }

  pick<T> (items: readonly T[]): T {
    return items[this.int(items.length)]
  }

  /** Exponentially distributed with the given rate (mean 1 / rate). */
  exponential (rate: number): number {
    return -Math.log(1 - this.next()) / rate
  }

  /** A seed for an independent stream, so one stream's use never shifts another's. */
  fork (salt: number): Rng {
    return new Rng(Math.imul(this.state ^ Math.imul(salt + 1, 0x9E3779B1), 0x85EBCA6B))
  }
}

export type UtteranceKind = 'greeting' | 'one-liner' | 'reply' | 'paragraph'

const KIND_WEIGHTS: ReadonlyArray<readonly [UtteranceKind, number]> = [
  ['greeting', 0.25],
  ['one-liner', 0.35],
  ['reply', 0.32],
  ['paragraph', 0.08]
]

const SLOTS: Record<string, readonly string[]> = {
  name: ['Alex', 'Sam', 'Morgan', 'Riley', 'Jordan', 'Taylor', 'Casey', 'Jamie', 'Avery', 'Quinn', 'Harper', 'Rowan',
    'Elena', 'Marcus', 'Priya', 'Tomas', 'Yuki', 'Omar', 'Sofia', 'Liam', 'Noor', 'Felix', 'Ines', 'Kai', 'Mara',
    'Oscar', 'Lena', 'Hugo', 'Ada', 'Theo'],
  place: ['the harbour', 'the lighthouse', 'the market square', 'the old library', 'the sky garden', 'the north gate',
    'the workshop', 'the gallery', 'the main stage', 'the fountain', 'the observatory', 'the tea house', 'the arena',
    'the sandbox', 'the welcome island', 'the crystal caves', 'the train station', 'the forest path', 'the museum',
    'the rooftop bar', 'the music hall', 'the docks', 'the plaza', 'the greenhouse', 'the clock tower'],
  time: ['in five minutes', 'at noon', 'tonight', 'tomorrow morning', 'at half past six', 'after the concert',
    'in about an hour', 'on Friday', 'this weekend', 'at sunset', 'right after lunch', 'in twenty minutes'],
  number: ['two', 'three', 'four', 'five', 'seven', 'ten', 'twelve', 'fifteen', 'twenty', 'forty', 'a hundred'],
  thing: ['builds', 'paintings', 'costumes', 'tickets', 'maps', 'boats', 'lanterns', 'sculptures', 'puzzles',
    'gardens', 'songs', 'recipes', 'vehicles', 'avatars', 'flags'],
  event: ['the dance party', 'the art show', 'the quiz night', 'the boat race', 'the open mic', 'the market day',
    'the builders meetup', 'the concert', 'the treasure hunt', 'the fashion show', 'the film night', 'the workshop'],
  feeling: ['great', 'wonderful', 'a little tricky', 'really fun', 'quite busy', 'very quiet', 'amazing', 'lovely'],
  color: ['blue', 'red', 'golden', 'green', 'silver', 'purple', 'white', 'orange']
}

const GREETINGS = [
  'Hello {name}!',
  'Hi {name}, welcome to {place}!',
  'Hey {name}, good to see you again.',
  'Welcome back, {name}!',
  'Good evening {name}, how are you?',
  'Hi there, {name}! Nice to meet you.',
  'Oh, hello {name}! Have you been to {place} yet?',
  'Greetings, {name}, and welcome to {place}.',
  'Hey {name}! Long time no see.',
  'Hi {name}, are you here for {event}?',
  'Good morning {name}!',
  'Welcome, {name}. Make yourself at home at {place}.'
]

const SENTENCES = [
  'I will meet you by {place} {time}.',
  'The {color} door on the left leads to {place}.',
  'Could you tell me where {place} is?',
  '{event} starts {time}, near {place}.',
  'I have {number} new {thing} to show you today.',
  'Follow me, the way to {place} is {feeling}.',
  'My favourite spot in this region is {place} at sunset.',
  'Please wait a moment while I check the schedule for {event}.',
  'The market at {place} opens {time}.',
  'Thank you for visiting {place}, and have a {feeling} evening!',
  'Watch out near {place}, the stairs are steeper than they look.',
  'Would you like a tour of {place}?',
  '{name} built most of the {thing} you see around here.',
  'There are about {number} people at {place} right now.',
  'I think {name} is waiting for you at {place}.',
  'We are collecting {thing} for {event}, would you like to help?',
  'The {color} boat at {place} belongs to {name}.',
  'It has been {feeling} at {place} this week.',
  'If you get lost, ask for {name} at {place}.',
  'You can find the best {thing} in the shop next to {place}.',
  'Last time, {event} had {number} visitors.',
  'I am not sure, but I think {name} knows the answer.',
  'Let us try the {color} path to {place}, it is shorter.',
  'The view from {place} is {feeling} {time}.',
  'Sure, I can help you find {place}.',
  'No problem at all, {name}.',
  'I saved you a seat for {event}.',
  'Bring {number} friends to {event} and you all get in free.',
  'The teleport to {place} is right behind me.',
  'Did you see the {color} {thing} that {name} made?',
  'Everyone is talking about {event} {time}.',
  'The lights at {place} turn {color} when it gets dark.',
  'I am heading to {place} {time}, want to come along?',
  'Our next guided walk leaves from {place} {time}.',
  'Keep your {thing} safe, the wind at {place} is strong today.',
  'I wrote down {number} ideas for {event}.'
]

/** Phrases bots say again and again; a workload's repetition draws from here. */
export const STOCK_PHRASES: readonly string[] = [
  'Hello there!',
  'Welcome!',
  'One moment, please.',
  'Thank you so much!',
  'See you later!',
  'Sorry, I did not catch that.',
  'Follow me, please.',
  'Have a wonderful day!'
]

function fill (template: string, rng: Rng): string {
  return template.replace(/\{(\w+)\}/g, (_, slot: string) => rng.pick(SLOTS[slot]))
}

function capitalise (text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

export class Corpus {
  constructor (private readonly rng: Rng) {}

  greeting (): string {
    return fill(this.rng.pick(GREETINGS), this.rng)
  }

  sentence (): string {
    return capitalise(fill(this.rng.pick(SENTENCES), this.rng))
  }

  /** `count` sentences, no template twice, so a reply reads like one. */
  sentences (count: number): string {
    const templates = [...SENTENCES]
    const out: string[] = []
    for (let i = 0; i < count; i++) {
      const [template] = templates.splice(this.rng.int(templates.length), 1)
      out.push(capitalise(fill(template, this.rng)))
    }
    return out.join(' ')
  }

  utterance (): { kind: UtteranceKind, text: string } {
    const kind = this.kind()
    switch (kind) {
      case 'greeting': return { kind, text: this.greeting() }
      case 'one-liner': return { kind, text: this.sentence() }
      case 'reply': return { kind, text: this.sentences(this.rng.between(2, 5)) }
      case 'paragraph': return { kind, text: this.sentences(this.rng.between(7, 10)) }
    }
  }

  private kind (): UtteranceKind {
    let roll = this.rng.next()
    for (const [kind, weight] of KIND_WEIGHTS) {
      roll -= weight
      if (roll < 0) return kind
    }
    return KIND_WEIGHTS[KIND_WEIGHTS.length - 1][0]
  }
}
