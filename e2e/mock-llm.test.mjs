// Tests for the mock LLM server. Run: node --test e2e/mock-llm.test.mjs
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startMockLlm } from './mock-llm.mjs';

let mock;
before(async () => {
  mock = await startMockLlm({ defaultChunkDelayMs: 1 });
});
after(() => mock.close());
beforeEach(() => mock.reset());

// ------------------------------------------------------------------ helpers ---

const USER_MESSAGES = [{ role: 'user', content: 'What is the capital of France?' }];

function openaiRequest(body, init = {}) {
  return fetch(`${mock.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model: 'gpt-mock', messages: USER_MESSAGES, ...body }),
    ...init,
  });
}

function anthropicRequest(body, { headers = {}, ...init } = {}) {
  return fetch(`${mock.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify({ model: 'claude-mock', max_tokens: 256, messages: USER_MESSAGES, ...body }),
    ...init,
  });
}

async function script(...steps) {
  const res = await fetch(`${mock.url}/__script`, { method: 'POST', body: JSON.stringify({ steps }) });
  assert.equal(res.status, 200);
}

async function getLog() {
  return (await fetch(`${mock.url}/__log`)).json();
}

/** Tiny SSE parser: returns { events: [{event, data}], error } — error is set if the stream broke. */
async function readSse(response) {
  const events = [];
  const decoder = new TextDecoder();
  let buffer = '';
  let error = null;
  const flush = () => {
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const raw = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data = [];
      for (const line of raw.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      events.push({ event, data: data.join('\n') });
    }
  };
  try {
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk, { stream: true });
      flush();
    }
  } catch (err) {
    error = err;
  }
  return { events, error };
}

/** OpenAI stream → { chunks (parsed JSON), done, content, toolCalls (reassembled by index) } */
async function readOpenAiStream(response) {
  const { events, error } = await readSse(response);
  const done = events.at(-1)?.data === '[DONE]';
  const chunks = events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
  let content = '';
  const toolCalls = [];
  for (const choice of chunks.flatMap((c) => c.choices)) {
    content += choice.delta.content ?? '';
    for (const tc of choice.delta.tool_calls ?? []) {
      const slot = (toolCalls[tc.index] ??= { id: null, name: '', arguments: '' });
      if (tc.id) slot.id = tc.id;
      if (tc.function?.name) slot.name += tc.function.name;
      slot.arguments += tc.function?.arguments ?? '';
    }
  }
  return { chunks, done, content, toolCalls, error };
}

/** Anthropic stream → { events (parsed), types, blocks (reassembled) } */
async function readAnthropicStream(response) {
  const { events, error } = await readSse(response);
  const parsed = events.map((e) => ({ event: e.event, ...JSON.parse(e.data) }));
  const blocks = [];
  for (const e of parsed) {
    if (e.type === 'content_block_start') blocks[e.index] = { ...e.content_block, json: '' };
    if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') blocks[e.index].text += e.delta.text;
    if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') blocks[e.index].json += e.delta.partial_json;
  }
  parsed.forEach((e) => assert.equal(e.event, e.type, 'SSE event name matches data.type'));
  return { events: parsed, types: parsed.map((e) => e.type), blocks, error };
}

// -------------------------------------------------------------------- OpenAI ---

test('OpenAI streaming text: SSE chunks reassemble, [DONE], usage chunk only with include_usage', async () => {
  await script({ text: 'Paris is the capital of France.', chunkSize: 5 }, {});

  const res = await openaiRequest({ stream: true, stream_options: { include_usage: true } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  const withUsage = await readOpenAiStream(res);
  assert.equal(withUsage.done, true);
  assert.equal(withUsage.content, 'Paris is the capital of France.');
  const [first] = withUsage.chunks;
  assert.equal(first.object, 'chat.completion.chunk');
  assert.equal(first.model, 'gpt-mock');
  assert.match(first.id, /^chatcmpl-mock-\d+$/);
  assert.deepEqual(first.choices[0].delta, { role: 'assistant', content: '' });
  assert.ok(withUsage.chunks.filter((c) => c.choices[0]?.delta.content).length >= 6, 'several text chunks');
  const usageChunk = withUsage.chunks.at(-1);
  assert.deepEqual(usageChunk.choices, []);
  assert.equal(usageChunk.usage.total_tokens, usageChunk.usage.prompt_tokens + usageChunk.usage.completion_tokens);
  assert.equal(usageChunk.usage.completion_tokens, Math.ceil('Paris is the capital of France.'.length / 4));
  const finish = withUsage.chunks.at(-2).choices[0];
  assert.deepEqual(finish.delta, {});
  assert.equal(finish.finish_reason, 'stop');

  const plain = await readOpenAiStream(await openaiRequest({ stream: true }));
  assert.equal(plain.done, true);
  assert.equal(plain.content, 'Mock reply to: "What is the capital of France?". This answer streams in several chunks from the mock server.');
  assert.ok(plain.chunks.every((c) => c.choices.length === 1 && !('usage' in c)), 'no usage without include_usage');
  assert.equal(plain.chunks.at(-1).choices[0].finish_reason, 'stop');
});

test('OpenAI streamed tool calls reassemble by index into valid JSON', async () => {
  await script({
    toolCalls: [
      { name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } },
      { id: 'call_custom', name: 'search', arguments: { query: 'eiffel tower height', limit: 3 } },
      { name: 'broken', arguments: '{"oops": ' },
    ],
  });
  const stream = await readOpenAiStream(await openaiRequest({ stream: true }));
  assert.equal(stream.done, true);
  assert.equal(stream.content, '');
  assert.equal(stream.toolCalls.length, 3);
  assert.match(stream.toolCalls[0].id, /^call_mock_\d+$/);
  assert.equal(stream.toolCalls[0].name, 'get_weather');
  assert.deepEqual(JSON.parse(stream.toolCalls[0].arguments), { city: 'Paris', unit: 'celsius' });
  assert.equal(stream.toolCalls[1].id, 'call_custom');
  assert.deepEqual(JSON.parse(stream.toolCalls[1].arguments), { query: 'eiffel tower height', limit: 3 });
  assert.equal(stream.toolCalls[2].arguments, '{"oops": ', 'raw string arguments sent as-is');
  const fragments = stream.chunks.filter((c) => c.choices[0]?.delta.tool_calls?.[0]?.index === 0);
  assert.ok(fragments.length > 2, 'arguments arrive in several fragments');
  assert.equal(fragments[0].choices[0].delta.tool_calls[0].type, 'function');
  assert.equal(stream.chunks.at(-1).choices[0].finish_reason, 'tool_calls');
});

test('OpenAI non-streaming completion, with text and with tool calls only', async () => {
  await script({ text: 'Plain answer.' }, { toolCalls: [{ name: 'lookup', arguments: { id: 7 } }] });

  const res = await openaiRequest({});
  assert.equal(res.headers.get('content-type'), 'application/json');
  const completion = await res.json();
  assert.equal(completion.object, 'chat.completion');
  assert.equal(completion.model, 'gpt-mock');
  assert.deepEqual(completion.choices[0].message, { role: 'assistant', content: 'Plain answer.' });
  assert.equal(completion.choices[0].finish_reason, 'stop');
  assert.equal(completion.usage.prompt_tokens, Math.ceil(USER_MESSAGES[0].content.length / 4));
  assert.equal(completion.usage.total_tokens, completion.usage.prompt_tokens + completion.usage.completion_tokens);

  const tools = await (await openaiRequest({})).json();
  const { message, finish_reason } = tools.choices[0];
  assert.equal(message.content, null);
  assert.equal(finish_reason, 'tool_calls');
  assert.equal(message.tool_calls[0].type, 'function');
  assert.equal(message.tool_calls[0].function.name, 'lookup');
  assert.deepEqual(JSON.parse(message.tool_calls[0].function.arguments), { id: 7 });
});

// ----------------------------------------------------------------- Anthropic ---

test('Anthropic streaming text + tool_use, reassembling input_json_delta', async () => {
  await script({ text: 'Let me check the weather.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
  const res = await anthropicRequest({ stream: true, messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather?' }] }] });
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const { events, types, blocks } = await readAnthropicStream(res);

  assert.deepEqual(types.slice(0, 3), ['message_start', 'content_block_start', 'ping']);
  assert.deepEqual(types.slice(-2), ['message_delta', 'message_stop']);
  const start = events[0].message;
  assert.equal(start.type, 'message');
  assert.equal(start.role, 'assistant');
  assert.equal(start.model, 'claude-mock');
  assert.deepEqual(start.content, []);
  assert.equal(start.stop_reason, null);
  assert.equal(start.usage.output_tokens, 1);
  assert.ok(start.usage.input_tokens >= 1);

  assert.equal(blocks[0].type, 'text');
  assert.equal(blocks[0].text, 'Let me check the weather.');
  assert.equal(blocks[1].type, 'tool_use');
  assert.match(blocks[1].id, /^toolu_mock_\d+$/);
  assert.equal(blocks[1].name, 'get_weather');
  assert.deepEqual(blocks[1].input, {});
  assert.deepEqual(JSON.parse(blocks[1].json), { city: 'Paris' });
  assert.equal(types.filter((t) => t === 'content_block_stop').length, 2);

  const delta = events.at(-2);
  assert.deepEqual(delta.delta, { stop_reason: 'tool_use', stop_sequence: null });
  assert.ok(delta.usage.output_tokens > 0);
});

test('Anthropic streaming default text uses last user text block', async () => {
  const messages = [
    { role: 'user', content: 'first question' },
    { role: 'assistant', content: 'first answer' },
    { role: 'user', content: [{ type: 'image', source: {} }, { type: 'text', text: 'second question' }] },
  ];
  const { blocks, events } = await readAnthropicStream(await anthropicRequest({ stream: true, messages }));
  assert.equal(blocks.length, 1);
  assert.equal(blocks[0].text, 'Mock reply to: "second question". This answer streams in several chunks from the mock server.');
  assert.equal(events.at(-2).delta.stop_reason, 'end_turn');
});

test('Anthropic non-streaming message and request validation', async () => {
  await script({ text: 'Hi!', toolCalls: [{ id: 'toolu_x', name: 'calc', arguments: { a: 1 } }] });
  const message = await (await anthropicRequest({})).json();
  assert.equal(message.type, 'message');
  assert.equal(message.role, 'assistant');
  assert.equal(message.model, 'claude-mock');
  assert.deepEqual(message.content, [
    { type: 'text', text: 'Hi!' },
    { type: 'tool_use', id: 'toolu_x', name: 'calc', input: { a: 1 } },
  ]);
  assert.equal(message.stop_reason, 'tool_use');
  assert.equal(message.usage.input_tokens, Math.ceil(USER_MESSAGES[0].content.length / 4));
  assert.ok(message.usage.output_tokens > 0);

  const noVersion = await anthropicRequest({}, { headers: { 'anthropic-version': '' } });
  assert.equal(noVersion.status, 400);
  assert.equal((await noVersion.json()).error.type, 'invalid_request_error');

  const noMaxTokens = await anthropicRequest({ max_tokens: undefined });
  assert.equal(noMaxTokens.status, 400);
  assert.deepEqual(await noMaxTokens.json(), {
    type: 'error',
    error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
  });
});

// -------------------------------------------------------------------- errors ---

test('429 carries retry-after, exposed via CORS, in both formats', async () => {
  await script({ status: 429, retryAfter: 7 }, { status: 429, retryAfter: 3 });

  const oa = await openaiRequest({ stream: true });
  assert.equal(oa.status, 429);
  assert.equal(oa.headers.get('retry-after'), '7');
  assert.equal(oa.headers.get('access-control-allow-origin'), '*');
  assert.match(oa.headers.get('access-control-expose-headers'), /retry-after/i);
  const oaBody = await oa.json();
  assert.equal(oaBody.error.code, 'rate_limit_exceeded');
  assert.equal(typeof oaBody.error.message, 'string');

  const an = await anthropicRequest({ stream: true });
  assert.equal(an.status, 429);
  assert.equal(an.headers.get('retry-after'), '3');
  assert.equal((await an.json()).error.type, 'rate_limit_error');
});

test('401 error bodies in OpenAI and Anthropic formats; 5xx types', async () => {
  await script({ status: 401 }, { status: 401 }, { status: 500 }, { status: 529 });

  const oa = await openaiRequest({});
  assert.equal(oa.status, 401);
  const oaErr = (await oa.json()).error;
  assert.equal(oaErr.type, 'invalid_request_error');
  assert.match(oaErr.message, /^Incorrect API key provided/);

  const an = await anthropicRequest({});
  assert.equal(an.status, 401);
  const anBody = await an.json();
  assert.equal(anBody.type, 'error');
  assert.equal(anBody.error.type, 'authentication_error');
  assert.equal(typeof anBody.error.message, 'string');

  assert.equal((await (await openaiRequest({})).json()).error.type, 'server_error');
  assert.equal((await (await anthropicRequest({})).json()).error.type, 'overloaded_error');
});

test('bad JSON → 400 in provider format; unknown route → 404 JSON; health', async () => {
  const post = (path, body) => fetch(`${mock.url}${path}`, { method: 'POST', body, headers: { 'anthropic-version': '2023-06-01' } });
  const oa = await post('/v1/chat/completions', '{not json');
  assert.equal(oa.status, 400);
  assert.equal((await oa.json()).error.type, 'invalid_request_error');
  const an = await post('/v1/messages', '{not json');
  assert.equal(an.status, 400);
  assert.equal((await an.json()).type, 'error');
  assert.equal((await getLog())[0].body, '{not json', 'raw body kept when unparseable');

  const missing = await fetch(`${mock.url}/v1/nope`);
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('access-control-allow-origin'), '*');
  assert.ok((await missing.json()).error);

  assert.deepEqual(await (await fetch(`${mock.url}/__health`)).json(), { ok: true });
});

// ------------------------------------------------------- faults and plumbing ---

test('cutAfterChunks ends the stream abruptly without [DONE] / message_stop', async () => {
  await script({ text: 'abcdefghijklmnopqrstuvwxyz', chunkSize: 4, cutAfterChunks: 2 }, { cutAfterChunks: 3 });

  const oa = await readOpenAiStream(await openaiRequest({ stream: true }));
  assert.equal(oa.done, false);
  assert.equal(oa.content, 'abcdefgh');
  assert.ok(oa.chunks.every((c) => c.choices[0].finish_reason === null));

  const an = await readAnthropicStream(await anthropicRequest({ stream: true }));
  assert.ok(!an.types.includes('message_stop'));
  assert.ok(!an.types.includes('message_delta'));
  assert.equal(an.types.filter((t) => t === 'content_block_delta').length, 3);

  const log = await getLog();
  assert.equal(log.length, 2);
  assert.ok(log.every((r) => r.cut === true && r.aborted === false));
});

test('CORS preflight echoes requested headers', async () => {
  const res = await fetch(`${mock.url}/v1/chat/completions`, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://localhost:8080',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,x-stainless-os',
    },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.equal(res.headers.get('access-control-allow-methods'), 'GET, POST, OPTIONS');
  assert.equal(res.headers.get('access-control-allow-headers'), 'authorization,content-type,x-stainless-os');
  assert.equal(res.headers.get('access-control-max-age'), '600');
  assert.deepEqual(await getLog(), [], 'preflights are not logged as LLM requests');
});

test('client abort is detected and recorded as aborted: true', async () => {
  await script({ text: 'x'.repeat(400), chunkSize: 2, chunkDelayMs: 30 });
  const controller = new AbortController();
  const res = await openaiRequest({ stream: true }, { signal: controller.signal });
  const reader = res.body.getReader();
  await reader.read();
  controller.abort();
  await assert.rejects(reader.read());

  let record;
  for (let i = 0; i < 100 && !record?.aborted; i++) {
    await new Promise((r) => setTimeout(r, 20));
    record = (await getLog())[0];
  }
  assert.equal(record.aborted, true);
  assert.equal(typeof record.finishedAt, 'number');
  assert.equal(record.status, 200);
});

test('hangMs delays response headers', async () => {
  await script({ hangMs: 150, text: 'late' });
  const t0 = Date.now();
  const res = await openaiRequest({});
  assert.ok(Date.now() - t0 >= 140);
  assert.equal((await res.json()).choices[0].message.content, 'late');
});

test('script queue is FIFO, then falls back to the default step; stream override', async () => {
  await script({ text: 'one' }, { text: 'two', stream: true });
  const first = await (await openaiRequest({})).json();
  assert.equal(first.choices[0].message.content, 'one');
  const second = await readOpenAiStream(await openaiRequest({ stream: false }));
  assert.equal(second.content, 'two');
  const third = await (await openaiRequest({})).json();
  assert.match(third.choices[0].message.content, /^Mock reply to: "What is the capital/);

  const log = await getLog();
  assert.deepEqual(log.map((r) => r.step), [{ text: 'one' }, { text: 'two', stream: true }, {}]);
  assert.equal(log[0].headers.authorization, 'Bearer sk-test');
  assert.equal(log[0].body.model, 'gpt-mock');
  assert.equal(log[0].method, 'POST');
  assert.equal(log[0].path, '/v1/chat/completions');
  assert.ok(log.every((r) => r.status === 200 && r.finishedAt >= r.startedAt && !r.aborted));
});

test('/__reset clears the queue and the log; programmatic API mirrors control routes', async () => {
  await script({ text: 'queued-1' }, { text: 'queued-2' });
  await openaiRequest({}).then((r) => r.json());
  assert.equal((await getLog()).length, 1);

  const reset = await fetch(`${mock.url}/__reset`, { method: 'POST' });
  assert.equal(reset.status, 200);
  assert.deepEqual(await getLog(), []);
  const after = await (await openaiRequest({})).json();
  assert.match(after.choices[0].message.content, /^Mock reply to:/, 'queued-2 was dropped');

  mock.reset();
  mock.script([{ text: 'from api' }]);
  assert.equal((await (await openaiRequest({})).json()).choices[0].message.content, 'from api');
  assert.equal(mock.log().length, 1);
  assert.match(mock.url, /^http:\/\/127\.0\.0\.1:\d+$/);
});

test('CLI prints MOCK_LLM_URL and exits cleanly on SIGTERM', async () => {
  const script = fileURLToPath(new URL('./mock-llm.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  for await (const chunk of child.stdout) {
    out += chunk;
    if (out.includes('\n')) break;
  }
  const url = out.match(/^MOCK_LLM_URL=(http:\/\/127\.0\.0\.1:\d+)\n$/)?.[1];
  assert.ok(url, `unexpected stdout: ${out}`);
  assert.deepEqual(await (await fetch(`${url}/__health`)).json(), { ok: true });
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
});

test('embeddings: deterministic unit vectors in input order, batched, with scripted faults', async () => {
  const post = (body) =>
    fetch(`${mock.url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const r = await post({ model: 'mock-embed', input: ['alpha', 'beta'] });
  assert.equal(r.status, 200);
  const body = await r.json();
  assert.deepEqual(body.data.map((d) => d.index), [0, 1]);
  for (const d of body.data) {
    assert.equal(d.embedding.length, 16);
    assert.ok(Math.abs(Math.hypot(...d.embedding) - 1) < 1e-9);
  }
  const again = await (await post({ model: 'mock-embed', input: 'beta', dimensions: 16 })).json();
  assert.deepEqual(again.data[0].embedding, body.data[1].embedding, 'the same text, the same vector');
  assert.notDeepEqual(body.data[0].embedding, body.data[1].embedding);
  assert.equal((await post({ model: 'm', input: 'x', dimensions: 8 }).then((x) => x.json())).data[0].embedding.length, 8);
  assert.equal((await post({ input: ['x'] })).status, 400);
  await script({ status: 429, retryAfter: 2 });
  const limited = await post({ model: 'mock-embed', input: ['x'] });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get('retry-after'), '2');
  assert.ok((await getLog()).some((l) => l.path === '/v1/embeddings' && l.body.model === 'mock-embed'));
});
