//! std::thread: the caller and a second kernel thread pass a token over two
//! std::sync::mpsc channels; every hand-off blocks one thread in the kernel
//! (futex) and wakes the other.
use crate::clock::spin;
use crate::measure::Pair;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Instant;

pub struct ThreadPair {
    to_b: Option<Sender<u64>>,
    from_b: Receiver<u64>,
    b: Option<JoinHandle<()>>,
    delay: u64,
}

impl ThreadPair {
    pub fn new(delay: u64) -> Result<ThreadPair, String> {
        let (to_b, b_in) = channel::<u64>();
        let (b_out, from_b) = channel::<u64>();
        let b = std::thread::Builder::new()
            .name("rt-rust-b".into())
            .spawn(move || {
                while let Ok(v) = b_in.recv() {
                    spin(delay);
                    if b_out.send(v + 1).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| format!("thread spawn: {e}"))?;
        Ok(ThreadPair { to_b: Some(to_b), from_b, b: Some(b), delay })
    }
}

impl Pair for ThreadPair {
    fn batch(&mut self, n: u64) -> Result<(u64, u64), String> {
        let to_b = self.to_b.as_ref().ok_or("partner gone")?;
        let t0 = Instant::now();
        let mut seen = 0u64;
        for i in 0..n {
            to_b.send(i).map_err(|_| "partner thread ended")?;
            if self.from_b.recv().map_err(|_| "partner thread ended")? == i + 1 {
                seen += 2;
            }
            spin(self.delay);
        }
        Ok((t0.elapsed().as_nanos() as u64, seen))
    }
}

impl Drop for ThreadPair {
    fn drop(&mut self) {
        self.to_b.take(); // the partner's recv fails and it returns
        if let Some(b) = self.b.take() {
            let _ = b.join();
        }
    }
}

/// k spawn+joins of an empty kernel thread.
pub fn spawn_batch(k: u64) -> Result<u64, String> {
    let t0 = Instant::now();
    for _ in 0..k {
        std::thread::spawn(|| {}).join().map_err(|_| "thread panicked")?;
    }
    Ok(t0.elapsed().as_nanos() as u64)
}

/// p kernel threads blocked on a channel; `measure` runs while all are blocked.
pub fn park(p: u64, measure: &mut dyn FnMut() -> Result<(), String>) -> Result<(), String> {
    let (ready_tx, ready_rx) = channel::<()>();
    let mut gates = Vec::with_capacity(p as usize);
    let mut threads = Vec::with_capacity(p as usize);
    let mut r = Ok(());
    for _ in 0..p {
        let (tx, rx) = channel::<()>();
        let ready = ready_tx.clone();
        match std::thread::Builder::new().spawn(move || {
            let _ = ready.send(());
            let _ = rx.recv();
        }) {
            Ok(t) => {
                gates.push(tx);
                threads.push(t);
            }
            Err(e) => {
                r = Err(format!("thread {} of {p}: {e}", threads.len()));
                break;
            }
        }
    }
    if r.is_ok() {
        drop(ready_tx);
        r = (0..p).try_for_each(|_| ready_rx.recv().map_err(|_| "a parked thread ended".to_string()));
        if r.is_ok() {
            r = measure();
        }
    }
    gates.clear(); // every blocked recv fails: the threads return
    for t in threads {
        let _ = t.join();
    }
    r
}
