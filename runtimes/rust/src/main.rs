//! ctxbench-rt-rust: the Rust harness of `ctxbench runtimes` (issue 24).
//! Speaks the protocol of runtimes/PROTOCOL.md: arguments in, JSON lines out.
mod clock;
mod coro_mech;
mod measure;
mod thread_mech;
mod tokio_mech;

use measure::{Opts, Pair, Samples};
use serde_json::{json, Value};

const NAME: &str = "ctxbench-rt-rust";
/// At most this many kernel threads are parked for --park (a 10^5 of them
/// would hit the host's thread limits); the result says how many were.
const THREAD_PARK_CAP: u64 = 2000;

struct Mechanism {
    name: &'static str,
    family: &'static str,
    doc: &'static str,
}

const MECHANISMS: &[Mechanism] = &[
    Mechanism { name: "tokio-notify", family: "tokio-task", doc: "two tokio tasks wake each other with tokio::sync::Notify" },
    Mechanism { name: "tokio-mpsc", family: "tokio-task", doc: "two tokio tasks pass a token over two bounded tokio::sync::mpsc channels" },
    Mechanism { name: "corosensei", family: "corosensei", doc: "a stackful corosensei coroutine and its caller resume and suspend each other on one thread" },
    Mechanism { name: "thread-channel", family: "thread", doc: "two std::thread kernel threads pass a token over two std::sync::mpsc channels" },
];

struct Args {
    mechanisms: Vec<&'static Mechanism>,
    pinned: bool,
    opts: Opts,
    spawn: Option<u64>,
    park: Option<u64>,
    list: bool,
}

fn number(p: &mut lexopt::Parser, flag: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let v = p.value().map_err(|e| e.to_string())?;
    let s = v.to_string_lossy();
    match s.parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!("--{flag} wants an integer in [{lo}, {hi}], not {s:?}")),
    }
}

// lexopt: the parsing itself; the checks are the protocol's.
fn parse() -> Result<Args, String> {
    use lexopt::prelude::*;
    let mut a = Args {
        mechanisms: MECHANISMS.iter().collect(),
        pinned: false,
        opts: Opts { groups: 3, iterations: 10, min_sample_ns: 1_000_000, warmup_ms: 200, delays: vec![0] },
        spawn: None,
        park: None,
        list: false,
    };
    let mut placement = None;
    let mut p = lexopt::Parser::from_env();
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("list") => a.list = true,
            Long("mechanisms") => {
                let v = p.value().map_err(|e| e.to_string())?.to_string_lossy().into_owned();
                a.mechanisms = v
                    .split(',')
                    .map(|m| MECHANISMS.iter().find(|k| k.name == m).ok_or(format!("unknown mechanism {m:?} (--list shows them)")))
                    .collect::<Result<_, _>>()?;
            }
            Long("placement") => {
                let v = p.value().map_err(|e| e.to_string())?.to_string_lossy().into_owned();
                placement = Some(match v.as_str() {
                    "pinned" => true,
                    "default" => false,
                    _ => return Err(format!("--placement is pinned or default, not {v:?}")),
                });
            }
            Long("groups") => a.opts.groups = number(&mut p, "groups", 1, 1000)? as usize,
            Long("iterations") => a.opts.iterations = number(&mut p, "iterations", 1, 100_000)? as usize,
            Long("min-sample-us") => a.opts.min_sample_ns = number(&mut p, "min-sample-us", 1, 1_000_000)? * 1000,
            Long("warmup-ms") => a.opts.warmup_ms = number(&mut p, "warmup-ms", 0, 60_000)?,
            Long("delay-ns") => {
                // one delay, or several interleaved group by group (one result each)
                let v = p.value().map_err(|e| e.to_string())?.to_string_lossy().into_owned();
                a.opts.delays = v
                    .split(',')
                    .map(|d| d.parse::<u64>().ok().filter(|d| *d <= 10_000_000))
                    .collect::<Option<Vec<_>>>()
                    .ok_or(format!("--delay-ns wants integers in [0, 10000000], comma-separated, not {v:?}"))?;
            }
            Long("spawn") => a.spawn = Some(number(&mut p, "spawn", 1, 1_000_000)?),
            Long("park") => a.park = Some(number(&mut p, "park", 1, 1_000_000)?),
            _ => return Err(arg.unexpected().to_string()),
        }
    }
    if !a.list {
        a.pinned = placement.ok_or("--placement pinned|default is required")?;
    }
    Ok(a)
}

fn placement(pinned: bool) -> &'static str {
    if pinned {
        "pinned"
    } else {
        "default"
    }
}

fn workers(m: &Mechanism, pinned: bool) -> Result<usize, String> {
    match m.family {
        "tokio-task" => tokio_mech::workers(pinned),
        "thread" => Ok(2),
        _ => Ok(1),
    }
}

fn make_pair(m: &Mechanism, pinned: bool, delay: u64) -> Result<Box<dyn Pair>, String> {
    Ok(match m.name {
        "tokio-notify" => Box::new(tokio_mech::NotifyPair { rt: tokio_mech::runtime(pinned)?, delay }),
        "tokio-mpsc" => Box::new(tokio_mech::MpscPair { rt: tokio_mech::runtime(pinned)?, delay }),
        "corosensei" => Box::new(coro_mech::CoroPair::new(delay)),
        _ => Box::new(thread_mech::ThreadPair::new(delay)?),
    })
}

fn result(id: String, quantity: &str, unit: &str, doc: &str, params: Value, s: &Samples, samples: Vec<f64>, raw: Value) -> Value {
    json!({
        "id": id, "quantity": quantity, "unit": unit, "doc": doc, "params": params,
        "samples": samples, "group": s.group, "raw": raw,
        "verify": {"voluntary": s.voluntary, "involuntary": s.involuntary, "source": "getrusage(RUSAGE_SELF) ru_nvcsw/ru_nivcsw, whole process"},
        "warmup": {"method": s.warmup}, "warnings": s.warnings,
    })
}

fn run(a: &Args) -> Result<(), String> {
    let (pl, o) = (placement(a.pinned), &a.opts);
    let tokio_workers = tokio_mech::workers(a.pinned)?;
    println!(
        "{}",
        json!({"tool": {"name": NAME, "version": env!("CARGO_PKG_VERSION")},
               "runtime": {"name": "rust", "version": env!("RT_RUSTC_VERSION"),
                           "flags": {"tokio": env!("RT_TOKIO_VERSION"), "corosensei": env!("RT_COROSENSEI_VERSION"),
                                     "build": env!("RT_PROFILE"),
                                     "tokio_scheduler": if a.pinned { "current_thread" } else { "multi_thread" },
                                     "tokio_workers": tokio_workers}}})
    );
    let excess = o.delays.iter().copied().filter(|&d| d > 0).map(clock::calibrate_spin).last().unwrap_or(0);
    let mut families = Vec::new();
    for m in &a.mechanisms {
        for (s, d) in measure::handoff(&|d| make_pair(m, a.pinned, d), o)?.iter().zip(&o.delays) {
            let samples = s.total_ns.iter().zip(&s.count).map(|(t, c)| *t as f64 / *c as f64).collect();
            let params = json!({"runtime": "rust", "mechanism": m.name, "placement": pl, "n": s.n,
                                "delay_ns": d, "delay_overhead_ns": if *d > 0 { excess } else { 0 },
                                "workers": workers(m, a.pinned)?});
            let raw = json!({"total_ns": s.total_ns, "handoffs": s.count});
            let mut r = result(format!("runtimes/rust/{}/{pl}", m.name), "handoff", "ns", m.doc, params, s, samples, raw);
            r["warmup"]["ms"] = json!(o.warmup_ms);
            println!("{r}");
        }
        if !families.contains(&m.family) {
            families.push(m.family);
        }
    }
    for f in families {
        if let Some(k) = a.spawn {
            let rt = tokio_mech::runtime(a.pinned)?;
            let (doc, mut batch): (&str, Box<measure::SpawnBatch>) = match f {
                "tokio-task" => ("spawn and await one empty tokio task, from a task", Box::new(|k| tokio_mech::spawn_batch(&rt, k))),
                "corosensei" => ("create a corosensei coroutine (its own mmap'ed stack), run it to completion, drop it", Box::new(coro_mech::spawn_batch)),
                _ => ("std::thread::spawn an empty kernel thread and join it", Box::new(thread_mech::spawn_batch)),
            };
            let s = measure::spawn(&mut batch, k, o)?;
            let samples = s.total_ns.iter().map(|t| *t as f64 / k as f64).collect();
            let params = json!({"runtime": "rust", "mechanism": f, "placement": pl, "n": k, "workers": if f == "tokio-task" { tokio_workers } else { 1 }});
            let raw = json!({"total_ns": s.total_ns, "spawns": s.count});
            let mut r = result(format!("runtimes/rust/{f}/spawn/{pl}"), "spawn", "ns", doc, params, &s, samples, raw);
            r["warmup"]["ms"] = json!(0);
            println!("{r}");
        }
        if let Some(p) = a.park {
            let rt = tokio_mech::runtime(a.pinned)?;
            let p = match f {
                "thread" => p.min(THREAD_PARK_CAP),
                "corosensei" => p.min(coro_mech::park_cap()),
                _ => p,
            };
            let (doc, mut run): (&str, Box<measure::ParkRun>) = match f {
                "tokio-task" => ("resident bytes per tokio task parked on a Notify", Box::new(|p, m: &mut dyn FnMut() -> Result<(), String>| tokio_mech::park(&rt, p, m))),
                "corosensei" => ("resident bytes per suspended corosensei coroutine (default stack)", Box::new(coro_mech::park)),
                _ => ("resident bytes per kernel thread blocked on a channel (user memory only: the kernel stack is not in RSS)", Box::new(thread_mech::park)),
            };
            let mut s = measure::park(&mut run, p, o)?;
            if Some(p) != a.park {
                let why = if f == "thread" { "the host's thread limits" } else { "vm.max_map_count: a stack is two memory maps" };
                s.warnings.push(format!("{p} parked, not the {} asked ({why})", a.park.unwrap_or(0)));
            }
            let samples = s.rss_before.iter().zip(&s.rss_after).map(|(b, a)| (a - b) as f64 / p as f64).collect();
            let params = json!({"runtime": "rust", "mechanism": f, "placement": pl, "parked": p});
            let raw = json!({"rss_before": s.rss_before, "rss_after": s.rss_after, "source": "VmRSS of /proc/self/status"});
            let r = result(format!("runtimes/rust/{f}/memory/{pl}"), "memory", "bytes", doc, params, &s, samples, raw);
            println!("{r}");
        }
    }
    Ok(())
}

fn main() {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{NAME}: {e}");
            std::process::exit(1);
        }
    };
    if a.list {
        for m in MECHANISMS {
            println!("{}", json!({"mechanism": m.name, "doc": m.doc}));
        }
        return;
    }
    if let Err(e) = run(&a) {
        eprintln!("{NAME}: {e}");
        std::process::exit(1);
    }
}
