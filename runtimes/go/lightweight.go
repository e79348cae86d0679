package main

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

var familyDoc = map[string]string{
	"goroutine": "a goroutine",
	"osthread":  "a goroutine locked to a new OS thread (it exits locked, so the thread ends with it)",
}

// spawnOne starts one lightweight thread of the family and waits for its end.
func spawnOne(family string, done chan struct{}) {
	if family == "osthread" {
		go func() { runtime.LockOSThread(); done <- struct{}{} }() // exits locked: its thread exits too
	} else {
		go func() { done <- struct{}{} }()
	}
	<-done
}

func spawnRecord(o opts, family string) map[string]any {
	var samples []float64
	var groups []int
	done := make(chan struct{})
	for g := 0; g < o.groups; g++ {
		for i := 0; i < o.iterations; i++ {
			t0 := time.Now()
			for k := 0; k < o.spawn; k++ {
				spawnOne(family, done)
			}
			samples = append(samples, float64(time.Since(t0).Nanoseconds())/float64(o.spawn))
			groups = append(groups, g)
		}
	}
	return map[string]any{
		"id": "runtimes/go/" + family + "/spawn/" + o.placement, "quantity": "spawn", "unit": "ns",
		"doc": "start " + familyDoc[family] + " and wait for its end (ns per spawn+join, batches of K)",
		"params": map[string]any{"runtime": "go", "mechanism": family, "placement": o.placement,
			"batch": o.spawn, "workers": runtime.GOMAXPROCS(0)},
		"samples": samples, "group": groups, "raw": map[string]any{}, "warnings": []string{},
	}
}

// vmRSS is the resident set in bytes (/proc/self/status VmRSS).
func vmRSS() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		fail("cannot read /proc/self/status: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	fail("no VmRSS in /proc/self/status")
	return 0
}

// maxOSThreads bounds the OS threads parked at once: each costs a kernel
// stack and two memory maps (vm.max_map_count is 65530 by default), so 10^5
// of them cannot be parked; the count used is in params.parked.
const maxOSThreads = 1000

func parkRecord(o opts, family string) map[string]any {
	parked := o.park
	warnings := []string{}
	if family == "osthread" && parked > maxOSThreads {
		parked = maxOSThreads
		warnings = append(warnings, "OS threads: "+strconv.Itoa(maxOSThreads)+" parked, not "+
			strconv.Itoa(o.park)+" (each is a kernel thread; the process's map count would run out)")
	}
	var samples []float64
	var groups []int
	for g := 0; g < o.groups; g++ {
		runtime.GC()
		debug.FreeOSMemory()
		before := vmRSS()
		release := make(chan struct{})
		var started, ended sync.WaitGroup
		started.Add(parked)
		ended.Add(parked)
		for k := 0; k < parked; k++ {
			go func() {
				if family == "osthread" {
					runtime.LockOSThread()
				}
				started.Done()
				<-release
				ended.Done()
			}()
		}
		started.Wait()
		samples = append(samples, (vmRSS()-before)/float64(parked))
		groups = append(groups, g)
		close(release)
		ended.Wait()
	}
	return map[string]any{
		"id": "runtimes/go/" + family + "/memory/" + o.placement, "quantity": "memory", "unit": "bytes",
		"doc": "resident memory per parked " + strings.TrimPrefix(familyDoc[family], "a ") +
			" blocked on a channel: (VmRSS with P parked - VmRSS before) / P, after a GC",
		"params": map[string]any{"runtime": "go", "mechanism": family, "placement": o.placement,
			"parked": parked, "workers": runtime.GOMAXPROCS(0)},
		"samples": samples, "group": groups, "raw": map[string]any{}, "warnings": warnings,
	}
}
