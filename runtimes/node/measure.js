'use strict';
// The protocol's measurement, the same in every harness (RUNTIMES.md): a
// sample is a batch of N round trips (2N one-way hand-offs), N doubled
// until a batch lasts --min-sample-us; G groups of I samples, fresh
// parties per group; getrusage's switch counts around every sample.

const MAX_ROUND_TRIPS = 1 << 24;  // N's cap while calibrating ...
const MAX_SAMPLE_NS = 1e9;        // ... and a batch's: no sample runs longer than about a second
const MAX_WARMUP_BATCHES = 100000;

const clock = () => Number(process.hrtime.bigint());  // CLOCK_MONOTONIC, ns

// spin busy-waits until `ns` after now (the known-answer delay; called only
// when a delay is asked, so the plain loop stays the mechanism alone)
function spin(ns) {
  const end = performance.now() + ns / 1e6;
  while (performance.now() < end) { /* busy */ }
}

function rusage() {
  const u = process.resourceUsage();  // uv_getrusage: getrusage(RUSAGE_SELF)
  return [u.voluntaryContextSwitches, u.involuntaryContextSwitches];
}

// [ns, voluntary, involuntary] of n round trips
async function timed(pair, n) {
  const [v0, i0] = rusage();
  const t0 = clock();
  await pair.roundTrips(n);
  const dt = clock() - t0;
  const [v1, i1] = rusage();
  return [dt, v1 - v0, i1 - i0];
}

async function calibrate(pair, minSampleNs) {
  for (let n = 1; ; n *= 2) {
    const [dt] = await timed(pair, n);
    if (dt >= minSampleNs || dt >= MAX_SAMPLE_NS / 2 || n >= MAX_ROUND_TRIPS) return n;
  }
}

const WARMUP_METHOD = 'V8 tiers hot functions up (Sparkplug, Maglev, TurboFan) during the warm-up; the last three ' +
  "warm-up batches' ns per hand-off and their spread (max - min) / min show whether the time had settled";

async function warmup(pair, n, ms) {
  let last = [];
  const end = clock() + ms * 1e6;
  let batches = 0;
  for (; batches < MAX_WARMUP_BATCHES && (batches === 0 || clock() < end); batches++) {
    const [dt] = await timed(pair, n);
    last = last.concat([dt / (2 * n)]).slice(-3);
  }
  const lo = Math.min(...last);
  return { ms, batches, last_ns: last, spread: (Math.max(...last) - lo) / lo, method: WARMUP_METHOD };
}

async function handoff(o, name, mech) {
  const samples = [], totals = [], handoffs = [], group = [], vol = [], invol = [];
  let warm = null, n = 0;
  for (let g = 0; g < o.groups; g++) {
    const pair = await mech.start(o.delayNs);
    try {
      if (g === 0) {
        n = await calibrate(pair, o.minSampleUs * 1000);
        warm = await warmup(pair, n, o.warmupMs);
        n = await calibrate(pair, o.minSampleUs * 1000);  // again, on warm code
      } else {
        await timed(pair, n);  // untimed: the fresh parties' first batch
      }
      for (let i = 0; i < o.iterations; i++) {
        const [dt, v, iv] = await timed(pair, n);
        samples.push(dt / (2 * n)); totals.push(dt); handoffs.push(2 * n); group.push(g);
        vol.push(v); invol.push(iv);
      }
    } finally {
      await pair.close();
    }
  }
  return {
    id: `runtimes/node/${name}/${o.placement}`, quantity: 'handoff', unit: 'ns', doc: mech.doc,
    params: { runtime: 'node', mechanism: name, placement: o.placement, n, delay_ns: o.delayNs, workers: 1 },
    samples, group, raw: { total_ns: totals, handoffs },
    verify: { voluntary: vol, involuntary: invol,
      source: 'process.resourceUsage() (getrusage RUSAGE_SELF) around each sample (every thread of the process)' },
    warmup: warm, warnings: mech.warnings || [],
  };
}

module.exports = { clock, spin, handoff };
