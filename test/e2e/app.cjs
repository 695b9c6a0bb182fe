'use strict';
// An application for the end-to-end tests, run exactly as a user runs theirs:
//   node --require @lanewatch/instrumentation/register app.cjs
// with the OTEL_* and LANEWATCH_LANE_MAP variables. It knows nothing of lanewatch's telemetry: it makes
// streaming calls with global fetch and reads every body to its end. The test drives it over a small
// HTTP control API on 127.0.0.1 (an incoming server, which the instrumentation does not track):
//   POST /calls  {call: {url, headers, body}, count, concurrency}  → {statuses, failures, ms}
//   POST /admit  {store, jobs: [{id, deadline_s, secret_class?}]}  → {decisions: [{admitted, lane, reason}]}
//   POST /memory → {heapUsed, rss} after a full GC when started with --expose-gc (live heap, not garbage)
//   POST /exit   → closes the control server; the process then ends by itself (register flushes)
// It prints one line when listening, `control port N`, and one line per admission decision (the
// processor's decision log); never a request, a response or a header.
const http = require('node:http');

/** One call: POST, then read the body to its end, as an SDK's stream iterator does. */
async function callOnce(call) {
  const response = await fetch(call.url, { method: 'POST', headers: call.headers, body: call.body });
  const reader = response.body.getReader();
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
  }
  return response.status;
}

async function runCalls({ call, count, concurrency }) {
  const statuses = {};
  const failures = {};
  let next = 0;
  const started = performance.now();
  async function worker() {
    while (next < count) {
      next++;
      try {
        const status = await callOnce(call);
        statuses[status] = (statuses[status] ?? 0) + 1;
      } catch (error) {
        // What the application would see: a class, never the message (it may quote a URL).
        const kind = error?.cause?.code ?? error?.code ?? error?.name ?? 'unknown';
        failures[kind] = (failures[kind] ?? 0) + 1;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return { statuses, failures, ms: performance.now() - started };
}

let admission;
async function admitJobs({ store, jobs }) {
  // The admission controller of another service: hints read from the shared store, decisions counted
  // on the global meter provider, which `register` started.
  const { createAdmissionController, createLaneReader } = await import('@lanewatch/processor');
  if (admission === undefined || admission.store !== store) {
    const reader = await createLaneReader(store);
    await admission?.reader.close();
    admission = {
      store,
      reader,
      controller: createAdmissionController({ reader, log: (line) => process.stdout.write(`${line}\n`) }),
    };
  }
  const decisions = [];
  for (const job of jobs) {
    const decision = await admission.controller.admit(job);
    decisions.push({ admitted: decision.admitted, lane: decision.lane ?? null, reason: decision.reason });
  }
  return { decisions };
}

function readJson(request) {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      try {
        resolve(JSON.parse(text || '{}'));
      } catch (error) {
        reject(error);
      }
    });
    request.on('error', reject);
  });
}

async function memory() {
  globalThis.gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss, collected: typeof globalThis.gc === 'function' };
}

const routes = { '/calls': runCalls, '/admit': admitJobs, '/memory': memory };

const server = http.createServer(async (request, response) => {
  try {
    if (request.method === 'POST' && request.url === '/exit') {
      response.writeHead(200).end('{}');
      server.close();
      await admission?.reader.close();
      return;
    }
    const route = request.method === 'POST' ? routes[request.url] : undefined;
    if (route === undefined) {
      response.writeHead(404).end('{}');
      return;
    }
    const result = await route(await readJson(request));
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
  } catch (error) {
    response.writeHead(500, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: error?.name ?? 'Error' }));
  }
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`control port ${server.address().port}\n`);
});
