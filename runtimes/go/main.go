// ctxbench-rt-go: issue 24's Go harness. Two goroutines hand control back
// and forth (an unbuffered channel, runtime.Gosched, iter.Pull's coroutine
// switch, and two OS-thread-locked goroutines over a channel), measured the
// way the engine measures (runtimes/PROTOCOL.md); JSON lines on stdout.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// opts is the protocol's command line (runtimes/PROTOCOL.md), the same in every language.
type opts struct {
	mechanisms  []string
	placement   string
	groups      int
	iterations  int
	minSampleUs int
	warmupMs    int
	delays      []int64 // one, or a few taken in turn (the known answer's interleaving)
	spawn       int
	park        int
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "ctxbench-rt-go: "+format+"\n", a...)
	os.Exit(1)
}

func emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fail("cannot write a record: %v", err)
	}
	os.Stdout.Write(append(b, '\n'))
}

// count reads a bounded non-negative integer argument (flag package would
// print its usage over several lines; the protocol wants one).
func count(args []string, i int, lo, hi int64) int64 {
	if i+1 >= len(args) {
		fail("%s needs a value", args[i])
	}
	v, err := strconv.ParseInt(args[i+1], 10, 64)
	if err != nil || v < lo || v > hi {
		fail("%s must be an integer in [%d, %d], not %q", args[i], lo, hi, args[i+1])
	}
	return v
}

func parse(args []string) opts {
	o := opts{placement: "pinned", groups: 3, iterations: 10, minSampleUs: 2000, warmupMs: 200, delays: []int64{0}}
	for i := 0; i < len(args); i += 2 {
		switch args[i] {
		case "--mechanisms":
			if i+1 >= len(args) {
				fail("--mechanisms needs a value")
			}
			o.mechanisms = strings.Split(args[i+1], ",")
		case "--placement":
			if i+1 >= len(args) || (args[i+1] != "pinned" && args[i+1] != "default") {
				fail("--placement must be pinned or default")
			}
			o.placement = args[i+1]
		case "--groups":
			o.groups = int(count(args, i, 1, 1000))
		case "--iterations":
			o.iterations = int(count(args, i, 1, 100000))
		case "--min-sample-us":
			o.minSampleUs = int(count(args, i, 1, 1000000))
		case "--warmup-ms":
			o.warmupMs = int(count(args, i, 0, 60000))
		case "--delay-ns":
			if i+1 >= len(args) {
				fail("--delay-ns needs a value")
			}
			o.delays = nil
			for _, v := range strings.Split(args[i+1], ",") {
				o.delays = append(o.delays, count([]string{"--delay-ns", v}, 0, 0, 1000000000))
			}
			if len(o.delays) > 4 || len(slices.Compact(slices.Sorted(slices.Values(o.delays)))) != len(o.delays) {
				fail("--delay-ns must be 1 to 4 distinct integers, not %q", args[i+1])
			}
		case "--spawn":
			o.spawn = int(count(args, i, 0, 10000000))
		case "--park":
			o.park = int(count(args, i, 0, 10000000))
		default:
			fail("unknown argument %q", args[i])
		}
	}
	for _, m := range o.mechanisms {
		if _, ok := mechanisms[m]; !ok {
			fail("unknown mechanism %q (--list names them)", m)
		}
	}
	if len(o.mechanisms) == 0 {
		fail("--mechanisms names none")
	}
	return o
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--list" {
		for _, name := range order {
			emit(map[string]string{"mechanism": name, "doc": mechanisms[name].doc})
		}
		return
	}
	o := parse(os.Args[1:])
	version := os.Getenv("CTXBENCH_VERSION")
	if version == "" {
		version = "0"
	}
	emit(map[string]any{
		"tool": map[string]string{"name": "ctxbench-rt-go", "version": version},
		"runtime": map[string]any{"name": "go", "version": runtime.Version(), "flags": map[string]any{
			"GOMAXPROCS": runtime.GOMAXPROCS(0), "NumCPU": runtime.NumCPU(), "GOARCH": runtime.GOARCH,
			"compiler": runtime.Compiler, "GOGC": os.Getenv("GOGC"), "GODEBUG": os.Getenv("GODEBUG")}},
	})
	families := map[string]bool{}
	for _, name := range o.mechanisms {
		m := mechanisms[name]
		for _, r := range handoff(o, name, m) {
			emit(r)
		}
		families[m.family] = true
	}
	for _, f := range familyOrder {
		if !families[f] {
			continue
		}
		if o.spawn > 0 {
			emit(spawnRecord(o, f))
		}
		if o.park > 0 {
			emit(parkRecord(o, f))
		}
	}
}
