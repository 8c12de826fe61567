package flightsrv

import "sync"

// specWorkers runs speculative runs on long-lived goroutines. A run plans, opens and reads
// the first batch of a query on a deep call stack (planner, index search, page decoding):
// a new goroutine per run starts with a small stack and grows it by copying, several times,
// on every query (a few microseconds of a point lookup's critical path). A worker keeps its
// grown stack between runs (the garbage collector shrinks it when it stays mostly unused).
//
// At most max workers exist, started as runs need them; a run that finds every worker busy
// gets a goroutine of its own, as before. The pool belongs to a specRegistry, whose mutex
// serializes submit and close.
type specWorkers struct {
	work    chan func() // unbuffered: a run goes to a worker waiting on it
	max     int
	workers int            // started so far
	wg      sync.WaitGroup // workers and overflow goroutines still running
	closed  bool
}

func newSpecWorkers(max int) *specWorkers {
	return &specWorkers{work: make(chan func()), max: max}
}

// submit runs f on an idle worker, on a new worker, or on a goroutine of its own. The
// caller holds the registry's mutex and has checked that the pool is not closed.
func (p *specWorkers) submit(f func()) {
	select {
	case p.work <- f:
		return
	default:
	}
	p.wg.Add(1)
	if p.workers < p.max {
		p.workers++
		go p.worker(f)
		return
	}
	go func() {
		defer p.wg.Done()
		f()
	}()
}

// worker runs f, then every run handed to it until the pool closes.
func (p *specWorkers) worker(f func()) {
	defer p.wg.Done()
	for ok := true; ok; f, ok = <-p.work {
		f()
	}
}

// close stops the workers once their runs are done; the caller holds the registry's mutex.
// wait then waits for every worker and overflow goroutine to end.
func (p *specWorkers) close() {
	if !p.closed {
		p.closed = true
		close(p.work)
	}
}

// wait waits until every worker and overflow goroutine has ended (after close).
func (p *specWorkers) wait() { p.wg.Wait() }
