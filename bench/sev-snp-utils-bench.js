#!/usr/bin/env node
// Times the peer for bench/snp-verify.sh: @lit-protocol/sev-snp-utils-sdk, virtee/sev (the
// Rust crate snpguest is built on) compiled to WebAssembly, verifying one SEV-SNP report
// with its VCEK against the built-in Milan ARK/ASK (chain and report signature; no CRL).
// The median of 5 rounds of the mean per-report time, after a warm-up. Prints one JSON line.
// It also checks that the peer rejects the report with one byte of MEASUREMENT changed,
// so the time is that of a verification that can fail.
// Usage: node sev-snp-utils-bench.js REPORT.bin VCEK.der ITERATIONS  (NODE_PATH = install dir)
const fs = require('fs');
const sdk = require('@lit-protocol/sev-snp-utils-sdk');

const [repFile, vcekFile, itArg] = process.argv.slice(2);
const rep = fs.readFileSync(repFile);
const vcek = new Uint8Array(fs.readFileSync(vcekFile));
const iters = Math.max(5, parseInt(itArg || '50', 10));
// The WebAssembly promises resolve from the event loop; keep it alive while they run.
const keep = setInterval(() => {}, 1000);

async function main() {
  await sdk.initWasmSevSnpUtilsSdk();
  const b64 = rep.toString('base64');
  await sdk.verify_attestation_report(b64, vcek); // throws if it does not verify
  const bad = Buffer.from(rep);
  bad[0x90] ^= 1;
  let rejected = false;
  try {
    await sdk.verify_attestation_report(bad.toString('base64'), vcek);
  } catch (e) {
    rejected = true;
  }
  if (!rejected) throw new Error('the peer accepted a changed report');
  for (let i = 0; i < 3; i++) await sdk.verify_attestation_report(b64, vcek);
  const per = Math.max(1, Math.floor(iters / 5));
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < per; i++) await sdk.verify_attestation_report(b64, vcek);
    rounds.push(Number(process.hrtime.bigint() - t0) / 1e6 / per);
  }
  rounds.sort((a, b) => a - b);
  console.log(JSON.stringify({ ms: rounds[2], iterations: per * 5, rejects_changed: rejected }));
}

main()
  .catch((e) => {
    console.error('sev-snp-utils-bench: ' + (e.message || e));
    process.exitCode = 1;
  })
  .finally(() => clearInterval(keep));
