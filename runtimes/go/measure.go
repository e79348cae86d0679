package main

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
)

const (
	maxRoundTrips = 1 << 24     // N's cap while calibrating ...
	maxSample     = time.Second // ... and a batch's: no sample runs longer
	maxWarmup     = 100000      // warm-up batches, whatever --warmup-ms says
)

func rusage() (vol, invol int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail("getrusage: %v", err)
	}
	return ru.Nvcsw, ru.Nivcsw
}

// calibrate doubles the round trips of a batch until it lasts minSample
// (as the engine sizes its samples), within the caps above.
func calibrate(p pair, minSample time.Duration) int {
	n := 1
	for {
		t0 := time.Now()
		p.roundTrips(n)
		dt := time.Since(t0)
		if dt >= minSample || dt >= maxSample/2 || n >= maxRoundTrips {
			return n
		}
		n *= 2
	}
}

// warmup runs batches of n for ms milliseconds; Go is compiled ahead of
// time, so there is no JIT tier to wait for: the warm-up fills caches,
// grows the goroutines' stacks and lets the scheduler settle. Its last
// three batches are reported, so a reader sees the time had settled.
func warmup(p pair, n, ms int) map[string]any {
	var last []float64
	end := time.Now().Add(time.Duration(ms) * time.Millisecond)
	batches := 0
	for ; batches < maxWarmup && (batches == 0 || time.Now().Before(end)); batches++ {
		t0 := time.Now()
		p.roundTrips(n)
		last = append(last, float64(time.Since(t0).Nanoseconds())/float64(2*n))
		if len(last) > 3 {
			last = last[1:]
		}
	}
	lo, hi := last[0], last[0]
	for _, v := range last {
		lo, hi = min(lo, v), max(hi, v)
	}
	return map[string]any{"ms": ms, "batches": batches, "last_ns": last, "spread": (hi - lo) / lo,
		"method": "ahead-of-time compiled (no JIT tiers); the last three warm-up batches' ns per hand-off " +
			"and their spread (max - min) / min are given"}
}

// handoff measures one mechanism: G groups of I samples, each group with
// fresh parties and one untimed batch first.
func handoff(o opts, name string, m mechanism) map[string]any {
	var samples, totals, handoffs []float64
	var groups []int
	var vol, invol []int64
	var warm map[string]any
	n := 0
	for g := 0; g < o.groups; g++ {
		p := m.start(o.delayNs)
		if g == 0 {
			n = calibrate(p, time.Duration(o.minSampleUs)*time.Microsecond)
			warm = warmup(p, n, o.warmupMs)
			n = calibrate(p, time.Duration(o.minSampleUs)*time.Microsecond) // again, on warm code
		} else {
			p.roundTrips(n)
		}
		for i := 0; i < o.iterations; i++ {
			v0, i0 := rusage()
			t0 := time.Now()
			p.roundTrips(n)
			dt := time.Since(t0)
			v1, i1 := rusage()
			total := float64(dt.Nanoseconds())
			samples = append(samples, total/float64(2*n))
			totals = append(totals, total)
			handoffs = append(handoffs, float64(2*n))
			groups = append(groups, g)
			vol, invol = append(vol, v1-v0), append(invol, i1-i0)
		}
		p.close()
	}
	warnings := []string{}
	if procs := runtime.GOMAXPROCS(0); o.placement == "pinned" && procs != 1 {
		warnings = append(warnings, fmt.Sprintf("pinned, but GOMAXPROCS is %d (the front end sets 1)", procs))
	}
	return map[string]any{
		"id": "runtimes/go/" + name + "/" + o.placement, "quantity": "handoff", "unit": "ns",
		"doc": m.doc,
		"params": map[string]any{"runtime": "go", "mechanism": name, "placement": o.placement, "n": n,
			"delay_ns": o.delayNs, "workers": runtime.GOMAXPROCS(0)},
		"samples": samples, "group": groups,
		"raw": map[string]any{"total_ns": totals, "handoffs": handoffs},
		"verify": map[string]any{"voluntary": vol, "involuntary": invol,
			"source": "getrusage(RUSAGE_SELF) ru_nvcsw/ru_nivcsw around each sample (every thread of the process)"},
		"warmup": warm, "warnings": warnings,
	}
}
