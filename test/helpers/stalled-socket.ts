// A WebSocket reader that stops reading: the built-in voice at 48 kHz PCM
// (pieces far larger than the sockets' kernel buffers), opened and paused,
// its messages collected as they would have been read.

import WebSocket from 'ws'

export interface StalledSocket {
  ws: WebSocket
  replies: Array<Record<string, any>>
  closed: Promise<number>
}

export async function stalledSocket (serviceUrl: string): Promise<StalledSocket> {
  const ws = new WebSocket(`${serviceUrl.replace('http://', 'ws://')}/v1/text-to-speech/en_US-espeak-low/stream-input?output_format=pcm_48000`)
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  const replies: Array<Record<string, any>> = []
  ws.on('message', data => replies.push(JSON.parse(String(data))))
  const closed = new Promise<number>(resolve => ws.once('close', code => resolve(code)))
  ws.pause()
  return { ws, replies, closed }
}
