// With a chat model configured (the local fake OpenAI-compatible provider as CHAT_MODEL), the caller's tools,
// tool_choice, response_format / text.format, tool-result turns and token limits pass through to it, and its
// tool calls come back in OpenAI's shapes — through the official `openai` client, chat and responses, streamed
// and not. What the provider received is asserted from its recorded requests.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import type { ResponseStreamEvent } from 'openai/resources/responses/responses'
import { reply } from '../fakes/openai-chat'
import { listen, QUESTION, userWithBackups, type Listening } from './v1.fixtures'

let s: Listening
beforeAll(async () => {
  s = await listen({ provider: true })
})
afterEach(() => s.fake!.reset())
afterAll(() => s?.stop())

const WEATHER = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
}
const lastSent = () => s.fake!.chatRequests().at(-1)!.body

async function client() {
  const { user, doc } = await userWithBackups(s)
  return { doc, client: new OpenAI({ baseURL: s.baseURL, apiKey: user.key, maxRetries: 0 }) }
}

describe('chat completions on the provider', () => {
  test('tools and tool_choice reach the provider; its call comes back as tool_calls with finish_reason tool_calls; the tool result turn goes back tied by id', async () => {
    const { client: c } = await client()
    s.fake!.script(reply.toolCall('get_weather', { city: 'Oslo' }, { id: 'call_w1' }))
    const first = await c.chat.completions.create({
      model: 'service-rag',
      messages: [{ role: 'user', content: QUESTION }],
      tools: [WEATHER],
      tool_choice: 'required',
    })
    expect(first.choices[0]!.finish_reason).toBe('tool_calls')
    expect(first.choices[0]!.message.tool_calls).toEqual([
      { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ])
    expect(first.choices[0]!.message.content).toBeNull()
    expect(lastSent().tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: WEATHER.function.parameters } },
    ])
    expect(lastSent().tool_choice).toBe('required')

    s.fake!.script(reply.text('It is sunny in Oslo; backups are kept 35 days [1].'))
    const second = await c.chat.completions.create({
      model: 'service-rag',
      tools: [WEATHER],
      messages: [
        { role: 'user', content: QUESTION },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: 'call_w1', content: 'sunny' },
      ],
    })
    expect(second.choices[0]!.message.content).toBe('It is sunny in Oslo; backups are kept 35 days [1].')
    const sent = lastSent().messages
    expect(sent.find((m: any) => m.role === 'assistant').tool_calls).toEqual([
      { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ])
    expect(sent.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_w1', content: 'sunny' })
  })

  test('tool_choice naming a function that is not among the tools: a 400 saying so, before the provider is asked', async () => {
    const { client: c } = await client()
    const before = s.fake!.chatRequests().length
    const error = (await c.chat.completions
      .create({
        model: 'service-rag',
        messages: [{ role: 'user', content: QUESTION }],
        tools: [WEATHER],
        tool_choice: { type: 'function', function: { name: 'get_time' } },
      })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error.message).toContain('tool_choice: names get_time')
    expect(s.fake!.chatRequests().length).toBe(before)
  })

  test('streaming a tool call: a tool_calls delta with id, name and arguments, then finish_reason tool_calls', async () => {
    const { client: c } = await client()
    s.fake!.script(reply.toolCall('get_weather', { city: 'Bergen' }, { id: 'call_w2' }))
    const chunks = []
    for await (const chunk of await c.chat.completions.create({
      model: 'service-rag',
      messages: [{ role: 'user', content: QUESTION }],
      tools: [WEATHER],
      stream: true,
    }))
      chunks.push(chunk)
    const calls = chunks.flatMap((k) => k.choices[0]?.delta.tool_calls ?? [])
    expect(calls).toEqual([
      { index: 0, id: 'call_w2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Bergen"}' } },
    ])
    expect(chunks.find((k) => k.choices[0]?.finish_reason)!.choices[0]!.finish_reason).toBe('tool_calls')
  })

  test('response_format json_schema reaches the provider; its JSON comes back untouched (a [n]-like array is not a citation to strip)', async () => {
    const { client: c } = await client()
    const json = '{"days":35,"refs":[7]}'
    s.fake!.script(reply.text(json))
    const schema = {
      type: 'object',
      properties: { days: { type: 'number' }, refs: { type: 'array', items: { type: 'number' } } },
      required: ['days', 'refs'],
      additionalProperties: false,
    }
    const res = await c.chat.completions.create({
      model: 'service-rag',
      messages: [{ role: 'user', content: QUESTION }],
      response_format: { type: 'json_schema', json_schema: { name: 'retention', schema } },
    })
    expect(res.choices[0]!.message.content).toBe(json)
    expect(lastSent().response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'retention', schema } })
  })

  test('max_tokens reaches the provider as its limit; its finish_reason length comes back', async () => {
    const { client: c } = await client()
    s.fake!.script(reply.text('Backups are', { finishReason: 'length' }))
    const res = await c.chat.completions.create({ model: 'service-rag', messages: [{ role: 'user', content: QUESTION }], max_tokens: 3 })
    expect(res.choices[0]!.finish_reason).toBe('length')
    expect(lastSent().max_tokens).toBe(3)
  })
})

describe('responses on the provider', () => {
  const tools = [
    {
      type: 'function' as const,
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: WEATHER.function.parameters,
      strict: false,
    },
  ]

  test('a function_call output item; the function_call_output turn goes back to the provider as a tool message', async () => {
    const { client: c } = await client()
    s.fake!.script(reply.toolCall('get_weather', { city: 'Oslo' }, { id: 'call_r1' }))
    const first = await c.responses.create({ model: 'service-rag', input: QUESTION, tools })
    expect(first.status).toBe('completed')
    expect(first.output).toEqual([
      {
        type: 'function_call',
        id: expect.stringMatching(/^fc_/),
        call_id: 'call_r1',
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
        status: 'completed',
      },
    ])
    expect(lastSent().tools[0].function.name).toBe('get_weather')

    s.fake!.script(reply.text('Sunny; backups are kept 35 days [1].'))
    const second = await c.responses.create({
      model: 'service-rag',
      tools,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_r1', output: 'sunny' }],
    })
    expect(second.output_text).toBe('Sunny; backups are kept 35 days [1].')
    const sent = lastSent().messages
    // The stored conversation: the question, the call, then this turn's result.
    expect(sent.filter((m: any) => m.role !== 'system')).toEqual([
      { role: 'user', content: QUESTION },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_r1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_r1', content: 'sunny' },
    ])
  })

  test('streaming a function call: output_item.added, function_call_arguments.delta/done, output_item.done, response.completed', async () => {
    const { client: c } = await client()
    s.fake!.script(reply.toolCall('get_weather', { city: 'Oslo' }, { id: 'call_r2' }))
    const events: ResponseStreamEvent[] = []
    for await (const e of await c.responses.create({ model: 'service-rag', input: QUESTION, tools, stream: true })) events.push(e)
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ])
    const done = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>
    expect(done.response.output).toEqual([
      expect.objectContaining({ type: 'function_call', call_id: 'call_r2', arguments: '{"city":"Oslo"}' }),
    ])
  })

  test('previous_response_id: the provider receives the earlier question and answer before the new one, and this request’s instructions only', async () => {
    const { client: c } = await client()
    s.fake!.script(reply.text('Nightly at 02:00 UTC [1].'), reply.text('35 days [1].'))
    const first = await c.responses.create({ model: 'service-rag', input: 'When do backups run?', instructions: 'First instructions.' })
    await c.responses.create({
      model: 'service-rag',
      input: QUESTION,
      previous_response_id: first.id,
      instructions: 'Second instructions.',
    })
    const sent = lastSent().messages
    expect(sent.filter((m: any) => m.role !== 'system')).toEqual([
      { role: 'user', content: 'When do backups run?' },
      { role: 'assistant', content: 'Nightly at 02:00 UTC [1].' },
      { role: 'user', content: QUESTION },
    ])
    const system = sent
      .filter((m: any) => m.role === 'system')
      .map((m: any) => m.content)
      .join('\n')
    expect(system).toContain('Second instructions.')
    expect(system).not.toContain('First instructions.')
  })

  test('text.format json_schema reaches the provider as response_format; max_output_tokens as its limit, a length finish as incomplete', async () => {
    const { client: c } = await client()
    s.fake!.script(reply.text('{"days":35}'), reply.text('Backups', { finishReason: 'length' }))
    const schema = { type: 'object', properties: { days: { type: 'number' } }, required: ['days'], additionalProperties: false }
    const json = await c.responses.create({
      model: 'service-rag',
      input: QUESTION,
      text: { format: { type: 'json_schema', name: 'retention', schema } },
    })
    expect(JSON.parse(json.output_text)).toEqual({ days: 35 })
    expect(lastSent().response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'retention', schema } })
    const cut = await c.responses.create({ model: 'service-rag', input: QUESTION, max_output_tokens: 16 })
    expect(lastSent().max_tokens).toBe(16)
    expect(cut.status).toBe('incomplete')
    expect(cut.incomplete_details).toEqual({ reason: 'max_output_tokens' })
  })

  test('the provider breaking mid-stream: the client’s stream throws an APIError with the reason instead of ending as if complete', async () => {
    const { client: c } = await client()
    s.fake!.script(reply.breakAfter('Backups are kept', 'error-event'))
    let text = ''
    let failure: unknown
    try {
      for await (const e of await c.responses.create({ model: 'service-rag', input: QUESTION, stream: true }))
        if (e.type === 'response.output_text.delta') text += e.delta
    } catch (error) {
      failure = error
    }
    expect(text).toBe('Backups are kept')
    expect(failure).toBeInstanceOf(OpenAI.APIError)
    expect((failure as Error).message).toContain('the completion could not be finished')
  })
})
