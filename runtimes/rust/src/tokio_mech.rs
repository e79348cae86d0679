//! tokio: two tasks hand a token over with Notify or over mpsc channels.
//! Pinned: the current-thread runtime (one worker, the caller's thread);
//! default: the multi-thread runtime with its default workers (one per CPU
//! the process may run on).
use crate::clock::spin;
use crate::measure::Pair;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;
use tokio::runtime::{Builder, Runtime};
use tokio::sync::{mpsc, Notify};

pub fn runtime(pinned: bool) -> Result<Runtime, String> {
    let mut b = if pinned { Builder::new_current_thread() } else { Builder::new_multi_thread() };
    b.build().map_err(|e| format!("tokio runtime: {e}"))
}

pub fn workers(pinned: bool) -> Result<usize, String> {
    Ok(runtime(pinned)?.metrics().num_workers())
}

pub struct NotifyPair {
    pub rt: Runtime,
    pub delay: u64,
}

impl Pair for NotifyPair {
    fn batch(&mut self, n: u64) -> Result<(u64, u64), String> {
        let delay = self.delay;
        self.rt.block_on(async move {
            let (to_b, to_a) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
            let (b_in, a_out) = (to_b.clone(), to_a.clone());
            let b = tokio::spawn(async move {
                let mut seen = 0u64;
                for _ in 0..n {
                    b_in.notified().await;
                    seen += 1;
                    spin(delay);
                    a_out.notify_one();
                }
                seen
            });
            let a = tokio::spawn(async move {
                let t0 = Instant::now();
                let mut seen = 0u64;
                for _ in 0..n {
                    to_b.notify_one();
                    to_a.notified().await;
                    seen += 1;
                    spin(delay);
                }
                (t0.elapsed().as_nanos() as u64, seen)
            });
            let (t, sa) = a.await.map_err(|e| e.to_string())?;
            let sb = b.await.map_err(|e| e.to_string())?;
            Ok((t, sa + sb))
        })
    }
}

pub struct MpscPair {
    pub rt: Runtime,
    pub delay: u64,
}

impl Pair for MpscPair {
    fn batch(&mut self, n: u64) -> Result<(u64, u64), String> {
        let delay = self.delay;
        self.rt.block_on(async move {
            let (ab_tx, mut ab_rx) = mpsc::channel::<u64>(1);
            let (ba_tx, mut ba_rx) = mpsc::channel::<u64>(1);
            let b = tokio::spawn(async move {
                let mut seen = 0u64;
                while let Some(v) = ab_rx.recv().await {
                    seen += 1;
                    spin(delay);
                    if ba_tx.send(v + 1).await.is_err() {
                        break;
                    }
                }
                seen
            });
            let a = tokio::spawn(async move {
                let t0 = Instant::now();
                let mut seen = 0u64;
                for i in 0..n {
                    ab_tx.send(i).await.map_err(|e| e.to_string())?;
                    // the echo proves the token made the round trip
                    if ba_rx.recv().await == Some(i + 1) {
                        seen += 1;
                    }
                    spin(delay);
                }
                Ok::<_, String>((t0.elapsed().as_nanos() as u64, seen))
            });
            let (t, sa) = a.await.map_err(|e| e.to_string())??;
            let sb = b.await.map_err(|e| e.to_string())?;
            Ok((t, sa + sb))
        })
    }
}

/// k spawn+joins of an empty task, from inside a task.
pub fn spawn_batch(rt: &Runtime, k: u64) -> Result<u64, String> {
    rt.block_on(async move {
        tokio::spawn(async move {
            let t0 = Instant::now();
            for _ in 0..k {
                tokio::spawn(async {}).await.map_err(|e| e.to_string())?;
            }
            Ok::<_, String>(t0.elapsed().as_nanos() as u64)
        })
        .await
        .map_err(|e| e.to_string())?
    })
}

/// p tasks parked on one Notify; `measure` runs while all are parked.
pub fn park(rt: &Runtime, p: u64, measure: &mut dyn FnMut() -> Result<(), String>) -> Result<(), String> {
    rt.block_on(async move {
        let gate = Arc::new(Notify::new());
        let started = Arc::new(AtomicU64::new(0));
        let mut tasks = Vec::with_capacity(p as usize);
        for _ in 0..p {
            let (g, s) = (gate.clone(), started.clone());
            tasks.push(tokio::spawn(async move {
                let woken = g.notified(); // registered for notify_waiters from here on
                s.fetch_add(1, Ordering::SeqCst);
                woken.await;
            }));
        }
        // every task polled once and parked; bounded by a deadline
        let deadline = Instant::now() + std::time::Duration::from_secs(30);
        while started.load(Ordering::SeqCst) < p {
            if Instant::now() > deadline {
                return Err("tokio tasks did not all start within 30 s".into());
            }
            tokio::task::yield_now().await;
        }
        let r = measure();
        gate.notify_waiters();
        for t in tasks {
            t.await.map_err(|e| e.to_string())?;
        }
        r
    })
}
