//! The monotonic clock, the known-answer busy wait and the kernel's view of
//! the process (switch counts, resident memory).
use std::time::Instant;

/// Busy-wait `delay_ns` from now on the monotonic clock: the receiving party
/// of each one-way hand-off calls it, so the one-way figure grows by the delay.
#[inline]
pub fn spin(delay_ns: u64) {
    if delay_ns == 0 {
        return;
    }
    let start = Instant::now();
    while (start.elapsed().as_nanos() as u64) < delay_ns {
        std::hint::spin_loop();
    }
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
