// The playground: fills the pickers from GET /voices, sends POST /tts, plays
// the answer (MP3 while it streams, through Media Source Extensions; other
// formats once complete) and offers the file for download. When the service
// requires API keys, the key typed in is kept in the page's local storage
// (this browser only) and sent as "Authorization: Bearer".

const $ = id => document.getElementById(id)
const EXTENSIONS = { mp3: 'mp3', opus: 'opus', flac: 'flac', wav: 'wav' }
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
  const body = { text: $('text').value, voice: $('voice').value, format: $('format').value }
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

/** Plays MP3 as its chunks arrive; resolves with every chunk. */
async function playStreaming (response, player) {
  const source = new MediaSource()
  document.body.dataset.streamed = 'true'
  player.src = URL.createObjectURL(source)
  await new Promise(resolve => source.addEventListener('sourceopen', resolve, { once: true }))
  const buffer = source.addSourceBuffer('audio/mpeg')
  const reader = response.body.getReader()
  const chunks = []
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    await appendTo(buffer, value)
    if (chunks.length === 1) player.play().catch(() => {})
  }
  source.endOfStream()
  return chunks
}

async function playWhole (response, player, type) {
  const blob = new Blob([await response.arrayBuffer()], { type })
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
  status('Speaking…')
  try {
    const response = await fetch('/tts', { method: 'POST', headers: { 'Content-Type': 'application/json', ...authorization() }, body: JSON.stringify(requestBody()) })
    if (!response.ok) {
      const error = await response.json().catch(() => ({ error: response.statusText }))
      status(`Error ${response.status}: ${error.error}`)
      return
    }
    const type = response.headers.get('Content-Type') ?? 'application/octet-stream'
    const streaming = format === 'mp3' && window.MediaSource?.isTypeSupported('audio/mpeg')
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
$('player').addEventListener('ended', () => {
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
