//! corosensei: a stackful coroutine and its caller resume each other on one
//! thread (resume -> suspend), no scheduler in between.
use crate::clock::spin;
use crate::measure::Pair;
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

/// p coroutines started and suspended; `measure` runs while all are alive.
pub fn park(p: u64, measure: &mut dyn FnMut() -> Result<(), String>) -> Result<(), String> {
    let mut parked = Vec::with_capacity(p as usize);
    for _ in 0..p {
        let mut co: Coroutine<(), (), ()> = Coroutine::new(|y, ()| y.suspend(()));
        co.resume(());
        parked.push(co);
    }
    let r = measure();
    for mut co in parked {
        co.resume(()); // runs to completion, so no forced unwind on drop
    }
    r
}
