#!/usr/bin/env node
// Mock LLM server speaking the OpenAI chat-completions and Anthropic Messages
// wire formats (streaming and not, with tool calls) and OpenAI-compatible
// embeddings (deterministic vectors), and a search engine speaking SearXNG's
// JSON API (GET /search?q=…&format=json, results pointing at pages it serves
// under /pages/), CORS-enabled, with a FIFO
// queue of scripted "steps" that control each response (errors, delays, cuts).
// Only node: built-ins are used. See startMockLlm() for the programmatic API.
import http from 'node:http';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DEFAULT_ALLOWED_HEADERS =
  'authorization, content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access';
const DEFAULT_CHUNK_SIZE = 6;

// ---------------------------------------------------------------- helpers ---

/** Split a string into pieces of `size` characters (never splits surrogate pairs). */
function chunkString(text, size) {
  const chars = Array.from(text);
  const step = Math.max(1, Math.floor(size) || DEFAULT_CHUNK_SIZE);
  const out = [];
  for (let i = 0; i < chars.length; i += step) out.push(chars.slice(i, i + step).join(''));
  return out;
}

/** Sleep `ms`, waking early if the response closes (client abort / server shutdown). */
function sleep(ms, res) {
  if (!(ms > 0) || res.closed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.on('close', done);
  });
}

/** Text of a message `content`: a string, or an array of blocks/parts of which `text` ones count. */
function contentText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => b && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text)
    .join('\n');
}

function promptText(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return [contentText(body.system), ...messages.map((m) => contentText(m?.content))].join('');
}

function lastUserText(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last = messages.filter((m) => m?.role === 'user').at(-1);
  return last ? contentText(last.content) : '';
}

const tokens = (chars) => Math.ceil(chars / 4);

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(raw) {
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false, value: raw };
  }
}

function sendJson(res, status, payload, headers = {}) {
  const body = JSON.stringify(payload);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Close the connection mid-response, after letting already-written bytes reach the kernel. */
async function cutConnection(res) {
  await new Promise((resolve) => setImmediate(resolve));
  const socket = res.socket;
  if (socket && socket.writableLength > 0) {
    await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
  }
  socket?.destroy();
}

// ------------------------------------------------------------------ answer ---

/** Resolve a step + request body into the concrete answer to send. */
function buildAnswer(step, body, idPrefix, state) {
  const toolCalls = (Array.isArray(step.toolCalls) ? step.toolCalls : []).map((call) => ({
    id: call.id ?? `${idPrefix}_${++state.toolCallCounter}`,
    name: String(call.name ?? 'tool'),
    args: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }));
  const defaultText =
    `Mock reply to: "${lastUserText(body).slice(0, 80)}". ` +
    'This answer streams in several chunks from the mock server.';
  const text = step.text ?? (toolCalls.length ? '' : defaultText);
  const answerChars = text.length + toolCalls.reduce((n, c) => n + c.args.length, 0);
  const promptTokens = Math.max(1, tokens(promptText(body).length));
  // `finish: 'length'`: the reply ends as one cut at its longest answer
  // (OpenAI's finish_reason; Anthropic's stop_reason 'max_tokens').
  // Its usage then counts the cap the request set, as a provider's does.
  const finish = step.finish === 'length' ? 'length' : null;
  const cap = body.max_completion_tokens ?? body.max_tokens;
  const completionTokens = finish && cap ? cap : tokens(answerChars);
  return { model: body.model ?? 'mock-model', text, toolCalls, promptTokens, completionTokens, finish };
}

// Streams are built as a list of events, each { kind, data } where kind is
// 'meta' (framing), 'content' (text / argument fragments: delayed, counted by
// cutAfterChunks) or 'end' (terminal events, never sent on a cut stream).

// ------------------------------------------------------------------ OpenAI ---

const OPENAI_ERRORS = {
  400: ['invalid_request_error', null, 'Invalid request.'],
  401: ['invalid_request_error', 'invalid_api_key',
    'Incorrect API key provided: sk-mock***. You can find your API key at https://platform.openai.com/account/api-keys.'],
  403: ['invalid_request_error', 'permission_denied', 'You are not allowed to access this resource.'],
  404: ['invalid_request_error', 'model_not_found', 'The model does not exist or you do not have access to it.'],
  429: ['rate_limit_exceeded', 'rate_limit_exceeded', 'Rate limit reached for requests. Please try again later.'],
  500: ['server_error', null, 'The server had an error while processing your request. Sorry about that!'],
  503: ['server_error', null, 'The engine is currently overloaded, please try again later.'],
};

const openai = {
  toolIdPrefix: 'call_mock',

  errorBody(status, message) {
    const [type, code, defaultMessage] =
      OPENAI_ERRORS[status] ?? [status >= 500 ? 'server_error' : 'invalid_request_error', null, `Error ${status}`];
    return { error: { message: message ?? defaultMessage, type, param: null, code } };
  },

  validate: () => null,

  message(answer, meta) {
    const toolCalls = answer.toolCalls.map((c) => ({
      id: c.id, type: 'function', function: { name: c.name, arguments: c.args },
    }));
    const message = { role: 'assistant', content: answer.text || (toolCalls.length ? null : '') };
    if (toolCalls.length) message.tool_calls = toolCalls;
    const result = {
      id: `chatcmpl-mock-${meta.id}`,
      object: 'chat.completion',
      created: meta.created,
      model: answer.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finish ?? (toolCalls.length ? 'tool_calls' : 'stop') }],
    };
    if (meta.usage) result.usage = openaiUsage(answer);
    return result;
  },

  events(answer, meta, body, chunkSize) {
    const wantsUsage = body.stream_options?.include_usage === true;
    const base = { id: `chatcmpl-mock-${meta.id}`, object: 'chat.completion.chunk', created: meta.created, model: answer.model };
    const chunk = (delta, finishReason = null) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(wantsUsage ? { usage: null } : {}),
    });
    const events = [];
    const push = (kind, payload) => events.push({ kind, data: `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n` });

    push('meta', chunk({ role: 'assistant', content: '' }));
    for (const piece of chunkString(answer.text, chunkSize)) push('content', chunk({ content: piece }));
    answer.toolCalls.forEach((call, index) => {
      push('meta', chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      for (const piece of chunkString(call.args, chunkSize)) {
        push('content', chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    });
    push('end', chunk({}, answer.finish ?? (answer.toolCalls.length ? 'tool_calls' : 'stop')));
    if (wantsUsage && meta.usage) push('end', { ...base, choices: [], usage: openaiUsage(answer) });
    push('end', '[DONE]');
    return events;
  },
};

function openaiUsage(answer) {
  const { promptTokens: p, completionTokens: c } = answer;
  return { prompt_tokens: p, completion_tokens: c, total_tokens: p + c };
}

// --------------------------------------------------------------- Anthropic ---

const ANTHROPIC_ERRORS = {
  400: ['invalid_request_error', 'Invalid request.'],
  401: ['authentication_error', 'invalid x-api-key'],
  403: ['permission_error', 'Your API key does not have permission to use the specified resource.'],
  404: ['not_found_error', 'Not found.'],
  413: ['request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  429: ['rate_limit_error', 'Number of requests has exceeded your per-minute rate limit.'],
  500: ['api_error', 'Internal server error'],
  529: ['overloaded_error', 'Overloaded'],
};

const anthropic = {
  toolIdPrefix: 'toolu_mock',

  errorBody(status, message) {
    const [type, defaultMessage] =
      ANTHROPIC_ERRORS[status] ?? [status >= 500 ? 'api_error' : 'invalid_request_error', `Error ${status}`];
    return { type: 'error', error: { type, message: message ?? defaultMessage } };
  },

  validate(req, body) {
    if (!req.headers['anthropic-version']) return 'anthropic-version: header is required';
    if (body.max_tokens === undefined) return 'max_tokens: Field required';
    return null;
  },

  blocks(answer) {
    const blocks = [];
    if (answer.text || !answer.toolCalls.length) blocks.push({ type: 'text', text: answer.text });
    for (const c of answer.toolCalls) blocks.push({ type: 'tool_use', id: c.id, name: c.name, args: c.args });
    return blocks;
  },

  message(answer, meta) {
    const content = this.blocks(answer).map(({ args, ...block }) =>
      block.type === 'tool_use' ? { ...block, input: parseJson(args).value } : block);
    const result = {
      id: `msg_mock_${meta.id}`,
      type: 'message',
      role: 'assistant',
      model: answer.model,
      content,
      stop_reason: answer.finish === 'length' ? 'max_tokens' : answer.toolCalls.length ? 'tool_use' : 'end_turn',
      stop_sequence: null,
    };
    if (meta.usage) result.usage = { input_tokens: answer.promptTokens, output_tokens: answer.completionTokens };
    return result;
  },

  events(answer, meta, _body, chunkSize) {
    const events = [];
    const push = (kind, type, data = {}) =>
      events.push({ kind, data: `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n` });
    const message = {
      id: `msg_mock_${meta.id}`, type: 'message', role: 'assistant', model: answer.model,
      content: [], stop_reason: null, stop_sequence: null,
    };
    if (meta.usage) message.usage = { input_tokens: answer.promptTokens, output_tokens: 1 };
    push('meta', 'message_start', { message });

    this.blocks(answer).forEach((block, index) => {
      const isText = block.type === 'text';
      const start = isText ? { type: 'text', text: '' } : { type: 'tool_use', id: block.id, name: block.name, input: {} };
      push('meta', 'content_block_start', { index, content_block: start });
      if (index === 0) push('meta', 'ping');
      for (const piece of chunkString(isText ? block.text : block.args, chunkSize)) {
        const delta = isText ? { type: 'text_delta', text: piece } : { type: 'input_json_delta', partial_json: piece };
        push('content', 'content_block_delta', { index, delta });
      }
      push('meta', 'content_block_stop', { index });
    });

    const stopReason = answer.finish === 'length' ? 'max_tokens' : answer.toolCalls.length ? 'tool_use' : 'end_turn';
    push('end', 'message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      ...(meta.usage ? { usage: { output_tokens: answer.completionTokens } } : {}),
    });
    push('end', 'message_stop');
    return events;
  },
};

const LLM_ROUTES = { '/v1/chat/completions': openai, '/v1/messages': anthropic };

// ----------------------------------------------------------------- serving ---

/** Write stream events with delays; honour cutAfterChunks; stop if the client went away. */
async function playEvents(res, record, events, { delayMs, cutAfter }) {
  record.status = 200;
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  res.flushHeaders();
  let contentSent = 0;
  for (const [i, event] of events.entries()) {
    const cutNow = cutAfter != null && i > 0 && (contentSent >= cutAfter || event.kind === 'end');
    if (cutNow) {
      record.cut = true;
      return cutConnection(res);
    }
    if (event.kind === 'content') {
      await sleep(delayMs, res);
      contentSent++;
    }
    if (res.closed) return;
    res.write(event.data);
  }
  res.end();
}

async function sendMessage(res, record, payload, cutAfter) {
  if (cutAfter == null) return sendJson(res, 200, payload);
  const body = JSON.stringify(payload);
  record.status = 200;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.write(body.slice(0, Math.floor(body.length / 2)));
  record.cut = true;
  return cutConnection(res);
}

function startRecord(req, res, path, state) {
  const record = {
    id: ++state.requestCounter, path, method: req.method, headers: { ...req.headers },
    body: null, startedAt: Date.now(), finishedAt: null, aborted: false, cut: false, status: null, step: null,
  };
  state.log.push(record);
  res.on('close', () => {
    record.finishedAt = Date.now();
    record.status = res.headersSent ? res.statusCode : null;
    if (!res.writableEnded && !record.cut) record.aborted = true;
  });
  return record;
}

async function handleLlm(req, res, path, provider, state) {
  const record = startRecord(req, res, path, state);
  const parsed = parseJson(await readBody(req));
  record.body = parsed.value;
  const body = parsed.value;
  if (!parsed.ok || !body || typeof body !== 'object' || Array.isArray(body)) {
    const message = parsed.ok ? 'Request body must be a JSON object.' : 'We could not parse the JSON body of your request.';
    return sendJson(res, 400, provider.errorBody(400, message));
  }
  const invalid = provider.validate(req, body);
  if (invalid) return sendJson(res, 400, provider.errorBody(400, invalid));
  // A server without a structured-output mode (POST /__refuse): refused
  // before any step is used, as such servers answer.
  const refused = refusedField(body, state);
  if (refused) return sendJson(res, 400, provider.errorBody(400, refused));

  const step = state.queue.shift() ?? {};
  record.step = step;
  await sleep(step.hangMs, res);
  if (res.closed) return;

  const headers = step.retryAfter != null ? { 'retry-after': String(step.retryAfter) } : {};
  if (step.status >= 400) return sendJson(res, step.status, provider.errorBody(step.status, step.errorMessage), headers);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);

  const answer = buildAnswer(step, body, provider.toolIdPrefix, state);
  const meta = { id: record.id, created: Math.floor(Date.now() / 1000), usage: step.usage !== false };
  const stream = step.stream ?? body.stream === true;
  if (!stream) return sendMessage(res, record, provider.message(answer, meta), step.cutAfterChunks);
  const events = provider.events(answer, meta, body, step.chunkSize ?? DEFAULT_CHUNK_SIZE);
  const delayMs = step.chunkDelayMs ?? state.defaultChunkDelayMs;
  return playEvents(res, record, events, { delayMs, cutAfter: step.cutAfterChunks });
}

/** A deterministic unit vector for a text (the mock's "embedding model"). */
function mockEmbedding(text, dims) {
  let h = 2166136261;
  const v = [];
  for (let i = 0; i < dims; i++) {
    for (const ch of `${i}:${text}`) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
    v.push(((h % 2000) - 1000) / 1000);
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

/** OpenAI-compatible embeddings: `{model, input}` → `{data: [{index, embedding}], usage}`. */
async function handleEmbeddings(req, res, path, state) {
  const record = startRecord(req, res, path, state);
  const parsed = parseJson(await readBody(req));
  record.body = parsed.value;
  const body = parsed.value;
  const input = typeof body?.input === 'string' ? [body.input] : body?.input;
  if (!parsed.ok || !Array.isArray(input) || !input.every((t) => typeof t === 'string') || typeof body?.model !== 'string') {
    return sendJson(res, 400, openai.errorBody(400, 'Expected {"model": string, "input": string or [string]}.'));
  }
  const step = state.queue.shift() ?? {};
  record.step = step;
  await sleep(step.hangMs, res);
  if (res.closed) return;
  const headers = step.retryAfter != null ? { 'retry-after': String(step.retryAfter) } : {};
  if (step.status >= 400) return sendJson(res, step.status, openai.errorBody(step.status, step.errorMessage), headers);
  const dims = Number.isInteger(body.dimensions) && body.dimensions > 0 ? body.dimensions : 16;
  const chars = input.reduce((n, t) => n + t.length, 0);
  return sendJson(res, 200, {
    object: 'list',
    model: body.model,
    data: input.map((t, index) => ({ object: 'embedding', index, embedding: mockEmbedding(t, dims) })),
    usage: { prompt_tokens: tokens(chars), total_tokens: tokens(chars) },
  });
}

async function handleControl(req, res, route, state) {
  switch (route) {
    case 'GET /__health':
      return sendJson(res, 200, { ok: true });
    case 'GET /__log':
      return sendJson(res, 200, state.log);
    case 'POST /__reset':
      await readBody(req);
      resetState(state);
      return sendJson(res, 200, { ok: true });
    // {"fields": ["json_schema", "json_object", "tool_choice"]}: from now on
    // (until /__reset) requests asking for these are refused with a 400.
    case 'POST /__refuse': {
      const { ok, value } = parseJson(await readBody(req));
      if (!ok || !Array.isArray(value?.fields)) {
        return sendJson(res, 400, { error: { message: 'Expected a JSON body {"fields":[...]}', type: 'invalid_request_error' } });
      }
      for (const f of value.fields) state.refuse.add(String(f));
      return sendJson(res, 200, { ok: true, refused: [...state.refuse] });
    }
    case 'POST /__script': {
      const { ok, value } = parseJson(await readBody(req));
      if (!ok || !Array.isArray(value?.steps)) {
        return sendJson(res, 400, { error: { message: 'Expected a JSON body {"steps":[...]}', type: 'invalid_request_error' } });
      }
      addSteps(state, value.steps);
      return sendJson(res, 200, { ok: true, queued: state.queue.length });
    }
    default:
      return sendJson(res, 404, { error: { message: `No route for ${route}`, type: 'not_found_error' } });
  }
}

function sendPreflight(req, res) {
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] || DEFAULT_ALLOWED_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  if (req.headers['access-control-request-private-network'] === 'true') {
    res.setHeader('Access-Control-Allow-Private-Network', 'true');
  }
  res.writeHead(204);
  res.end();
}

// ------------------------------------------------------------- search ---

/** The words of a query, lowercased. */
const words = (q) => q.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);

/**
 * SearXNG's JSON API: three results for any query, each a page of this
 * server whose text repeats the query's words (so a reader can tell it
 * came from the search). Logged like every request (`search` with `q`).
 * format other than json answers 403, as a SearXNG without it enabled.
 */
function handleSearch(req, res, url, state) {
  const q = url.searchParams.get('q') || '';
  state.log.push({ n: ++state.requestCounter, path: '/search', q, format: url.searchParams.get('format') });
  if (url.searchParams.get('format') !== 'json') return sendJson(res, 403, { error: 'format not allowed' });
  const base = `http://${req.headers.host}`;
  const slug = words(q).join('-') || 'nothing';
  const results = [1, 2, 3].map((i) => ({
    url: `${base}/pages/${slug}-${i}`,
    title: `Result ${i} for ${q}`,
    content: `What page ${i} says about ${words(q).join(' ')}.`,
    engine: 'mock',
  }));
  return sendJson(res, 200, { query: q, number_of_results: results.length, results });
}

/** A page a search result points at: HTML with a script that must not be read. */
function handlePage(req, res, path, state) {
  state.log.push({ n: ++state.requestCounter, path });
  const topic = decodeURIComponent(path.slice('/pages/'.length)).replace(/-/g, ' ');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<html><head><script>document.title = 'x'</script></head><body><h1>${topic}</h1><p>Facts about ${topic} &amp; more.</p></body></html>`);
}

async function handleRequest(req, res, state) {
  req.on('error', () => {});
  res.on('error', () => {});
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'retry-after');

  const path = new URL(req.url, 'http://localhost').pathname;
  if (req.method === 'OPTIONS') return sendPreflight(req, res);
  const provider = LLM_ROUTES[path];
  if (provider && req.method === 'POST') return handleLlm(req, res, path, provider, state);
  if (path === '/v1/embeddings' && req.method === 'POST') return handleEmbeddings(req, res, path, state);
  if (path === '/search' && req.method === 'GET') return handleSearch(req, res, new URL(req.url, 'http://localhost'), state);
  if (path.startsWith('/pages/') && req.method === 'GET') return handlePage(req, res, path, state);
  return handleControl(req, res, `${req.method} ${path}`, state);
}

function addSteps(state, steps) {
  for (const step of steps) state.queue.push(step && typeof step === 'object' ? step : {});
}

/** Why a request is refused for a structured-output field the server "lacks" (see POST /__refuse). */
function refusedField(body, state) {
  const format = body.response_format?.type;
  if (format && state.refuse.has(format)) {
    return `Invalid parameter: 'response_format' of type '${format}' is not supported with this model.`;
  }
  if (body.tool_choice?.type === 'tool' && state.refuse.has('tool_choice')) {
    return 'tool_choice of type tool is not supported by this model.';
  }
  return null;
}

function resetState(state) {
  state.refuse.clear();
  state.queue.length = 0;
  state.log.length = 0;
  state.requestCounter = 0;
  state.toolCallCounter = 0;
}

// -------------------------------------------------------------- public API ---

/**
 * Start the mock server. Returns { url, port, close(), script(steps), reset(), log() }.
 * `url` has no trailing slash; clients use `${url}/v1` as their base URL.
 */
export async function startMockLlm({ port = 0, host = '127.0.0.1', defaultChunkDelayMs = 40 } = {}) {
  const state = { queue: [], log: [], requestCounter: 0, toolCallCounter: 0, defaultChunkDelayMs, refuse: new Set() };
  const server = http.createServer((req, res) => {
    handleRequest(req, res, state).catch((err) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err?.message ?? err), type: 'mock_server_error' } });
      else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = server.address().port;

  return {
    url: `http://${host}:${actualPort}`,
    port: actualPort,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    script: (steps) => addSteps(state, Array.isArray(steps) ? steps : [steps]),
    reset: () => resetState(state),
    refuse: (fields) => fields.forEach((f) => state.refuse.add(String(f))),
    log: () => structuredClone(state.log),
  };
}

// --------------------------------------------------------------------- CLI ---

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--port') opts.port = Number(value), i++;
    else if (flag === '--host') opts.host = value, i++;
    else if (flag === '--delay') opts.defaultChunkDelayMs = Number(value), i++;
  }
  return opts;
}

function isMainModule() {
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMainModule()) {
  const mock = await startMockLlm(parseArgs(process.argv.slice(2)));
  process.stdout.write(`MOCK_LLM_URL=${mock.url}\n`);
  const shutdown = async () => {
    await mock.close();
    process.exit(0);
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
