package main

import (
	"iter"
	"runtime"
	"sync/atomic"
	"time"
)

// A pair of parties, fresh for each group: roundTrips(n) passes control
// there and back n times (2n one-way hand-offs); the party that receives a
// hand-off spins delayNs before passing it on.
type pair interface {
	roundTrips(n int)
	close()
}

type mechanism struct {
	doc    string
	family string // what spawn and park measure for it
	start  func(delayNs int64) pair
}

var order = []string{"channel", "gosched", "iter-pull", "lockosthread"}
var familyOrder = []string{"goroutine", "osthread"}

var mechanisms = map[string]mechanism{
	"channel": {"two goroutines pass a token over unbuffered channels (one each way)", "goroutine",
		func(d int64) pair { return newChannel(d, false) }},
	"gosched": {"two goroutines take turns on an atomic word, yielding with runtime.Gosched while waiting",
		"goroutine", newGosched},
	"iter-pull": {"iter.Pull's next(): a coroutine switch into the iterator's goroutine and back", "goroutine",
		newPull},
	"lockosthread": {"two goroutines locked to their OS threads (runtime.LockOSThread) pass a token over " +
		"unbuffered channels: every hand-off wakes another kernel thread", "osthread",
		func(d int64) pair { return newChannel(d, true) }},
}

// spin busy-waits d ns on the monotonic clock (the known-answer delay);
// the clock is read even for d = 0, so that only d differs between runs.
func spin(d int64) {
	start := time.Now()
	for time.Since(start) < time.Duration(d) {
	}
}

type channelPair struct {
	ping, pong chan struct{}
	locked     bool
	delay      int64
}

func newChannel(d int64, locked bool) pair {
	p := &channelPair{make(chan struct{}), make(chan struct{}), locked, d}
	if locked { // the measuring goroutine stays on its thread until close
		runtime.LockOSThread()
	}
	go func() {
		if locked {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		for range p.ping {
			spin(p.delay)
			p.pong <- struct{}{}
		}
	}()
	return p
}

func (p *channelPair) roundTrips(n int) {
	for i := 0; i < n; i++ {
		p.ping <- struct{}{}
		<-p.pong
		spin(p.delay)
	}
}

func (p *channelPair) close() {
	close(p.ping)
	if p.locked {
		runtime.UnlockOSThread()
	}
}

// gosched: the turn word says who holds the token (0: the measuring
// goroutine, 1: the other, 2: stop); a waiting party yields its P.
type goschedPair struct {
	turn  atomic.Int32
	delay int64
}

func newGosched(d int64) pair {
	p := &goschedPair{delay: d}
	go func() {
		for {
			t := p.turn.Load()
			for ; t == 0; t = p.turn.Load() {
				runtime.Gosched()
			}
			if t == 2 {
				return
			}
			spin(p.delay)
			p.turn.Store(0)
		}
	}()
	return p
}

func (p *goschedPair) roundTrips(n int) {
	for i := 0; i < n; i++ {
		p.turn.Store(1)
		for p.turn.Load() != 0 {
			runtime.Gosched()
		}
		spin(p.delay)
	}
}

func (p *goschedPair) close() { p.turn.Store(2) }

type pullPair struct {
	next  func() (int, bool)
	stop  func()
	delay int64
}

func newPull(d int64) pair {
	seq := func(yield func(int) bool) {
		for {
			spin(d)
			if !yield(1) {
				return
			}
		}
	}
	next, stop := iter.Pull(iter.Seq[int](seq))
	return &pullPair{next, stop, d}
}

func (p *pullPair) roundTrips(n int) {
	for i := 0; i < n; i++ {
		p.next()
		spin(p.delay)
	}
}

func (p *pullPair) close() { p.stop() }
