// stream_format "sse": the audio as Server-Sent Events, OpenAI's shapes:
//   data: {"type":"speech.audio.delta","audio":"<base64>"}
//   data: {"type":"speech.audio.done","usage":{…}}

export function sseDelta (bytes: Uint8Array): string {
  return `data: ${JSON.stringify({ type: 'speech.audio.delta', audio: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') })}\n\n`
}

/** Piper has no tokens: input tokens count the input's characters (code
 * points) and no output tokens are counted. */
export function sseDone (inputCharacters: number): string {
  const usage = { input_tokens: inputCharacters, output_tokens: 0, total_tokens: inputCharacters }
  return `data: ${JSON.stringify({ type: 'speech.audio.done', usage })}\n\n`
}
