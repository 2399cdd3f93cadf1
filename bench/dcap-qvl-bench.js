#!/usr/bin/env node
// Times @phala/dcap-qvl (the peer) verifying one quote with one collateral file at one
// time, the same way bench/attest-verify.sh times teebench: the median of 5 rounds of
// the mean per-quote time, after a warm-up. Prints one JSON line.
// Usage: node dcap-qvl-bench.js QUOTE COLLATERAL NOW ITERATIONS  (NODE_PATH = install dir)
const fs = require('fs');
const { verify } = require('@phala/dcap-qvl');

const [quoteFile, colFile, nowArg, itArg] = process.argv.slice(2);
const quote = new Uint8Array(fs.readFileSync(quoteFile));
const colText = fs.readFileSync(colFile, 'utf8');
const now = parseInt(nowArg, 10);
const iters = Math.max(5, parseInt(itArg || '50', 10));

function once() {
  // Parse the collateral every time: the same work as teebench's "from scratch".
  const col = JSON.parse(colText);
  try {
    const r = verify(quote, col, now);
    return { ok: true, status: r.status, advisory_ids: r.advisory_ids };
  } catch (e) {
    return { ok: false, error: String(e.message || e) };
  }
}

let result = once();
for (let i = 0; i < 3; i++) once();
const per = Math.max(1, Math.floor(iters / 5));
const rounds = [];
for (let r = 0; r < 5; r++) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < per; i++) result = once();
  rounds.push(Number(process.hrtime.bigint() - t0) / 1e6 / per);
}
rounds.sort((a, b) => a - b);
console.log(JSON.stringify({ ms: rounds[2], iterations: per * 5, result }));
