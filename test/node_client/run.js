'use strict';
// The published Fetchq 4 Node.js client (npm fetchq 4.1.1), unchanged, against
// the fetchq extension, with the client's maintenance daemon switched off:
// promotion of planned and rescheduled documents is the server's job.
//
//   NODE_PATH=<dir with fetchq installed> node run.js DBNAME
//
// Env: PGHOST (host or socket directory), PGPORT, PGUSER [, PGPASSWORD].
// Exits 0 when every check passed, 1 on a mismatch or on the deadline.
const util = require('util');
const pg = require('pg');
const createFetchq = require('fetchq');

const db = process.argv[2];
if (!db) {
  console.error('usage: node run.js DBNAME');
  process.exit(2);
}

const DEADLINE_MS = Number(process.env.NODE_CLIENT_DEADLINE_MS || 100000);
const PROCESS_MS = Number(process.env.NODE_CLIENT_PROCESS_MS || 60000);
const MAIN = 'nc_main';
const SIDE = 'nc_side';
const MAX_ATTEMPTS = 3;
// planned an hour ahead, then upserted to "now"
const LATE = 'side-late';
// pushed while the side queue is switched off
const PAUSED = 'side-paused';
const LATE_MAX_MS = 1000;
const LOCK_MS = 2000;
const LOCK = `${LOCK_MS / 1000} seconds`;
const STATUS = { killed: -1, planned: 0, pending: 1, active: 2, completed: 3 };
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;

// ---------------------------------------------------------------- reporting

const failures = [];
let passed = 0;
// jsonb keeps its own key order: compare with sorted keys.
const canonical = (v) =>
  v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]))
    : Array.isArray(v)
    ? v.map(canonical)
    : v;
const show = (v) => util.inspect(v, { depth: 6, breakLength: Infinity });
const isObject = (v) => v !== null && typeof v === 'object';
// Where two values differ: ["path: expected X, got Y", ...].
function differences(got, want, path = '') {
  if (util.isDeepStrictEqual(got, want)) return [];
  if (!isObject(got) || !isObject(want) || Array.isArray(got) !== Array.isArray(want))
    return [`${path || 'value'}: expected ${show(want)}, got ${show(got)}`];
  const keys = [...new Set([...Object.keys(want), ...Object.keys(got)])];
  return keys.flatMap((k) => differences(got[k], want[k], Array.isArray(want) ? `${path}[${k}]` : `${path}.${k}`));
}
function check(what, got, want) {
  const diff = differences(got, want);
  if (diff.length === 0) passed += 1;
  else failures.push(`${what}: ${diff.join('; ')}`);
}
function fail(what) {
  failures.push(what);
}

// The whole run is bounded, whatever hangs (a client call, end()).
const watchdog = setTimeout(() => {
  console.error(`FAIL: deadline of ${DEADLINE_MS} ms reached at ${elapsed()}`);
  failures.forEach((f) => console.error(`FAIL: ${f}`));
  process.exit(1);
}, DEADLINE_MS);
watchdog.unref();

// ------------------------------------------------------------ connection

function connectionString() {
  const host = process.env.PGHOST || 'localhost';
  const port = process.env.PGPORT || '5432';
  const user = encodeURIComponent(process.env.PGUSER || 'postgres');
  const pass = process.env.PGPASSWORD ? `:${encodeURIComponent(process.env.PGPASSWORD)}` : '';
  const base = `postgresql://${user}${pass}@`;
  // A socket directory goes in the host parameter (pg-connection-string).
  if (host.startsWith('/'))
    return `${base}localhost:${port}/${encodeURIComponent(db)}?host=${encodeURIComponent(host)}`;
  return `${base}${host}:${port}/${encodeURIComponent(db)}`;
}
const CONN = connectionString();

// Checks read the tables through their own pool, never the client's.
const sql = new pg.Pool({ connectionString: CONN, max: 2 });
const rows = async (text, values) => (await sql.query(text, values)).rows;

// ------------------------------------------------------------ test data

// Every payload carries all of these: quotes of both kinds (single, doubled,
// tripled), backslashes, control characters, unicode, SQL and the {DATA}
// placeholder of Fetchq 4's bulk push.
const TRICKY = [
  "it's",
  "O''Reilly",
  "'''",
  '"double" and \'single\'',
  'back\\slash \\n is not a newline',
  'C:\\temp\\new\\',
  "\\'",
  'line1\nline2\ttab\r',
  'héllo wörld ✓ 日本語 🚀 Ω≈ç√',
  "'); DROP TABLE fetchq.queues; --",
  '{DATA}',
  '$1 $$ %s %L %I',
  "E'\\x41'",
];

function payloadFor(tag, i) {
  return {
    tag,
    text: TRICKY[i % TRICKY.length],
    all: TRICKY,
    "it's a key": "O'Neil",
    nested: { 'quote"key': ["a'b", "c''d", 1.5, true, null, {}], 'back\\slash': '\\\\' },
    n: i,
  };
}
const DONE = "done: it's ✓ \\ \"ok\"";
const WHY = "can't \\ \"do\" ✓";

// Documents of the main queue: what the handler does at each pick.
// complete | reject | throw | reschedule | reschedule-date | kill | drop |
// drop-msg | fanout | log-complete
const mainSpecs = new Map();
function spec(subject, plan, extra = {}) {
  mainSpecs.set(subject, { subject, plan, picks: [], notBefore: 0, ...extra });
}
TRICKY.forEach((_, i) => spec(`cpl-${i}`, ['complete']));
spec('cpl-plan-1s', ['complete'], { next: '+1 second', delayMs: 1000 });
spec('cpl-plan-2s', ['complete'], { next: '+2 seconds', delayMs: 2000 });
spec('cpl-plan-date', ['complete'], { nextDateMs: 1500, delayMs: 1500 });
spec('rej-always', ['reject', 'reject', 'reject']);
spec('rej-once', ['reject', 'complete']);
spec('rej-planned', ['reject', 'complete'], { next: '+1 second', delayMs: 1000 });
spec('throw-always', ['throw', 'throw', 'throw']);
spec('res-str', ['reschedule', 'complete']);
spec('res-date', ['reschedule-date', 'complete']);
spec('kill-msg', ['kill']);
spec('drop-plain', ['drop']);
spec('drop-msg', ['drop-msg']);
spec('fan-out', ['fanout']);
spec('log-complete', ['log-complete']);
spec('ünïcödé-✓-日本', ['complete']);
// pushed with the client's pushMany (Fetchq 4's tuple form of doc_push)
spec('pm-now-a', ['complete'], { many: 'now', priority: 7 });
spec('pm-now-b', ['reject', 'complete'], { many: 'now', priority: 0 });
spec('pm-plan-a', ['complete'], { many: 'plan', priority: 2, delayMs: 1000 });
spec('pm-plan-b', ['complete'], { many: 'plan', priority: 0, delayMs: 1000 });
// doc.append (subject chosen by the server) is added once its subject is known

// Documents that fan-out writes into the side queue, by subject (the
// appended one is added when known), with the payload each must carry.
const sideExpect = new Map();
const sideSeen = new Map();
const sideNotBefore = new Map();

// ------------------------------------------------------------ the client

// The client logs the errors it swallows (a failed pick, complete, logError):
// every one of them fails the test.
const clientErrors = [];
const ignore = () => {};
const logger = {
  instance: {
    error: (...args) => clientErrors.push(args.map((a) => (a instanceof Error ? a.stack : show(a))).join(' ')),
    info: ignore,
    verbose: ignore,
    debug: ignore,
    silly: ignore,
  },
};

const notified = { cpl: new Set(), kll: new Set() };
const events = []; // what the handlers did, in order: {queue, subject, action, ...}

function simulate(plan) {
  // Fetchq 4 semantics: pick adds an attempt; complete, kill and reschedule
  // reset attempts; reject kills once attempts reached max_attempts.
  let status = STATUS.pending;
  let attempts = 0;
  let iterations = 0;
  let dropped = false;
  for (const action of plan) {
    attempts += 1;
    iterations += 1;
    if (['complete', 'fanout', 'log-complete'].includes(action)) {
      status = STATUS.completed;
      attempts = 0;
    } else if (action === 'reject' || action === 'throw') {
      status = attempts >= MAX_ATTEMPTS ? STATUS.killed : STATUS.pending;
    } else if (action.startsWith('reschedule')) {
      status = STATUS.planned;
      attempts = 0;
    } else if (action === 'kill') {
      status = STATUS.killed;
      attempts = 0;
    } else if (action.startsWith('drop')) {
      dropped = true;
    }
  }
  return { status, attempts, iterations, dropped };
}

async function mainHandler(doc, ctx) {
  const s = mainSpecs.get(doc.subject);
  const at = Date.now();
  if (!s) {
    fail(`main worker picked an unknown document ${show(doc.subject)}`);
    return doc.kill();
  }
  s.picks.push({ at, attempts: doc.attempts, payload: doc.payload });
  const n = s.picks.length;
  const action = s.plan[n - 1];
  check(`${s.subject}: attempts seen at pick ${n}`, doc.attempts, s.expectAttempts[n - 1]);
  check(`${s.subject}: payload seen at pick ${n}`, doc.payload, s.payload);
  if (at < s.notBefore) fail(`${s.subject}: pick ${n} came ${s.notBefore - at} ms before the document was due`);
  s.dueLatency = s.dueLatency || [];
  if (s.notBefore) s.dueLatency.push(at - s.notBefore);
  s.notBefore = 0;
  if (action === undefined) {
    fail(`${s.subject}: picked ${n} times, planned ${s.plan.length}`);
    return doc.kill();
  }
  events.push({ queue: MAIN, subject: s.subject, action, pick: n });
  // A rejected document is due again when its lock would have expired.
  if (action === 'reject' || action === 'throw') s.notBefore = at + LOCK_MS - 100;
  switch (action) {
    case 'complete':
      s.payload = { ...doc.payload, done: DONE };
      return doc.complete({ payload: s.payload });
    case 'reject':
      s.logs.push({ message: `rejected at attempt ${n}`, details: { attempt: n, why: WHY }, ref_id: `ref-${n}` });
      return doc.reject(`rejected at attempt ${n}`, { details: { attempt: n, why: WHY }, refId: `ref-${n}` });
    case 'throw': {
      const message = `boom: it's "broken" \\ ✓ ${n}`;
      s.logs.push({ message: 'worker exception', details: { message, err: '{}' }, ref_id: '*' });
      throw new Error(message);
    }
    case 'reschedule':
      s.payload = { ...doc.payload, rescheduled: "it's later" };
      s.notBefore = Date.now() + 1000;
      s.logs.push({ message: 'see you in a second', details: {}, ref_id: 'null' });
      return doc.reschedule('+1 second', { payload: s.payload, message: 'see you in a second' });
    case 'reschedule-date':
      s.notBefore = Date.now() + 1500;
      return doc.reschedule(new Date(s.notBefore));
    // The client's logError pastes a missing refId as the text 'null' (as it
    // did with Fetchq 4), and its reject a missing one as 'undefined'.
    case 'kill':
      s.logs.push({ message: 'killed by the handler', details: {}, ref_id: 'null' });
      return doc.kill('killed by the handler');
    case 'drop':
      return doc.drop();
    case 'drop-msg':
      s.logs.push({ message: 'dropped with a log', details: {}, ref_id: 'null' });
      return doc.drop({ message: 'dropped with a log' });
    case 'log-complete': {
      const details = { note: WHY };
      s.logs.push({ message: 'logged by the handler', details, ref_id: 'null' });
      check('doc.logError() result', await doc.logError('logged by the handler', details), true);
      return doc.complete();
    }
    case 'fanout':
      await fanOut(doc, ctx);
      return doc.complete();
    default:
      throw new Error(`test bug: unknown action ${action}`);
  }
}

// Writes into the side queue with pushMany, append, upsert (new and
// existing) and forward; each document must reach the side worker intact.
async function fanOut(doc, ctx) {
  const client = ctx.fetchq;
  const p1 = payloadFor('side-pm-1', 1);
  const p2 = payloadFor('side-pm-2', 2);
  const due = Date.now() + 1000;
  const many = await client.doc.pushMany(SIDE, {
    nextIteration: '+1 second',
    docs: [
      ['side-pm-1', 5, p1],
      ['side-pm-2', 0, p2],
    ],
  });
  check('pushMany into the side queue', many, { queued_docs: 2 });
  sideExpect.set('side-pm-1', { payload: p1, priority: 5 });
  sideExpect.set('side-pm-2', { payload: p2, priority: 0 });
  sideNotBefore.set('side-pm-1', due);
  sideNotBefore.set('side-pm-2', due);

  const p3 = payloadFor('side-append', 3);
  const appended = await client.doc.append(SIDE, p3, { priority: 3 });
  if (!appended || typeof appended.subject !== 'string' || appended.subject.length !== 36)
    fail(`doc.append() returned ${show(appended)}, expected a uuid subject`);
  else sideExpect.set(appended.subject, { payload: p3, priority: 3 });

  const p4 = payloadFor('side-up-new', 4);
  check('doc.upsert() of a new document', await client.doc.upsert(SIDE, { subject: 'side-up-new', payload: p4 }), {
    queued_docs: 1,
    updated_docs: 0,
  });
  sideExpect.set('side-up-new', { payload: p4, priority: 0 });

  // planned an hour ahead before the client started: the upsert makes it due now
  const p5 = payloadFor('side-up-existing', 5);
  check(
    'doc.upsert() of an existing planned document',
    await client.doc.upsert(SIDE, { subject: 'side-up-existing', payload: p5, priority: 4 }),
    { queued_docs: 0, updated_docs: 1 },
  );
  sideExpect.set('side-up-existing', { payload: p5, priority: 4, upsertedAt: Date.now() });

  const forwarded = { ...doc.payload, forwarded: "it's forwarded" };
  check('doc.forward()', await doc.forward(SIDE, { forwarded: "it's forwarded" }), { queued_docs: 1 });
  sideExpect.set(doc.subject, { payload: forwarded, priority: 0 });
  events.push({ queue: SIDE, action: 'fanout-done' });
}

async function sideHandler(doc) {
  const at = Date.now();
  const e = sideExpect.get(doc.subject);
  sideSeen.set(doc.subject, (sideSeen.get(doc.subject) || 0) + 1);
  if (!e) {
    fail(`side worker picked an unexpected document ${show(doc.subject)}`);
    return doc.kill();
  }
  check(`side ${doc.subject}: payload seen`, doc.payload, e.payload);
  check(`side ${doc.subject}: priority seen`, doc.priority, e.priority);
  const notBefore = sideNotBefore.get(doc.subject);
  if (notBefore && at < notBefore) fail(`side ${doc.subject}: picked ${notBefore - at} ms before it was due`);
  e.pickedAt = at;
  return doc.complete();
}

const queues = [
  {
    name: MAIN,
    enableNotifications: true,
    maxAttempts: MAX_ATTEMPTS,
    logsRetention: '1h',
    currentVersion: 0,
    workerHandler: mainHandler,
    workerOptions: { concurrency: 2, batch: 2, lock: LOCK, delay: 20, sleep: 500 },
  },
  {
    name: SIDE,
    enableNotifications: false,
    maxAttempts: 5,
    currentVersion: 0,
    maintenance: { mnt: { delay: '100ms', duration: '1m', limit: 500 } },
    workerHandler: sideHandler,
    workerOptions: { concurrency: 1, batch: 5, lock: '1 minute', delay: 20, sleep: 500 },
  },
];

// The queue settings without handlers, and is_active set (another client).
const withActive = (isActive) =>
  queues.map(({ workerHandler, ...rest }) => (rest.name === SIDE ? { ...rest, isActive } : rest));

function newClient(withQueues) {
  return createFetchq({
    connectionString: CONN,
    skipMaintenance: true, // the server promotes and re-queues (fetchq background workers)
    logger,
    queues: withQueues,
    __dangerouslyAwaitWithoutReason: 100,
    connectionRetry: { retries: 3, minTimeout: 200, maxTimeout: 1000 },
    initializationRetry: { retries: 0 },
  });
}

// Every statement the client sends, to prove it never runs maintenance.
function spy(client) {
  const sent = [];
  const query = client.pool.query.bind(client.pool);
  client.pool.query = (...args) => {
    sent.push(typeof args[0] === 'string' ? args[0] : args[0] && args[0].text);
    return query(...args);
  };
  return sent;
}

// ------------------------------------------------------------ phases

async function pushMainDocuments(client) {
  for (const s of mainSpecs.values()) {
    s.payload = payloadFor(s.subject, [...mainSpecs.keys()].indexOf(s.subject));
    s.logs = [];
  }
  for (const s of mainSpecs.values()) {
    if (s.many) continue;
    let nextIteration;
    if (s.next) nextIteration = s.next;
    if (s.nextDateMs) nextIteration = new Date(Date.now() + s.nextDateMs);
    const before = Date.now();
    const res = await client.doc.push(MAIN, { subject: s.subject, payload: s.payload, nextIteration });
    check(`doc.push(${s.subject})`, res, { queued_docs: 1 });
    if (s.delayMs) s.notBefore = before + s.delayMs;
  }
  // Fetchq 4's bulk form: the client's "priority" is the version and the
  // tuple's second element the priority.
  for (const when of ['now', 'plan']) {
    const group = [...mainSpecs.values()].filter((s) => s.many === when);
    const before = Date.now();
    const res = await client.doc.pushMany(MAIN, {
      nextIteration: when === 'plan' ? '+1 second' : undefined,
      docs: group.map((s) => [s.subject, s.priority, s.payload]),
    });
    check(`doc.pushMany(${when})`, res, { queued_docs: group.length });
    if (when === 'plan') group.forEach((s) => (s.notBefore = before + s.delayMs));
  }
  // doc.append: the server names it
  const appendedPayload = payloadFor('appended', 99);
  const res = await client.doc.append(MAIN, appendedPayload, { priority: 1 });
  if (!res || typeof res.subject !== 'string' || res.subject.length !== 36) {
    fail(`doc.append() returned ${show(res)}, expected a uuid subject`);
  } else {
    mainSpecs.set(res.subject, {
      subject: res.subject,
      plan: ['reject', 'complete'],
      picks: [],
      notBefore: 0,
      payload: appendedPayload,
      logs: [],
      priority: 1,
    });
  }
  // re-pushing an existing subject queues nothing
  check('doc.push() of an existing subject', await client.doc.push(MAIN, { subject: 'cpl-0', payload: {} }), {
    queued_docs: 0,
  });
  for (const s of mainSpecs.values()) {
    s.expected = simulate(s.plan);
    let attempts = 0;
    s.expectAttempts = s.plan.map((a) => {
      attempts += 1;
      const seen = attempts;
      if (!['reject', 'throw'].includes(a)) attempts = 0;
      return seen;
    });
  }
}

async function checkPushed() {
  const got = await rows(
    `SELECT subject, status, priority, version, payload FROM fetchq_data.${MAIN}__docs ORDER BY subject`,
  );
  check('documents in the main queue after the pushes', got.length, mainSpecs.size);
  for (const r of got) {
    const s = mainSpecs.get(r.subject);
    if (!s) {
      fail(`unexpected document ${show(r.subject)} in ${MAIN}`);
      continue;
    }
    const planned = Boolean(s.delayMs);
    check(`${r.subject}: status after push`, r.status, planned ? STATUS.planned : STATUS.pending);
    check(`${r.subject}: stored payload equals the pushed one`, r.payload, s.payload);
    check(`${r.subject}: priority`, r.priority, s.priority || 0);
    check(`${r.subject}: version`, r.version, 0);
  }
}

async function pendingWork() {
  const left = [];
  const main = await rows(`SELECT subject, status, attempts FROM fetchq_data.${MAIN}__docs`);
  const byMain = new Map(main.map((r) => [r.subject, r]));
  for (const s of mainSpecs.values()) {
    const r = byMain.get(s.subject);
    if (s.picks.length < s.plan.length) left.push(`${s.subject} picked ${s.picks.length}/${s.plan.length}`);
    else if (s.expected.dropped ? r !== undefined : !r || r.status !== s.expected.status)
      left.push(`${s.subject} status ${r ? r.status : 'gone'}`);
  }
  const side = await rows(`SELECT subject, status FROM fetchq_data.${SIDE}__docs`);
  if (!events.some((e) => e.action === 'fanout-done')) left.push('fan-out not done yet');
  for (const r of side) if (r.status !== STATUS.completed) left.push(`side ${r.subject} status ${r.status}`);
  for (const subject of sideExpect.keys()) if (!sideSeen.has(subject)) left.push(`side ${subject} not picked`);
  for (const s of mainSpecs.values()) {
    if (s.expected.status === STATUS.completed && !notified.cpl.has(s.subject)) left.push(`no cpl notification for ${s.subject}`);
    if (s.expected.status === STATUS.killed && !s.expected.dropped && !notified.kll.has(s.subject))
      left.push(`no kll notification for ${s.subject}`);
  }
  return left;
}

async function waitForTheEnd() {
  const deadline = Date.now() + PROCESS_MS;
  let left = [];
  for (;;) {
    left = await pendingWork();
    if (left.length === 0) return;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`not finished after ${PROCESS_MS} ms: ${left.join('; ')}`);
}

async function checkFinalState(client) {
  const main = await rows(
    `SELECT subject, status, attempts, iterations, payload FROM fetchq_data.${MAIN}__docs ORDER BY subject`,
  );
  const byMain = new Map(main.map((r) => [r.subject, r]));
  for (const s of mainSpecs.values()) {
    const r = byMain.get(s.subject);
    if (s.expected.dropped) {
      check(`${s.subject}: dropped`, r, undefined);
      continue;
    }
    if (!r) {
      fail(`${s.subject}: missing from ${MAIN}`);
      continue;
    }
    check(`${s.subject}: final status`, r.status, s.expected.status);
    check(`${s.subject}: final attempts`, r.attempts, s.expected.attempts);
    check(`${s.subject}: final iterations`, Number(r.iterations), s.expected.iterations);
    check(`${s.subject}: final payload`, r.payload, s.payload);
    check(`${s.subject}: picks`, s.picks.length, s.plan.length);
  }
  check(`documents left in ${MAIN}`, main.length, [...mainSpecs.values()].filter((s) => !s.expected.dropped).length);

  // The log rows: what the handlers asked for, nothing else.
  const logs = await rows(`SELECT subject, message, details, ref_id FROM fetchq_data.${MAIN}__logs`);
  const key = (l) => JSON.stringify([l.subject, l.message, l.ref_id, canonical(l.details)]);
  const wantLogs = [];
  for (const s of mainSpecs.values()) for (const l of s.logs) wantLogs.push({ subject: s.subject, ...l });
  check(`${MAIN} log rows`, logs.map(key).sort(), wantLogs.map(key).sort());
  const trace = await client.trace('rej-always');
  check("trace('rej-always'): the document and its 3 log rows", trace.length, 4);

  const side = await rows(`SELECT subject, status, attempts, iterations, priority, payload FROM fetchq_data.${SIDE}__docs`);
  check(`documents in ${SIDE}`, side.map((r) => r.subject).sort(), [...sideExpect.keys()].sort());
  for (const r of side) {
    const e = sideExpect.get(r.subject);
    if (!e) continue;
    check(`side ${r.subject}: final status`, r.status, STATUS.completed);
    check(`side ${r.subject}: final payload`, r.payload, e.payload);
    check(`side ${r.subject}: priority`, r.priority, e.priority);
    check(`side ${r.subject}: picked once`, sideSeen.get(r.subject), 1);
  }

  // Counters through the client's metric API.
  const want = { cnt: 0, pnd: 0, pln: 0, act: 0, cpl: 0, kll: 0, ent: 0, drp: 0, pkd: 0, prc: 0, res: 0, rej: 0, orp: 0, err: 0 };
  for (const s of mainSpecs.values()) {
    want.ent += 1;
    want.cnt += s.expected.dropped ? 0 : 1;
    let attempts = 0;
    for (const a of s.plan) {
      attempts += 1;
      want.pkd += 1;
      want.prc += 1;
      if (['complete', 'fanout', 'log-complete'].includes(a)) want.cpl += 1;
      if (a === 'kill') want.kll += 1;
      if (a.startsWith('drop')) want.drp += 1;
      if (a.startsWith('reschedule')) want.res += 1;
      if (a === 'reject' || a === 'throw') {
        want.rej += 1;
        want.err += 1;
        if (attempts >= MAX_ATTEMPTS) want.kll += 1;
      } else attempts = 0;
    }
  }
  const zeroNulls = (o) => Object.fromEntries(Object.keys(want).map((k) => [k, o[k] === null ? 0 : o[k]]));
  check(`metric.getCommon('${MAIN}')`, zeroNulls(await client.metric.getCommon(MAIN)), want);
  const n = side.length;
  check(`metric.getCommon('${SIDE}')`, zeroNulls(await client.metric.getCommon(SIDE)), {
    ...Object.fromEntries(Object.keys(want).map((k) => [k, 0])),
    cnt: n,
    ent: n,
    cpl: n,
    pkd: n,
    prc: n,
  });
  const cpl = await client.metric.get(MAIN, 'cpl');
  check(`metric.get('${MAIN}', 'cpl')`, [cpl.current_value, cpl.does_exists], [want.cpl, true]);
  const computed = await client.metric.compute(MAIN);
  check(`metric.compute('${MAIN}') (counted in the table)`, computed, {
    cnt: want.cnt,
    pln: 0,
    pnd: 0,
    act: 0,
    kll: [...mainSpecs.values()].filter((s) => s.expected.status === STATUS.killed && !s.expected.dropped).length,
    cpl: [...mainSpecs.values()].filter((s) => s.expected.status === STATUS.completed && !s.expected.dropped).length,
  });
  const all = await client.metric.getAll();
  check('metric.getAll() lists both queues', all.map((r) => r.queue).filter((q) => q === MAIN || q === SIDE).sort(), [MAIN, SIDE]);
}

async function checkQueueSettings(client) {
  const list = await client.queue.list();
  const q = (name) => list.find((r) => r.name === name) || {};
  check(`${MAIN} settings`, [q(MAIN).max_attempts, q(MAIN).logs_retention, q(MAIN).current_version, q(MAIN).is_active], [
    MAX_ATTEMPTS,
    '1h',
    0,
    true,
  ]);
  check(`${SIDE} settings`, [q(SIDE).max_attempts, q(SIDE).logs_retention, q(SIDE).current_version], [5, '24h', 0]);
  const got = await client.queue.get(MAIN, { attributes: ['name', 'max_attempts'] });
  check(`queue.get('${MAIN}')`, got, { name: MAIN, max_attempts: MAX_ATTEMPTS });
  const triggers = await rows(
    `SELECT tgrelid::regclass::text AS rel, count(*)::int AS n FROM pg_trigger
      WHERE tgrelid IN ('fetchq_data.${MAIN}__docs'::regclass, 'fetchq_data.${SIDE}__docs'::regclass)
        AND NOT tgisinternal GROUP BY 1 ORDER BY 1`,
  );
  check('notify triggers: on the main queue only', triggers.map((t) => t.rel), [`fetchq_data.${MAIN}__docs`]);
  const jobs = await rows(`SELECT settings FROM fetchq.jobs WHERE queue = $1 AND task = 'mnt'`, [SIDE]);
  check(`queue maintenance settings written to fetchq.jobs for ${SIDE}`, jobs.map((j) => j.settings), [
    { delay: '100ms', duration: '1m', limit: 500 },
  ]);
}

// doc_upsert moves a document planned an hour ahead to now, while nothing
// else is due: the server must promote it about as soon as Fetchq 4's client
// maintenance would have (every second or so), not at its next naptime.
async function upsertLate(client) {
  await client.doc.push(SIDE, { subject: LATE, payload: payloadFor('late-old', 7), nextIteration: '+1 hour' });
  const payload = payloadFor(LATE, 8);
  sideExpect.set(LATE, { payload, priority: 0 });
  const at = Date.now();
  check(`doc.upsert(${LATE}) to now`, await client.doc.upsert(SIDE, { subject: LATE, payload }), {
    queued_docs: 0,
    updated_docs: 1,
  });
  const status = async () => (await rows(`SELECT status FROM fetchq_data.${SIDE}__docs WHERE subject = $1`, [LATE]))[0].status;
  while ((await status()) !== STATUS.pending && Date.now() - at <= LATE_MAX_MS) await new Promise((r) => setTimeout(r, 20));
  const took = Date.now() - at;
  if (took > LATE_MAX_MS)
    fail(`${LATE}: doc_upsert moved it from +1 hour to now, still planned (status 0) after ${LATE_MAX_MS} ms`);
  else console.log(`ok: ${LATE}, upserted from +1 hour to now, promoted by the server in ${took} ms`);
}

// A queue switched off (is_active = false, through another client's init)
// stops this client's workers on it, through the fetchq_on_change
// notification; switched on again, they pick what was pushed meanwhile.
async function pauseAndResume(client, second) {
  const sideWorkers = client.workers.workers.filter((w) => w.queue === SIDE);
  const until = async (what, cond) => {
    const deadline = Date.now() + 10000;
    while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (!cond()) fail(`${what}: not within 10 s`);
    return cond();
  };
  check(`workers on ${SIDE} running`, sideWorkers.map((w) => w.isRunning), [true]);
  second.settings.queues = withActive(false);
  await second.init();
  const t = Date.now();
  if (!(await until(`workers on ${SIDE} stopped after is_active = false`, () => sideWorkers.every((w) => !w.isRunning))))
    return;
  console.log(`ok: ${SIDE} switched off by another client, its worker stopped in ${Date.now() - t} ms`);
  const payload = payloadFor(PAUSED, 9);
  sideExpect.set(PAUSED, { payload, priority: 0 });
  await client.doc.push(SIDE, { subject: PAUSED, payload });
  second.settings.queues = withActive(true);
  await second.init();
  const t2 = Date.now();
  if (await until(`${PAUSED} picked after ${SIDE} was switched on`, () => sideSeen.has(PAUSED)))
    console.log(`ok: ${SIDE} switched on again, ${PAUSED} picked ${Date.now() - t2} ms later`);
}

async function main() {
  console.log(`fetchq Node client test: database ${db}, client maintenance off`);
  await rows(`SELECT fetchq.queue_drop(name) FROM fetchq.queues WHERE name IN ($1, $2)`, [MAIN, SIDE]);
  const info = await rows('SELECT version FROM fetchq.info()');
  check('fetchq.info() version (the client requires 4.0.0)', info[0].version, '4.0.0');

  // The database's scheduler starts shortly after CREATE EXTENSION.
  const schedulers = async () =>
    Number(
      (await rows(`SELECT count(*) AS n FROM pg_stat_activity WHERE backend_type = 'fetchq scheduler' AND datname = current_database()`))[0].n,
    );
  const waitFrom = Date.now();
  while ((await schedulers()) === 0 && Date.now() - waitFrom < 20000) await new Promise((r) => setTimeout(r, 50));
  if ((await schedulers()) === 0) {
    fail(`no fetchq scheduler runs for database ${db} after 20 s (is fetchq in shared_preload_libraries?)`);
    return;
  }
  console.log(`ok: the database's fetchq scheduler runs (waited ${Date.now() - waitFrom} ms)`);

  const promoted = async () =>
    Number(
      (await rows(`SELECT sum(rows_total) AS n FROM fetchq.worker_status() WHERE datname = current_database() AND task = 'promote'`))[0].n,
    );
  const promotedBefore = await promoted();

  const client = newClient(queues);
  const sent = spy(client);
  client.emitter.on('error', (err) => clientErrors.push(`emitter: ${err.message}`));
  client.on(`fetchq__${MAIN}__cpl`, (subject) => notified.cpl.add(String(subject)));
  client.on(`fetchq__${MAIN}__kll`, (subject) => notified.kll.add(String(subject)));

  await client.connect();
  await client.init();
  console.log(`ok: connect() and init() (info, init, queue upserts) at ${elapsed()}`);
  await checkQueueSettings(client);
  await upsertLate(client);

  await pushMainDocuments(client);
  await client.doc.push(SIDE, {
    subject: 'side-up-existing',
    payload: payloadFor('side-up-existing-old', 6),
    nextIteration: '+1 hour',
  });
  await checkPushed();
  console.log(`ok: ${mainSpecs.size} documents pushed into ${MAIN} at ${elapsed()}`);

  await client.start();
  check('no maintenance daemon in the client', client.daemons.length, 0);
  const startedAt = Date.now();
  console.log(`ok: start() (workers running) at ${elapsed()}`);

  await waitForTheEnd();
  const processedIn = Date.now() - startedAt;
  console.log(`   every document reached its final state ${processedIn} ms after start()`);

  // A second client booting against the same queues (a restart): init is idempotent.
  const second = newClient(withActive(true));
  await second.connect();
  await second.init();
  await checkQueueSettings(second);
  await pauseAndResume(client, second);

  await checkFinalState(client);
  // planned pushes, reschedules, and in the side queue the two planned
  // pushMany documents and the two upserted from +1 hour to now
  const plannedMain = [...mainSpecs.values()].filter((s) => s.delayMs).length;
  const rescheduled = [...mainSpecs.values()].reduce((n, s) => n + s.plan.filter((a) => a.startsWith('reschedule')).length, 0);
  check('documents promoted by the server (fetchq.worker_status)', (await promoted()) - promotedBefore, plannedMain + rescheduled + 4);
  check("utils.checkStatus('cpl-0', main queue, completed)", await client.utils.checkStatus('cpl-0', MAIN, 3), true);

  const t = Date.now();
  const within10s = (what, promise) =>
    Promise.race([
      promise,
      new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} did not return within 10 s`)), 10000)),
    ]);
  await within10s('client.end()', client.end());
  console.log(`ok: end() of the client in ${Date.now() - t} ms`);
  if (failures.length === 0) {
    for (const q of [MAIN, SIDE]) check(`queue.drop('${q}').was_dropped`, (await second.queue.drop(q)).was_dropped, true);
  }
  await within10s('end() of the second client', second.end());

  const mnt = sent.filter((q) => /mnt_|metric_log_pack/i.test(q || ''));
  check('maintenance statements sent by the client', mnt, []);
  const called = [...new Set(sent.map((q) => ((q || '').match(/fetchq\.[a-z_0-9]+/gi) || []).join(',')))]
    .join(',')
    .split(',')
    .filter(Boolean);
  console.log(`   client used: ${[...new Set(called)].sort().join(' ')}`);
  check('errors reported by the client', clientErrors, []);

  // Timings of what the server did on its own.
  const lat = [];
  for (const s of mainSpecs.values()) for (const l of s.dueLatency || []) lat.push([s.subject, l]);
  const e = sideExpect.get('side-up-existing');
  if (e && e.pickedAt) lat.push(['side-up-existing (upserted due now)', e.pickedAt - e.upsertedAt]);
  lat.sort((a, b) => b[1] - a[1]);
  console.log(`   due -> picked, slowest: ${lat.slice(0, 4).map(([s, l]) => `${s} ${l} ms`).join(', ')}`);

  await sql.end();
}

main()
  .catch((err) => fail(`unexpected error: ${err.stack || err}`))
  .finally(() => {
    failures.forEach((f) => console.log(`FAIL: ${f}`));
    console.log(`${passed} checks passed, ${failures.length} failed, ${elapsed()}`);
    process.exit(failures.length === 0 ? 0 : 1);
  });
