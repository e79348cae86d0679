package main

import (
	"fmt"
	"runtime"
	"slices"
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

// spinTarget is what the receiving party spins for so that a hand-off
// grows by d: d less what the spin costs beyond its target (the clock
// reads, the overshoot), measured here: the median of many short batches,
// so that a batch the CPU was taken from does not decide it. Returns
// (target, overhead).
func spinTarget(d int64) (int64, int64) {
	if d == 0 {
		return 0, 0
	}
	k := max(1, 20000/d) // about 20 us a batch
	var per []float64
	for range 101 {
		t0 := time.Now()
		for range k {
			spin(d)
		}
		per = append(per, float64(time.Since(t0).Nanoseconds())/float64(k))
	}
	slices.Sort(per)
	overhead := int64(per[50]) - d
	return max(d-overhead, 0), overhead
}

// calibrate doubles the round trips of a batch until it lasts minSample
// (as the engine sizes its samples), within the caps above.
func calibrate(p pair, minSample time.Duration, d int64) int {
	n := 1
	for {
		t0 := time.Now()
		p.roundTrips(n, d)
		dt := time.Since(t0)
		if dt >= minSample || dt >= maxSample/2 || n >= maxRoundTrips {
			return n
		}
		n *= 2
	}
}

// warmup runs batches of n for ms milliseconds (the delays in turn); Go is
// compiled ahead of time, so there is no JIT tier to wait for: the warm-up
// fills caches, grows the goroutines' stacks and lets the scheduler
// settle. Its last three batches at the first delay are reported, so a
// reader sees the time had settled.
func warmup(p pair, n, ms int, spins []int64) map[string]any {
	var last []float64
	end := time.Now().Add(time.Duration(ms) * time.Millisecond)
	batches := 0
	for ; batches < maxWarmup && (batches < 3*len(spins) || time.Now().Before(end)); batches++ {
		t0 := time.Now()
		p.roundTrips(n, spins[batches%len(spins)])
		if batches%len(spins) == 0 {
			last = append(last, float64(time.Since(t0).Nanoseconds())/float64(2*n))
			last = last[max(0, len(last)-3):]
		}
	}
	lo, hi := slices.Min(last), slices.Max(last)
	return map[string]any{"ms": ms, "batches": batches, "last_ns": last, "spread": (hi - lo) / lo,
		"method": "ahead-of-time compiled (no JIT tiers); the last three warm-up batches' ns per hand-off " +
			"and their spread (max - min) / min are given"}
}

type series struct {
	samples, totals, handoffs []float64
	groups                    []int
	vol, invol                []int64
	spins, overheads          []int64 // the delay's spin target and overhead, per group
}

// handoff measures one mechanism: G groups of I samples per delay (the
// delays in turn), each group with fresh parties and one untimed batch
// first; one record per delay. The spin's target is measured again for
// each group: the CPU's speed (and so the spin's own overhead) changes
// when the machine's load does.
func handoff(o opts, name string, m mechanism) []map[string]any {
	spins := make([]int64, len(o.delays))
	out := make([]series, len(o.delays))
	var warm map[string]any
	n := 0
	minSample := time.Duration(o.minSampleUs) * time.Microsecond
	for g := 0; g < o.groups; g++ {
		for k, d := range o.delays {
			var overhead int64
			spins[k], overhead = spinTarget(d)
			out[k].spins, out[k].overheads = append(out[k].spins, spins[k]), append(out[k].overheads, overhead)
		}
		p := m.start()
		if g == 0 {
			n = calibrate(p, minSample, spins[0])
			warm = warmup(p, n, o.warmupMs, spins)
			n = calibrate(p, minSample, spins[0]) // again, on warm caches
		} else {
			p.roundTrips(n, spins[0])
		}
		for i := 0; i < o.iterations*len(o.delays); i++ {
			k := i % len(o.delays)
			v0, i0 := rusage()
			t0 := time.Now()
			p.roundTrips(n, spins[k])
			dt := time.Since(t0)
			v1, i1 := rusage()
			s := &out[k]
			total := float64(dt.Nanoseconds())
			s.samples = append(s.samples, total/float64(2*n))
			s.totals = append(s.totals, total)
			s.handoffs = append(s.handoffs, float64(2*n))
			s.groups = append(s.groups, g)
			s.vol, s.invol = append(s.vol, v1-v0), append(s.invol, i1-i0)
		}
		p.close()
	}
	warnings := []string{}
	if procs := runtime.GOMAXPROCS(0); o.placement == "pinned" && procs != 1 {
		warnings = append(warnings, fmt.Sprintf("pinned, but GOMAXPROCS is %d (the front end sets 1)", procs))
	}
	var interleaved any
	if len(o.delays) > 1 {
		interleaved = o.delays
	}
	records := []map[string]any{}
	for k, d := range o.delays {
		s := out[k]
		records = append(records, map[string]any{
			"id": "runtimes/go/" + name + "/" + o.placement, "quantity": "handoff", "unit": "ns",
			"doc": m.doc,
			"params": map[string]any{"runtime": "go", "mechanism": name, "placement": o.placement, "n": n,
				"delay_ns": d, "delay_spin_ns": s.spins, "delay_overhead_ns": s.overheads,
				"interleaved_delays": interleaved, "workers": runtime.GOMAXPROCS(0)},
			"samples": s.samples, "group": s.groups,
			"raw": map[string]any{"total_ns": s.totals, "handoffs": s.handoffs},
			"verify": map[string]any{"voluntary": s.vol, "involuntary": s.invol,
				"source": "getrusage(RUSAGE_SELF) ru_nvcsw/ru_nivcsw around each sample (every thread of the process)"},
			"warmup": warm, "warnings": warnings,
		})
	}
	return records
}
