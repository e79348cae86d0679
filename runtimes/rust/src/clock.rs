//! The monotonic clock, the known-answer busy wait and the kernel's view of
//! the process (switch counts, resident memory).
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// What one spin costs beyond its target (the start read, the last read's
/// overshoot), subtracted from the target: calibrate_spin measures it.
static SPIN_EXCESS_NS: AtomicU64 = AtomicU64::new(0);

/// Busy-wait `delay_ns` from now on the monotonic clock: the receiving party
/// of each one-way hand-off calls it, so the one-way figure grows by the delay.
#[inline]
pub fn spin(delay_ns: u64) {
    if delay_ns == 0 {
        return;
    }
    let target = delay_ns.saturating_sub(SPIN_EXCESS_NS.load(Ordering::Relaxed));
    let start = Instant::now();
    while (start.elapsed().as_nanos() as u64) < target {
        std::hint::spin_loop();
    }
}

/// Calibrates the busy wait for `delay_ns`: the least, over 9 trials, of the
/// time one spin takes beyond its target in back-to-back runs of ~1 ms, after
/// 50 ms of spinning (an interruption only adds, so the least is the spin's own).
/// Returns the excess, now subtracted from every spin's target.
pub fn calibrate_spin(delay_ns: u64) -> u64 {
    SPIN_EXCESS_NS.store(0, Ordering::Relaxed);
    if delay_ns == 0 {
        return 0;
    }
    let k = (1_000_000 / delay_ns).clamp(10, 100_000);
    spin(50_000_000); // 50 ms busy first: a CPU that was idle may still be slowed
    let excess = (0..9)
        .map(|_| {
            let t0 = Instant::now();
            for _ in 0..k {
                spin(delay_ns);
            }
            (t0.elapsed().as_nanos() as u64 / k).saturating_sub(delay_ns)
        })
        .min()
        .unwrap_or(0);
    SPIN_EXCESS_NS.store(excess, Ordering::Relaxed);
    excess
}

/// Voluntary and involuntary context switches of the whole process (every
/// thread), from getrusage(RUSAGE_SELF).
pub fn switches() -> (i64, i64) {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we own.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    (ru.ru_nvcsw as i64, ru.ru_nivcsw as i64)
}

/// Resident set size of the process in bytes (VmRSS of /proc/self/status).
pub fn rss_bytes() -> Result<i64, String> {
    let s = std::fs::read_to_string("/proc/self/status").map_err(|e| format!("/proc/self/status: {e}"))?;
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<i64>().ok())
        .map(|kb| kb * 1024)
        .ok_or_else(|| "no VmRSS in /proc/self/status".to_string())
}
