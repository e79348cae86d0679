package main

import (
	"iter"
	"runtime"
	"sync/atomic"
	"time"
)

// A pair of parties, fresh for each group: roundTrips(n, d) passes control
// there and back n times (2n one-way hand-offs); the party that receives a
// hand-off spins d ns before passing it on (only when d > 0, as the
// engine's spin_ns: the plain loop stays the mechanism alone). The delay
// travels with the hand-off, so that samples can take several in turn.
type pair interface {
	roundTrips(n int, d int64)
	close()
}

type mechanism struct {
	doc    string
	family string // what spawn and park measure for it
	start  func() pair
}

var order = []string{"channel", "gosched", "iter-pull", "lockosthread"}
var familyOrder = []string{"goroutine", "osthread"}

var mechanisms = map[string]mechanism{
	"channel": {"two goroutines pass a token over unbuffered channels (one each way)", "goroutine",
		func() pair { return newChannel(false) }},
	"gosched": {"two goroutines take turns on an atomic word, yielding with runtime.Gosched while waiting",
		"goroutine", newGosched},
	"iter-pull": {"iter.Pull's next(): a coroutine switch into the iterator's goroutine and back", "goroutine",
		newPull},
	"lockosthread": {"two goroutines locked to their OS threads (runtime.LockOSThread) pass a token over " +
		"unbuffered channels: every hand-off wakes another kernel thread", "osthread",
		func() pair { return newChannel(true) }},
}

// spin busy-waits d ns on the monotonic clock (the known-answer delay).
func spin(d int64) {
	start := time.Now()
	for time.Since(start) < time.Duration(d) {
	}
}

type channelPair struct {
	ping   chan int64 // carries the delay
	pong   chan struct{}
	locked bool
}

func newChannel(locked bool) pair {
	p := &channelPair{make(chan int64), make(chan struct{}), locked}
	if locked { // the measuring goroutine stays on its thread until close
		runtime.LockOSThread()
	}
	go func() {
		if locked {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
		}
		for d := range p.ping {
			if d > 0 {
				spin(d)
			}
			p.pong <- struct{}{}
		}
	}()
	return p
}

func (p *channelPair) roundTrips(n int, d int64) {
	for i := 0; i < n; i++ {
		p.ping <- d
		<-p.pong
		if d > 0 {
			spin(d)
		}
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
	delay atomic.Int64
}

func newGosched() pair {
	p := &goschedPair{}
	go func() {
		for {
			t := p.turn.Load()
			for ; t == 0; t = p.turn.Load() {
				runtime.Gosched()
			}
			if t == 2 {
				return
			}
			if d := p.delay.Load(); d > 0 {
				spin(d)
			}
			p.turn.Store(0)
		}
	}()
	return p
}

func (p *goschedPair) roundTrips(n int, d int64) {
	p.delay.Store(d)
	for i := 0; i < n; i++ {
		p.turn.Store(1)
		for p.turn.Load() != 0 {
			runtime.Gosched()
		}
		if d > 0 {
			spin(d)
		}
	}
}

func (p *goschedPair) close() { p.turn.Store(2) }

type pullPair struct {
	next  func() (int, bool)
	stop  func()
	delay int64 // written before next(): the coroutine switch orders it
}

func newPull() pair {
	p := &pullPair{}
	seq := func(yield func(int) bool) {
		for {
			if d := p.delay; d > 0 {
				spin(d)
			}
			if !yield(1) {
				return
			}
		}
	}
	p.next, p.stop = iter.Pull(iter.Seq[int](seq))
	return p
}

func (p *pullPair) roundTrips(n int, d int64) {
	p.delay = d
	for i := 0; i < n; i++ {
		p.next()
		if d > 0 {
			spin(d)
		}
	}
}

func (p *pullPair) close() { p.stop() }
