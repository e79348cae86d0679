'use strict';
// The protocol's measurement, the same in every harness (runtimes/PROTOCOL.md): a
// sample is a batch of N round trips (2N one-way hand-offs), N doubled
// until a batch lasts --min-sample-us; G groups of I samples, fresh
// parties per group; getrusage's switch counts around every sample.
//
// With several delays (--delay-ns 0,1000) the samples of each group take
// them in turn, so that the known answer compares neighbours in time (the
// engine's interleaving): one record per delay.

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

// What the receiving party spins for so that a hand-off grows by d: d less
// what the spin costs beyond its target (the call, the clock reads, the
// overshoot), measured here: the median of many short batches, so that a
// batch the CPU was taken from does not decide it. [target, overhead]
let spinWarm = false;

function spinTarget(d) {
  if (!d) return [0, 0];
  const k = Math.max(1, Math.floor(20000 / d));  // about 20 us a batch
  // V8 compiles spin before it is timed: 100 ms of it the first time (the tiers take that long), 5 ms after
  for (const end = clock() + (spinWarm ? 5e6 : 1e8); clock() < end;) spin(d);
  spinWarm = true;
  const per = [];
  for (let b = 0; b < 101; b++) {
    const t0 = clock();
    for (let i = 0; i < k; i++) spin(d);
    per.push((clock() - t0) / k);
  }
  const overhead = Math.round(per.sort((x, y) => x - y)[50] - d);
  return [Math.max(d - overhead, 0), overhead];
}

function rusage() {
  const u = process.resourceUsage();  // uv_getrusage: getrusage(RUSAGE_SELF)
  return [u.voluntaryContextSwitches, u.involuntaryContextSwitches];
}

// [ns, voluntary, involuntary] of n round trips
async function timed(pair, n, d) {
  const [v0, i0] = rusage();
  const t0 = clock();
  await pair.roundTrips(n, d);
  const dt = clock() - t0;
  const [v1, i1] = rusage();
  return [dt, v1 - v0, i1 - i0];
}

async function calibrate(pair, minSampleNs, d) {
  for (let n = 1; ; n *= 2) {
    const [dt] = await timed(pair, n, d);
    if (dt >= minSampleNs || dt >= MAX_SAMPLE_NS / 2 || n >= MAX_ROUND_TRIPS) return n;
  }
}

const WARMUP_METHOD = 'V8 tiers hot functions up (Sparkplug, Maglev, TurboFan) during the warm-up; the last three ' +
  "warm-up batches' ns per hand-off and their spread (max - min) / min show whether the time had settled";

// batches of n for ms milliseconds (the delays in turn); the last three at
// the first delay are reported
async function warmup(pair, n, ms, spins) {
  let last = [];
  const end = clock() + ms * 1e6;
  let batches = 0;
  for (; batches < MAX_WARMUP_BATCHES && (batches < 3 * spins.length || clock() < end); batches++) {
    const [dt] = await timed(pair, n, spins[batches % spins.length]);
    if (batches % spins.length === 0) last = last.concat([dt / (2 * n)]).slice(-3);
  }
  const lo = Math.min(...last);
  return { ms, batches, last_ns: last, spread: (Math.max(...last) - lo) / lo, method: WARMUP_METHOD };
}

// one mechanism's records, one per delay; the spin's target is measured
// again for each group (the CPU's speed, and so the spin's own overhead,
// changes when the machine's load does)
async function handoff(o, name, mech) {
  const out = o.delays.map(() => ({ samples: [], totals: [], handoffs: [], group: [], vol: [], invol: [],
    spin: [], overhead: [] }));
  let warm = null, n = 0;
  for (let g = 0; g < o.groups; g++) {
    const spins = o.delays.map(spinTarget);
    spins.forEach(([target, overhead], k) => { out[k].spin.push(target); out[k].overhead.push(overhead); });
    const pair = await mech.start();
    try {
      if (g === 0) {
        n = await calibrate(pair, o.minSampleUs * 1000, spins[0][0]);
        warm = await warmup(pair, n, o.warmupMs, spins.map((s) => s[0]));
        n = await calibrate(pair, o.minSampleUs * 1000, spins[0][0]);  // again, on warm code
      } else {
        await timed(pair, n, spins[0][0]);  // untimed: the fresh parties' first batch
      }
      for (let i = 0; i < o.iterations * o.delays.length; i++) {
        const k = i % o.delays.length, r = out[k];
        const [dt, v, iv] = await timed(pair, n, spins[k][0]);
        r.samples.push(dt / (2 * n)); r.totals.push(dt); r.handoffs.push(2 * n); r.group.push(g);
        r.vol.push(v); r.invol.push(iv);
      }
    } finally {
      await pair.close();
    }
  }
  return o.delays.map((d, k) => ({
    id: `runtimes/node/${name}/${o.placement}`, quantity: 'handoff', unit: 'ns', doc: mech.doc,
    params: { runtime: 'node', mechanism: name, placement: o.placement, n, delay_ns: d, delay_spin_ns: out[k].spin,
      delay_overhead_ns: out[k].overhead, interleaved_delays: o.delays.length > 1 ? o.delays : null, workers: 1 },
    samples: out[k].samples, group: out[k].group, raw: { total_ns: out[k].totals, handoffs: out[k].handoffs },
    verify: { voluntary: out[k].vol, involuntary: out[k].invol,
      source: 'process.resourceUsage() (getrusage RUSAGE_SELF) around each sample (every thread of the process)' },
    warmup: warm, warnings: mech.warnings || [],
  }));
}

module.exports = { clock, spin, handoff };
