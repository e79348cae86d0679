//! The protocol's measuring loop (runtimes/PROTOCOL.md), shared by every mechanism:
//! N doubled until a batch lasts min-sample-us, warm-up until the per-batch
//! time is stable, then G groups of I samples, each group with fresh parties.
use crate::clock;
use std::time::{Duration, Instant};

/// Two parties passing control back and forth.
pub trait Pair {
    /// `n` round trips (2n one-way hand-offs); returns the batch's wall time in
    /// ns and the number of one-way hand-offs the parties saw arrive.
    fn batch(&mut self, n: u64) -> Result<(u64, u64), String>;
}

pub struct Opts {
    pub groups: usize,
    pub iterations: usize,
    pub min_sample_ns: u64,
    pub warmup_ms: u64,
    /// the known-answer delays: one (the protocol's --delay-ns D), or several
    /// interleaved group by group (--delay-ns 0,1000: the known-answer test)
    pub delays: Vec<u64>,
}

#[derive(Default)]
pub struct Samples {
    pub n: u64,
    pub total_ns: Vec<u64>,
    pub count: Vec<u64>,
    pub group: Vec<usize>,
    pub voluntary: Vec<i64>,
    pub involuntary: Vec<i64>,
    pub rss_before: Vec<i64>,
    pub rss_after: Vec<i64>,
    pub warmup: String,
    pub warnings: Vec<String>,
}

/// No batch beyond 2^26 round trips, nor longer than about a second.
const N_CAP: u64 = 1 << 26;
const BATCH_CAP_NS: u64 = 1_000_000_000;
/// Warm-up is judged over the last STABLE_RUN batches, each within STABLE_TOL of their median.
const STABLE_RUN: usize = 3;
const STABLE_TOL: f64 = 0.05;

fn stable(per: &[f64]) -> bool {
    if per.len() < STABLE_RUN {
        return false;
    }
    let mut last: Vec<f64> = per[per.len() - STABLE_RUN..].to_vec();
    last.sort_by(|a, b| a.total_cmp(b));
    let mid = last[STABLE_RUN / 2];
    last.iter().all(|v| (v - mid).abs() <= STABLE_TOL * mid)
}

/// Calibrates n on one pair and warms it up: a Samples with n and the warm-up said.
fn prepare(make: &dyn Fn() -> Result<Box<dyn Pair>, String>, o: &Opts) -> Result<Samples, String> {
    let mut s = Samples::default();
    let mut pair = make()?;
    let mut n = 1u64;
    // two batches in a row long enough: a first one slowed by the parties' start-up is not
    let mut long_enough = 0;
    while long_enough < 2 {
        let (t, _) = pair.batch(n)?;
        if n >= N_CAP || t.saturating_mul(2) > BATCH_CAP_NS {
            break;
        }
        if t >= o.min_sample_ns {
            long_enough += 1;
        } else {
            long_enough = 0;
            n *= 2;
        }
    }
    s.n = n;
    // Warm-up: at least warmup-ms, then on until stable, for at most 3x as long.
    let start = Instant::now();
    let (floor, limit) = (Duration::from_millis(o.warmup_ms), Duration::from_millis(3 * o.warmup_ms.max(1)));
    let mut per = Vec::new();
    while start.elapsed() < limit && per.len() < 100_000 {
        let (t, _) = pair.batch(n)?;
        per.push(t as f64 / n as f64);
        if start.elapsed() >= floor && stable(&per) {
            break;
        }
    }
    let ok = stable(&per);
    s.warmup = format!(
        "compiled ahead of time (no JIT); {} warm-up batches over {} ms: per-batch time {} within {}% over the last {}",
        per.len(),
        start.elapsed().as_millis(),
        if ok { "stable" } else { "NOT stable" },
        (STABLE_TOL * 100.0) as u32,
        STABLE_RUN
    );
    if !ok {
        s.warnings.push("warm-up did not reach a stable per-batch time".into());
    }
    Ok(s)
}

/// Per delay: calibrates n, warms up, then G groups of fresh pairs, the delays
/// taking turns group by group (so a drift of the host hits each alike).
pub fn handoff(make: &dyn Fn(u64) -> Result<Box<dyn Pair>, String>, o: &Opts) -> Result<Vec<Samples>, String> {
    let mut out = o.delays.iter().map(|&d| prepare(&|| make(d), o)).collect::<Result<Vec<_>, _>>()?;
    for g in 0..o.groups {
        for (s, &d) in out.iter_mut().zip(&o.delays) {
            let n = s.n;
            let mut pair = make(d)?;
            for _ in 0..o.iterations {
                let (v0, i0) = clock::switches();
                let (t, seen) = pair.batch(n)?;
                let (v1, i1) = clock::switches();
                if seen != 2 * n {
                    return Err(format!("{} of {} hand-offs arrived", seen, 2 * n));
                }
                s.total_ns.push(t);
                s.count.push(2 * n);
                s.group.push(g);
                s.voluntary.push(v1 - v0);
                s.involuntary.push(i1 - i0);
            }
        }
    }
    Ok(out)
}

/// Spawn + join of one lightweight thread, `k` per batch: returns the batch's ns.
pub type SpawnBatch<'a> = dyn FnMut(u64) -> Result<u64, String> + 'a;

/// G groups of I batches of `k` spawn+joins, after one warm-up batch.
pub fn spawn(batch: &mut SpawnBatch, k: u64, o: &Opts) -> Result<Samples, String> {
    let mut s = Samples { n: k, warmup: "one batch of the same spawns before timing".into(), ..Default::default() };
    batch(k)?;
    for g in 0..o.groups {
        for _ in 0..o.iterations {
            let (v0, i0) = clock::switches();
            let t = batch(k)?;
            let (v1, i1) = clock::switches();
            s.total_ns.push(t);
            s.count.push(k);
            s.group.push(g);
            s.voluntary.push(v1 - v0);
            s.involuntary.push(i1 - i0);
        }
    }
    Ok(s)
}

/// Resident bytes added by `p` parked lightweight threads: `park(p)` parks
/// them, calls the measuring closure while they are alive, then releases them.
pub type ParkRun<'a> = dyn FnMut(u64, &mut dyn FnMut() -> Result<(), String>) -> Result<(), String> + 'a;

/// One sample per group: (RSS with p parked - RSS before) / p.
pub fn park(run: &mut ParkRun, p: u64, o: &Opts) -> Result<Samples, String> {
    let mut s = Samples { n: p, warmup: "none (one sample per group)".into(), ..Default::default() };
    for g in 0..o.groups {
        let before = clock::rss_bytes()?;
        let mut after = 0;
        run(p, &mut || {
            after = clock::rss_bytes()?;
            Ok(())
        })?;
        s.rss_before.push(before);
        s.rss_after.push(after);
        s.count.push(p);
        s.group.push(g);
    }
    Ok(s)
}
