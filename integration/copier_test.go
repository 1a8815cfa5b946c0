package integration

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// copier is a small, deterministic replicator for tests: it re-produces each
// record of a source topic (key, value, headers, timestamp, partition) to a
// target topic on the same cluster, in source offset order, and can be
// paused, resumed, made to copy an exact number of records, and rewound.
// Unlike MirrorMaker 2 it does nothing on its own schedule.
type copier struct {
	t       *testing.T
	brokers []string
	source  string
	target  string
	src     *kgo.Client

	// mu is held by every copy step, so a method that takes it sees the
	// copier between records.
	mu      sync.Mutex
	dst     *kgo.Client
	running bool
	pending []*kgo.Record   // polled, not copied yet
	next    map[int32]int64 // next source offset to copy, per partition
	copied  int             // records produced to the target, ever
	lastErr error

	cancel context.CancelFunc
	done   chan struct{}
}

// startCopier copies source to target on brokers from the source's first
// record, running; it stops when the test ends.
func startCopier(t *testing.T, brokers []string, source, target string) *copier {
	t.Helper()
	src, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(source),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond),
		kgo.MetadataMinAge(100*time.Millisecond), kgo.MetadataMaxAge(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &copier{t: t, brokers: brokers, source: source, target: target, src: src, running: true,
		next: map[int32]int64{}, cancel: cancel, done: make(chan struct{})}
	c.dst = c.newProducer()
	go c.loop(ctx)
	t.Cleanup(func() {
		cancel()
		<-c.done
		c.dst.Close()
		src.Close()
	})
	return c
}

func (c *copier) newProducer() *kgo.Client {
	dst, err := kgo.NewClient(kgo.SeedBrokers(c.brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(0))
	if err != nil {
		c.t.Fatal(err)
	}
	return dst
}

func (c *copier) loop(ctx context.Context) {
	defer close(c.done)
	for ctx.Err() == nil {
		c.mu.Lock()
		if c.running {
			c.step(ctx, -1)
		}
		c.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
}

// step copies up to limit pending records (all when limit < 0), polling
// the source first when none is pending, and returns how many it copied.
// A record that is not the next of its partition (data fetched before a
// rewind) is dropped. It is called with mu held.
func (c *copier) step(ctx context.Context, limit int) int {
	if len(c.pending) == 0 {
		pctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		fs := c.src.PollRecords(pctx, 1000)
		cancel()
		fs.EachRecord(func(r *kgo.Record) { c.pending = append(c.pending, r) })
	}
	var batch []*kgo.Record
	n := 0
	for n < len(c.pending) && (limit < 0 || len(batch) < limit) {
		r := c.pending[n]
		n++
		if r.Offset != c.next[r.Partition] {
			continue
		}
		c.next[r.Partition]++
		batch = append(batch, &kgo.Record{Topic: c.target, Partition: r.Partition, Key: r.Key, Value: r.Value,
			Headers: r.Headers, Timestamp: r.Timestamp})
	}
	c.pending = c.pending[n:]
	if len(batch) == 0 {
		return 0
	}
	n = len(batch)
	// Retried until written: a record the copier took must reach the
	// target once, or the test's accounting of what was copied is off.
	for ctx.Err() == nil {
		var failed []*kgo.Record
		for _, res := range c.dst.ProduceSync(ctx, batch...) {
			if res.Err != nil {
				c.lastErr = res.Err
				r := res.Record
				failed = append(failed, &kgo.Record{Topic: r.Topic, Partition: r.Partition, Key: r.Key, Value: r.Value,
					Headers: r.Headers, Timestamp: r.Timestamp})
			}
		}
		c.copied += len(batch) - len(failed)
		if len(failed) == 0 {
			return n
		}
		batch = failed
		time.Sleep(100 * time.Millisecond)
	}
	return 0
}

// pause stops copying after the record being copied; it returns how many
// records were copied so far.
func (c *copier) pause() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running = false
	return c.copied
}

// resume copies again from where the copier stopped (or was rewound to).
func (c *copier) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running = true
}

// copyExactly copies the next n records of the source while paused.
func (c *copier) copyExactly(t *testing.T, n int) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for got := 0; got < n; {
		if ctx.Err() != nil {
			t.Fatalf("copied %d of %d records (last produce error: %v)", got, n, c.lastErr)
		}
		got += c.step(ctx, n-got)
	}
}

// targetRecreated replaces the producer: a Kafka client keeps failing on
// the id of a topic it has seen once the topic is recreated.
func (c *copier) targetRecreated() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dst.Close()
	c.dst = c.newProducer()
}

// rewind moves the copier back k records on every partition it copied, so
// that it copies them again; it returns how many records that is.
func (c *copier) rewind(k int64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	to := map[int32]kgo.EpochOffset{}
	n := 0
	for p, next := range c.next {
		back := min(k, next)
		c.next[p] = next - back
		to[p] = kgo.EpochOffset{Epoch: -1, Offset: next - back}
		n += int(back)
	}
	c.pending = nil
	c.src.SetOffsets(map[string]map[int32]kgo.EpochOffset{c.source: to})
	return n
}

// count is how many records the copier produced to the target.
func (c *copier) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.copied
}
