'use strict';
// ctxbench-rt-node: issue 24's Node harness (runtimes/PROTOCOL.md): a
// Promise microtask hand-off, a MessageChannel, and worker_threads over
// Atomics.wait/notify; JSON lines on stdout.
const os = require('os');
const { MECHANISMS } = require('./mechanisms');
const { handoff } = require('./measure');
const { spawnRecord, parkRecord } = require('./lightweight');

const COUNTS = {
  '--groups': ['groups', 1, 1000], '--iterations': ['iterations', 1, 100000],
  '--min-sample-us': ['minSampleUs', 1, 1000000], '--warmup-ms': ['warmupMs', 0, 60000],
'--spawn': ['spawn', 0, 1e7], '--park': ['park', 0, 1e7],
};

function fail(message) {
  process.stderr.write(`ctxbench-rt-node: ${message}\n`);
  process.exit(1);
}

function parse(argv) {
  const o = { mechanisms: [], placement: 'pinned', groups: 3, iterations: 10, minSampleUs: 2000, warmupMs: 200,
    delays: [0], spawn: 0, park: 0 };
  if (argv.length % 2) fail(`${argv[argv.length - 1]} needs a value`);
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--mechanisms') {
      o.mechanisms = value.split(',');
      const unknown = o.mechanisms.filter((m) => !(m in MECHANISMS));
      if (unknown.length) fail(`unknown mechanism '${unknown[0]}' (--list names them)`);
    } else if (flag === '--delay-ns') {  // one delay, or a few taken in turn (the known answer's interleaving)
      o.delays = value.split(',').map((v) => (/^\d+$/.test(v) ? Number(v) : NaN));
      if (o.delays.length > 4 || o.delays.some((d) => !(d >= 0 && d <= 1e9)) || new Set(o.delays).size !== o.delays.length) {
        fail(`--delay-ns must be 1 to 4 distinct integers in [0, 1000000000], not '${value}'`);
      }
    } else if (flag === '--placement') {
      if (value !== 'pinned' && value !== 'default') fail('--placement must be pinned or default');
      o.placement = value;
    } else if (flag in COUNTS) {
      const [key, lo, hi] = COUNTS[flag];
      const v = /^\d+$/.test(value) ? Number(value) : NaN;
      if (!(v >= lo && v <= hi)) fail(`${flag} must be an integer in [${lo}, ${hi}], not '${value}'`);
      o[key] = v;
    } else {
      fail(`unknown argument '${flag}'`);
    }
  }
  if (!o.mechanisms.length) fail('--mechanisms names none');
  return o;
}

function emit(record) {
  process.stdout.write(JSON.stringify(record) + '\n');
}

async function main(argv) {
  if (argv.length === 1 && argv[0] === '--list') {
    for (const [mechanism, m] of Object.entries(MECHANISMS)) emit({ mechanism, doc: m.doc });
    return;
  }
  const o = parse(argv);
  emit({
    tool: { name: 'ctxbench-rt-node', version: process.env.CTXBENCH_VERSION || '0' },
    runtime: { name: 'node', version: process.version, flags: {
      v8: process.versions.v8, uv: process.versions.uv, execArgv: process.execArgv,
      NODE_OPTIONS: process.env.NODE_OPTIONS || '', UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE || '',
      cpus: os.availableParallelism ? os.availableParallelism() : os.cpus().length } },
  });
  let asyncFn = false;
  for (const name of o.mechanisms) {
    for (const record of await handoff(o, name, MECHANISMS[name])) emit(record);
    asyncFn = asyncFn || MECHANISMS[name].family === 'async-fn';
  }
  if (asyncFn && o.spawn) emit(await spawnRecord(o));
  if (asyncFn && o.park) emit(await parkRecord(o));
}

main(process.argv.slice(2)).catch((e) => fail(String(e && e.message ? e.message : e).split('\n')[0]));
