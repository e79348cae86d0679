'use strict';
// The worker side of the worker-atomics pair (mechanisms.js): wait for its
// turn, spin the delay if one is asked, hand the turn back.
const { parentPort, workerData } = require('worker_threads');
const { spin } = require('./measure');

const { turn } = workerData;  // word 0: whose turn, word 1: the delay
parentPort.postMessage('ready');
for (;;) {  // ends when the main thread writes 2 (its close), or with the process
  let t = Atomics.load(turn, 0);
  while (t === 0) {
    Atomics.wait(turn, 0, 0);
    t = Atomics.load(turn, 0);
  }
  if (t === 2) break;
  const d = Atomics.load(turn, 1);
  if (d) spin(d);
  Atomics.store(turn, 0, 0);
  Atomics.notify(turn, 0);
}
process.exit(0);  // the worker thread only: parentPort would keep it waiting
