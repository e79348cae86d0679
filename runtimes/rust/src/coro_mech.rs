//! corosensei: a stackful coroutine and its caller resume each other on one
//! thread (resume -> suspend), no scheduler in between.
use crate::clock::spin;
use crate::measure::Pair;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};
use std::time::Instant;

pub struct CoroPair {
    co: Coroutine<u64, u64, ()>,
    delay: u64,
}

impl CoroPair {
    pub fn new(delay: u64) -> CoroPair {
        let co = Coroutine::new(move |y, mut input: u64| loop {
            spin(delay);
            input = y.suspend(input + 1);
        });
        CoroPair { co, delay }
    }
}

impl Pair for CoroPair {
    fn batch(&mut self, n: u64) -> Result<(u64, u64), String> {
        let t0 = Instant::now();
        let mut seen = 0u64;
        for i in 0..n {
            // the coroutine's echo proves it ran: two hand-offs arrived
            if let CoroutineResult::Yield(v) = self.co.resume(i) {
                if v == i + 1 {
                    seen += 2;
                }
            }
            spin(self.delay);
        }
        Ok((t0.elapsed().as_nanos() as u64, seen))
    }
}

/// k coroutines created (a fresh mmap'ed stack each), run to completion and dropped.
pub fn spawn_batch(k: u64) -> Result<u64, String> {
    let t0 = Instant::now();
    for i in 0..k {
        let mut co: Coroutine<u64, (), u64> = Coroutine::new(|_, x: u64| x + 1);
        match co.resume(i) {
            CoroutineResult::Return(v) if v == i + 1 => {}
            _ => return Err("a coroutine did not return its input + 1".into()),
        }
    }
    Ok(t0.elapsed().as_nanos() as u64)
}

/// The size Coroutine::new gives a stack (corosensei's DefaultStack::default()),
/// named here because park asks for the stack itself, to report a refused map.
const DEFAULT_STACK_SIZE: usize = 1024 * 1024;

/// How many coroutines --park may hold: each default stack is its own mmap
/// with a guard page (two memory maps), and the kernel refuses maps beyond
/// vm.max_map_count (65530 by default): half the maps left, less a margin.
pub fn park_cap() -> u64 {
    let max = std::fs::read_to_string("/proc/sys/vm/max_map_count").ok().and_then(|s| s.trim().parse::<u64>().ok());
    let used = std::fs::read_to_string("/proc/self/maps").map(|s| s.lines().count() as u64).unwrap_or(0);
    max.map_or(u64::MAX, |m| m.saturating_sub(used + 1000) / 2)
}

/// p coroutines started and suspended; `measure` runs while all are alive.
pub fn park(p: u64, measure: &mut dyn FnMut() -> Result<(), String>) -> Result<(), String> {
    let mut parked = Vec::with_capacity(p as usize);
    for i in 0..p {
        let stack = DefaultStack::new(DEFAULT_STACK_SIZE).map_err(|e| format!("coroutine stack {i} of {p}: {e}"))?;
        let mut co: Coroutine<(), (), (), DefaultStack> = Coroutine::with_stack(stack, |y, ()| y.suspend(()));
        co.resume(());
        parked.push(co);
    }
    let r = measure();
    for mut co in parked {
        co.resume(()); // runs to completion, so no forced unwind on drop
    }
    r
}
