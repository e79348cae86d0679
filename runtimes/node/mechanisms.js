'use strict';
// The Node mechanisms: a Promise microtask hand-off, a MessageChannel on
// one thread, and a worker thread taking turns over Atomics.wait/notify. A
// pair = two parties, fresh per group; roundTrips(n, d) hands control
// there and back n times; the receiving party spins d ns first (when
// asked). The delay travels with the hand-off, so samples can take turns.
const path = require('path');
const { MessageChannel, Worker } = require('worker_threads');
const { spin } = require('./measure');

const STOP = Symbol('stop');

// two async functions; each hand-off resolves the other's pending Promise
// and awaits its own: the woken one runs as the next microtask
class PromisePair {
  constructor() {
    this.resolveOther = null;
    this.resolveMine = null;
    this.done = this.other();
  }

  async other() {
    for (;;) {
      const d = await new Promise((resolve) => { this.resolveOther = resolve; });
      if (d === STOP) return;
      if (d) spin(d);
      this.resolveMine();
    }
  }

  async roundTrips(n, d) {
    for (let i = 0; i < n; i++) {
      const mine = new Promise((resolve) => { this.resolveMine = resolve; });
      this.resolveOther(d);
      await mine;
      if (d) spin(d);
    }
  }

  async close() {
    this.resolveOther(STOP);
    await this.done;
  }
}

// the two ports of one MessageChannel, both on the main thread: each
// message is delivered by the event loop as a task
class ChannelPair {
  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port1 = port1;
    this.port2 = port2;
    this.finish = null;
    this.left = 0;
    port2.on('message', (d) => {
      if (d) spin(d);
      port2.postMessage(d);
    });
    port1.on('message', (d) => {
      if (d) spin(d);
      if (--this.left > 0) port1.postMessage(d);
      else this.finish();
    });
  }

  roundTrips(n, d) {
    return new Promise((resolve) => {
      this.finish = resolve;
      this.left = n;
      this.port1.postMessage(d);
    });
  }

  async close() {
    this.port1.close();
    this.port2.close();
  }
}

// the main thread and a worker thread take turns on a shared word
// (word 0; 0: main, 1: worker, 2: stop; word 1: the delay); a waiting
// thread sleeps in Atomics.wait (a futex): every hand-off wakes a kernel thread
class AtomicsPair {
  static async start() {
    const p = new AtomicsPair();
    p.turn = new Int32Array(new SharedArrayBuffer(8));
    p.worker = new Worker(path.join(__dirname, 'worker.js'), { workerData: { turn: p.turn } });
    await new Promise((resolve, reject) => {
      p.worker.once('message', resolve);
      p.worker.once('error', reject);
    });
    return p;
  }

  roundTrips(n, d) {
    const turn = this.turn;
    Atomics.store(turn, 1, d);
    for (let i = 0; i < n; i++) {
      Atomics.store(turn, 0, 1);
      Atomics.notify(turn, 0);
      while (Atomics.load(turn, 0) !== 0) Atomics.wait(turn, 0, 1);
      if (d) spin(d);
    }
  }

  async close() {
    const ended = new Promise((resolve) => this.worker.once('exit', resolve));
    Atomics.store(this.turn, 0, 2);
    Atomics.notify(this.turn, 0);
    await ended;
  }
}

const MECHANISMS = {
  promise: { doc: 'two async functions hand off by resolving each other\'s Promise (a microtask each way)',
    family: 'async-fn', start: async () => new PromisePair() },
  messagechannel: { doc: 'the two ports of a MessageChannel on the main thread post a message back and forth',
    family: null, start: async () => new ChannelPair() },
  'worker-atomics': { doc: 'the main thread and a worker_threads Worker take turns on a SharedArrayBuffer word ' +
    '(Atomics.wait / Atomics.notify)', family: null, start: AtomicsPair.start,
  warnings: ['no spawn or memory figure for a Worker: each is a whole V8 isolate (milliseconds to start, ' +
    'megabytes each), so batches of spawns and 10^5 parked ones are out of reach'] },
};

module.exports = { MECHANISMS };
