// The playground: fills the pickers from GET /voices, sends POST /tts with
// word timing asked for (timestamps: ["word"]), plays the answer and shows
// the text as a caption whose words light up as they are heard. MP3 streams
// as Server-Sent Events (audio deltas, each preceded by the timing of the
// audio it carries) into Media Source Extensions; other formats come whole,
// as JSON with the audio base64-encoded beside the words. The file is
// offered for download. When the service requires API keys, the key typed in
// is kept in the page's local storage (this browser only) and sent as
// "Authorization: Bearer".

const $ = id => document.getElementById(id)
const EXTENSIONS = { mp3: 'mp3', opus: 'opus', flac: 'flac', wav: 'wav' }
const AUDIO_TYPES = { mp3: 'audio/mpeg', opus: 'audio/ogg', flac: 'audio/flac', wav: 'audio/wav' }
/** Sliders the user moved: only those are sent, the others keep the voice's values. */
const touched = new Set()
let voices = []
let downloadUrl
const KEY_STORAGE = 'chorus.apiKey'

/** The Authorization header for the key typed in, if any. */
function authorization () {
  const key = $('api-key').value.trim()
  return key === '' ? {} : { Authorization: `Bearer ${key}` }
}

function status (text) {
  $('status').textContent = text
}

/** The built-in espeak voice has no noise setting: its slider is hidden, not ignored. */
function showNoise (voice) {
  $('noise-setting').hidden = voice?.builtin === true
}

function fillSpeakers () {
  const voice = voices.find(v => v.name === $('voice').value)
  showNoise(voice)
  const select = $('speaker')
  select.replaceChildren()
  const names = voice?.speakers ?? []
  if (names.length <= 1) {
    select.append(new Option('Only one', ''))
    select.disabled = true
    return
  }
  names.forEach((name, id) => select.append(new Option(`${id}: ${name}`, String(id))))
  select.disabled = false
}

async function loadVoices () {
  const response = await fetch('/voices', { headers: authorization() })
  const body = await response.json()
  $('voice').replaceChildren()
  if (response.status === 401) {
    voices = []
    status($('api-key').value.trim() === '' ? 'This service needs an API key: enter it above.' : `Error 401: ${body.error}`)
    return
  }
  if (!response.ok) throw new Error(body.error ?? response.statusText)
  status('')
  voices = body.details
  for (const v of voices) {
    const speakers = v.num_speakers > 1 ? `, ${v.num_speakers} speakers` : ''
    $('voice').append(new Option(`${v.name} (${v.language}${speakers})`, v.name))
  }
  $('voice').value = body.default_voice
  fillSpeakers()
}

function requestBody () {
  const body = { text: $('text').value, voice: $('voice').value, format: $('format').value, timestamps: ['word'] }
  if (!$('speaker').disabled) body.speaker = Number($('speaker').value)
  if (touched.has('speed')) body.length_scale = Math.round(100 / Number($('speed').value)) / 100
  if (touched.has('noise') && !$('noise-setting').hidden) body.noise_scale = Number($('noise').value)
  if (touched.has('silence')) body.sentence_silence = Number($('silence').value)
  return body
}

function appendTo (buffer, bytes) {
  return new Promise((resolve, reject) => {
    buffer.addEventListener('updateend', resolve, { once: true })
    buffer.addEventListener('error', reject, { once: true })
    buffer.appendBuffer(bytes)
  })
}

function base64Bytes (text) {
  const binary = atob(text)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

/** The JSON of each Server-Sent Event of a response, in order. */
async function * sseEvents (response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    buffer += value
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer.slice(0, end).split('\n').filter(line => line.startsWith('data:')).map(line => line.slice(5).trimStart()).join('\n')
      buffer = buffer.slice(end + 2)
      if (data !== '') yield JSON.parse(data)
    }
  }
}

/**
 * The text sent, as spans: each timed word is one, lit while it is heard
 * (from its start_ms until the next word starts). The words lit are noted
 * in order in body[data-highlighted], for the page's test.
 */
class Captions {
  constructor (element, text) {
    this.element = element
    this.text = text
    this.words = []
    this.spans = []
    this.current = -1
    this.highlighted = []
    this.render()
  }

  add (words) {
    if (words === undefined || words.length === 0) return
    this.words.push(...words)
    this.render()
  }

  render () {
    const nodes = []
    let at = 0
    this.spans = this.words.map(word => {
      if (word.text_start > at) nodes.push(document.createTextNode(this.text.slice(at, word.text_start)))
      const span = document.createElement('span')
      span.className = 'word'
      span.textContent = this.text.slice(word.text_start, word.text_end)
      nodes.push(span)
      at = Math.max(at, word.text_end)
      return span
    })
    nodes.push(document.createTextNode(this.text.slice(at)))
    this.element.replaceChildren(...nodes)
    this.paint()
  }

  paint () {
    this.spans.forEach((span, i) => {
      span.classList.toggle('current', i === this.current)
      span.classList.toggle('spoken', i < this.current)
    })
  }

  /** Lights the word heard at `ms` from the audio's start. */
  show (ms) {
    let index = -1
    while (index + 1 < this.words.length && this.words[index + 1].start_ms <= ms) index++
    if (index === this.current) return
    this.current = index
    this.paint()
    if (index >= 0) {
      this.highlighted.push(index)
      document.body.dataset.highlighted = this.highlighted.join(',')
    }
  }
}

let captions

function followPlayback () {
  const player = $('player')
  captions?.show(player.currentTime * 1000)
  if (!player.paused && !player.ended) requestAnimationFrame(followPlayback)
}

/** Plays MP3 as its events arrive; resolves with every audio chunk. */
async function playStreaming (response, player) {
  const source = new MediaSource()
  document.body.dataset.streamed = 'true'
  player.src = URL.createObjectURL(source)
  await new Promise(resolve => source.addEventListener('sourceopen', resolve, { once: true }))
  const buffer = source.addSourceBuffer('audio/mpeg')
  const chunks = []
  for await (const event of sseEvents(response)) {
    if (event.type === 'speech.timing') captions.add(event.words)
    if (event.type !== 'speech.audio.delta') continue
    const bytes = base64Bytes(event.audio)
    chunks.push(bytes)
    await appendTo(buffer, bytes)
    if (chunks.length === 1) player.play().catch(() => {})
  }
  source.endOfStream()
  return chunks
}

async function playWhole (response, player, type) {
  const answer = await response.json()
  captions.add(answer.words)
  const blob = new Blob([base64Bytes(answer.audio)], { type })
  player.src = URL.createObjectURL(blob)
  player.play().catch(() => {})
  return [blob]
}

async function speak (event) {
  event.preventDefault()
  const format = $('format').value
  const player = $('player')
  $('speak').disabled = true
  document.body.dataset.played = 'false'
  document.body.dataset.streamed = 'false'
  document.body.dataset.highlighted = ''
  status('Speaking…')
  try {
    const body = requestBody()
    const streaming = format === 'mp3' && window.MediaSource?.isTypeSupported('audio/mpeg') === true
    captions = new Captions($('captions'), body.text)
    const response = await fetch('/tts', { method: 'POST', headers: { 'Content-Type': 'application/json', ...authorization() }, body: JSON.stringify({ ...body, stream: streaming }) })
    if (!response.ok) {
      const error = await response.json().catch(() => ({ error: response.statusText }))
      status(`Error ${response.status}: ${error.error}`)
      return
    }
    const type = AUDIO_TYPES[format]
    const chunks = streaming ? await playStreaming(response, player) : await playWhole(response, player, type)
    if (downloadUrl !== undefined) URL.revokeObjectURL(downloadUrl)
    downloadUrl = URL.createObjectURL(new Blob(chunks, { type }))
    const link = $('download')
    link.href = downloadUrl
    link.download = `chorus.${EXTENSIONS[format]}`
    link.setAttribute('aria-disabled', 'false')
    link.tabIndex = 0
    status(`Playing ${format.toUpperCase()} from ${$('voice').value}.`)
  } catch (error) {
    status(`Error: ${error.message}`)
  } finally {
    $('speak').disabled = false
  }
}

for (const [id, show] of [['speed', v => Number(v).toFixed(2)], ['noise', v => Number(v).toFixed(2)], ['silence', v => `${Number(v).toFixed(2)} s`]]) {
  $(id).addEventListener('input', () => {
    touched.add(id)
    $(`${id}-value`).textContent = show($(id).value)
  })
}
$('voice').addEventListener('change', fillSpeakers)
$('speak-form').addEventListener('submit', speak)
$('player').addEventListener('play', () => requestAnimationFrame(followPlayback))
$('player').addEventListener('timeupdate', () => captions?.show($('player').currentTime * 1000))
$('player').addEventListener('ended', () => {
  captions?.show(Infinity)
  document.body.dataset.played = 'true'
  status('Done.')
})
function reloadVoices () {
  loadVoices().catch(error => status(`Could not load the voices: ${error.message}`))
}
$('api-key').value = localStorage.getItem(KEY_STORAGE) ?? ''
$('api-key').addEventListener('change', () => {
  localStorage.setItem(KEY_STORAGE, $('api-key').value.trim())
  reloadVoices()
})
$('key-form').addEventListener('submit', event => {
  event.preventDefault()
  $('api-key').dispatchEvent(new Event('change'))
})
reloadVoices()
