'use strict';
// Spawn+join and resident memory per parked async function (the lightweight
// thread JavaScript has: a suspended async function and its Promise).
const { clock } = require('./measure');

async function noop() {}

async function spawnBatch(k) {
  const t0 = clock();
  for (let i = 0; i < k; i++) await noop();
  return (clock() - t0) / k;
}

function gc() {
  if (typeof global.gc === 'function') global.gc();  // node --expose-gc (the descriptor passes it)
}

async function parkOnce(p) {
  let release;
  const gate = new Promise((resolve) => { release = resolve; });
  async function park() { await gate; }
  gc();
  const before = process.memoryUsage.rss();
  const parked = [];
  for (let i = 0; i < p; i++) parked.push(park());  // each runs to its await and suspends
  const after = process.memoryUsage.rss();
  release();
  await Promise.all(parked);
  return (after - before) / p;
}

async function spawnRecord(o) {
  const samples = [], group = [];
  for (let g = 0; g < o.groups; g++) {
    for (let i = 0; i < o.iterations; i++) {
      samples.push(await spawnBatch(o.spawn));
      group.push(g);
    }
  }
  return {
    id: `runtimes/node/async-fn/spawn/${o.placement}`, quantity: 'spawn', unit: 'ns',
    doc: 'call an async function and await its end (ns per spawn+join, batches of K)',
    params: { runtime: 'node', mechanism: 'async-fn', placement: o.placement, batch: o.spawn, workers: 1 },
    samples, group, raw: {}, warnings: [],
  };
}

async function parkRecord(o) {
  const samples = [], group = [];
  for (let g = 0; g < o.groups; g++) {
    samples.push(await parkOnce(o.park));
    group.push(g);
  }
  return {
    id: `runtimes/node/async-fn/memory/${o.placement}`, quantity: 'memory', unit: 'bytes',
    doc: 'resident memory per async function suspended on an await: (RSS with P parked - RSS before) / P, ' +
      'process.memoryUsage.rss(), after a gc()',
    params: { runtime: 'node', mechanism: 'async-fn', placement: o.placement, parked: o.park, workers: 1 },
    samples, group, raw: {},
    warnings: typeof global.gc === 'function' ? [] : ['no gc() before the measure (node without --expose-gc)'],
  };
}

module.exports = { spawnRecord, parkRecord };
