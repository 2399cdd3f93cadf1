// teebench tlsn: one party (prover or verifier) of a TLSNotary session, in a module
// worker of the page that `teebench tlsn session` opens in headless Chromium (the
// wasm blocks on Atomics.wait, which only a worker may). The role is the worker's
// name. Everything else comes from teebench's own endpoint: the
// configuration (POST /api/config), and every phase's start and end, the outcome
// or the error go back to it (POST /api/report), so teebench times each phase from
// the page's clock and knows which phase is stuck. The TEE message travels on its
// own relay channel ("tee"), beside the MPC stream: the prover sends a fresh nonce,
// the verifier asks teebench for a quote binding the session, that nonce and what it
// verified (POST /api/quote) and sends it back; in tee_verify the prover has
// teebench's verifier check it (POST /api/verify).
import init, { initialize, Prover, Verifier } from './pkg/tlsn_wasm.js';

const role = self.name;
const now = () => performance.now();

async function post(name, body) {
  const r = await fetch('/api/' + name, { method: 'POST', body: JSON.stringify(body) });
  const j = await r.json();
  if (!r.ok) throw new Error(name + ': ' + (j.error || r.status));
  return j;
}

const report = (body) => post('report', Object.assign({ role }, body));

let current = 'config';
const phases = {};
async function phase(name, fn) {
  current = name;
  await report({ event: 'phase', phase: name, state: 'start' });
  const t = now();
  const v = await fn();
  phases[name] = now() - t;
  await report({ event: 'phase', phase: name, state: 'end', ms: phases[name] });
  return v;
}

function b64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return btoa(s);
}

function hex(bytes) {
  return Array.from(bytes, (x) => x.toString(16).padStart(2, '0')).join('');
}

// The side channel: a WebSocket on the relay's "tee" channel; next() is its next
// message, parsed.
function channel(url) {
  const ws = new WebSocket(url);
  const queue = [], waiting = [];
  let failed = null;
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (waiting.length) waiting.shift().resolve(m); else queue.push(m);
  };
  const fail = (why) => {
    failed = new Error('tee channel: ' + why);
    while (waiting.length) waiting.shift().reject(failed);
  };
  ws.onclose = () => fail('closed');
  ws.onerror = () => fail('error');
  const opened = new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.addEventListener('error', () => reject(new Error('tee channel: could not connect')));
  });
  return {
    opened,
    send: (m) => ws.send(JSON.stringify(m)),
    next: () => queue.length ? Promise.resolve(queue.shift())
      : failed ? Promise.reject(failed)
        : new Promise((resolve, reject) => waiting.push({ resolve, reject })),
  };
}

function headers(cfg) {
  const m = new Map();
  const enc = new TextEncoder();
  m.set('Host', Array.from(enc.encode(cfg.host)));
  m.set('Connection', Array.from(enc.encode('close')));
  m.set('Accept', Array.from(enc.encode('*/*')));
  return m;
}

async function prover(cfg) {
  let tee = null, nonce = null;
  if (cfg.tee) {
    tee = channel(cfg.relay_tee);
    await tee.opened;
    nonce = crypto.getRandomValues(new Uint8Array(32));
    tee.send({ nonce: hex(nonce) });
  }
  const p = new Prover({
    server_name: cfg.server_name,
    max_sent_data: cfg.max_sent_data,
    max_recv_data: cfg.max_recv_data,
    max_sent_records: undefined,
    max_recv_data_online: undefined,
    max_recv_records_online: undefined,
    defer_decryption_from_start: undefined,
    network: cfg.network,
    client_auth: undefined,
  });
  const t0 = now();
  await phase('setup', () => p.setup(cfg.relay_mpc));
  const resp = await phase('request', () => p.send_request(cfg.proxy, {
    uri: cfg.uri, method: 'GET', headers: headers(cfg), body: undefined,
  }));
  const tr = p.transcript();
  await phase('reveal', () => p.reveal({
    sent: [{ start: 0, end: tr.sent.length }],
    recv: [{ start: 0, end: tr.recv.length }],
    server_identity: true,
  }));
  const out = { status: resp.status, sent_len: tr.sent.length, recv_len: tr.recv.length };
  if (cfg.tee) {
    const msg = await phase('tee', () => tee.next());
    out.quote_len = msg.quote ? atob(msg.quote).length : 0;
    out.tee = msg.tee;
    out.simulated = !!msg.simulated;
    if (msg.error) throw new Error('the verifier sent no quote: ' + msg.error);
    if (cfg.verify) {
      const v = await phase('tdx_verify', () => post('verify', {
        quote: msg.quote, nonce: hex(nonce), server_name: cfg.server_name,
        sent: b64(tr.sent), recv: b64(tr.recv),
      }));
      out.verify = v;
    }
  }
  out.notarization_ms = now() - t0;
  return out;
}

async function verifier(cfg) {
  let tee = null;
  if (cfg.tee) {
    tee = channel(cfg.relay_tee);
    await tee.opened;
  }
  const v = new Verifier({
    max_sent_data: cfg.max_sent_data,
    max_recv_data: cfg.max_recv_data,
    max_sent_records: undefined,
    max_recv_records_online: undefined,
  });
  const t0 = now();
  await phase('setup', () => v.connect(cfg.relay_mpc));
  const res = await phase('verify', () => v.verify());
  const sent = Uint8Array.from(res.transcript ? res.transcript.sent : []);
  const recv = Uint8Array.from(res.transcript ? res.transcript.recv : []);
  const out = {
    server_name: res.server_name || '',
    tls_version: res.connection_info.version,
    time: res.connection_info.time,
    sent_len: sent.length,
    recv_len: recv.length,
    sent: new TextDecoder().decode(sent),
    recv: new TextDecoder().decode(recv),
  };
  if (cfg.tee) {
    await phase('quote', async () => {
      const m = await tee.next();
      try {
        const q = await post('quote', {
          nonce: m.nonce, server_name: out.server_name, sent: b64(sent), recv: b64(recv),
        });
        tee.send(q);
        out.quote_len = atob(q.quote).length;
      } catch (e) {
        tee.send({ error: String(e.message || e) });
        throw e;
      }
    });
  }
  out.session_ms = now() - t0;
  return out;
}

async function main() {
  const cfg = await post('config', { role });
  await phase('init', async () => {
    await init();
    await initialize({ level: cfg.log_level }, cfg.threads);
  });
  const out = role === 'prover' ? await prover(cfg) : await verifier(cfg);
  self.postMessage('done');
  await report({ event: 'done', phases, output: out });
}

function failed(e) {
  const message = String((e && (e.message || e)) || 'unknown error');
  self.postMessage('failed: ' + message);
  report({ event: 'error', phase: current, message }).catch(() => {});
}

self.addEventListener('unhandledrejection', (e) => failed(e.reason));
main().catch(failed);
