package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/load"
)

// workers is one bench process against a sweep of two worker processes at
// the same total rate, on one single-broker Kafka, rounds alternating which
// goes first. The two-worker side is merged with `bench merge` from the
// results topic; both sides write the seeds-shaped tables, which this
// collects in report.md.
func workers(ctx context.Context, args []string) (err error) {
	s := newSettings("workers", "workers [flags]")
	rounds := s.Int("rounds", 2, "rounds, each one 1-worker and one 2-worker run")
	rate := s.Int("rate", 20000, "records/s in all")
	secs := s.Int("secs", 20, "seconds per run")
	size := s.Int("size", 100, "record size in bytes")
	partitions := s.Int("partitions", 6, "partitions of each topic")
	acks := s.String("acks", "1", "acks: 0, 1 or all")
	out := s.String("out", "", "directory for logs, the bench file and report.md (default: a temporary one, removed)")
	if err := s.parse(args); err != nil {
		return err
	}
	work, bin, cleanup, err := exporterIn(ctx, *out, "bench-workers")
	if err != nil {
		return err
	}
	defer cleanup()
	rep, err := newReport(filepath.Join(work, "report.md"))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := rep.close(); err == nil {
			err = cerr
		}
	}()
	c, err := startBroker(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	brokers := strings.Join(c.Bootstrap(), ",")
	file := filepath.Join(work, "bench.yml")
	if err := writeYAML(file, workersFile{
		Kafka: kafkaKeys{Brokers: c.Bootstrap()}, Duration: fmt.Sprintf("%ds", *secs), WarmupRecords: 1000,
		Rate: float64(*rate), DrainTimeout: "20s",
		Defaults: probeKeys{RecordSize: *size, CreateTopic: &topicKeys{Partitions: int32(*partitions)}, Producer: &producerKeys{Acks: *acks}},
	}); err != nil {
		return err
	}
	avg := "unknown"
	if l, err := load.AvgWithContext(ctx); err == nil {
		avg = fmt.Sprintf("%.2f %.2f %.2f", l.Load1, l.Load5, l.Load15)
	}
	rep.say("bench-workers: %d records/s x %d B for %ds, %d partitions, acks=%s, Kafka %s, %d cores, load average %s at the start",
		*rate, *size, *secs, *partitions, *acks, c.KafkaVersion(), runtime.NumCPU(), avg)
	rep.say("")
	one := func(round int) error {
		md := filepath.Join(work, fmt.Sprintf("one-%d.md", round))
		if err := runLogged(ctx, filepath.Join(work, fmt.Sprintf("one-%d", round)), bin, "bench", "--bench.file="+file, "--log.level=warn", "--output", md); err != nil {
			return err
		}
		rep.say("1 worker, round %d:", round)
		rep.say("")
		return rep.file(md)
	}
	two := func(round int) error {
		run := fmt.Sprintf("workers-%d", round)
		start := time.Now().UTC().Add(5 * time.Second).Format("2006-01-02T15:04:05Z")
		errs := make(chan error, 2)
		for i := range 2 {
			go func() {
				errs <- runLogged(ctx, filepath.Join(work, fmt.Sprintf("two-%d-%d", round, i)), bin, "bench", "--bench.file="+file, "--log.level=warn",
					"--workers=2", "--worker-index="+strconv.Itoa(i), "--start-at="+start, "--run="+run)
			}()
		}
		for range 2 {
			if err := <-errs; err != nil {
				return err
			}
		}
		prefix := filepath.Join(work, fmt.Sprintf("merged-%d", round))
		if err := runLogged(ctx, prefix, bin, "bench", "merge", "--kafka.brokers="+brokers, "--run="+run, "--workers=2", "--timeout=1m", "--output", prefix+".md"); err != nil {
			return err
		}
		rep.say("2 workers (merged), round %d:", round)
		rep.say("")
		if err := rep.file(prefix + ".md"); err != nil {
			return err
		}
		return rep.mergeNotes(prefix + ".err")
	}
	for round := 1; round <= *rounds; round++ {
		first, second := one, two
		if round%2 == 0 {
			first, second = two, one
		}
		if err := first(round); err != nil {
			return err
		}
		if err := second(round); err != nil {
			return err
		}
	}
	log.Printf("report: %s", filepath.Join(work, "report.md"))
	return nil
}

// workersFile is the bench file of both sides.
type workersFile struct {
	Kafka         kafkaKeys `yaml:"kafka"`
	Duration      string    `yaml:"duration"`
	WarmupRecords int64     `yaml:"warmup_records"`
	Rate          float64   `yaml:"rate"`
	DrainTimeout  string    `yaml:"drain_timeout"`
	Defaults      probeKeys `yaml:"defaults"`
}

// file copies a Markdown file of bench's tables into the report, a blank
// line after it.
func (r *report) file(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r.say("%s", strings.TrimRight(string(b), "\n"))
	r.say("")
	return nil
}

// mergeNotes copies what `bench merge` noted on stderr about the merge
// (workers late, records missing) into the report.
func (r *report) mergeNotes(stderr string) error {
	f, err := os.Open(stderr)
	if err != nil {
		return err
	}
	defer f.Close() //nolint:errcheck // read only
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if note, ok := strings.CutPrefix(sc.Text(), "kafka_bench_exporter bench merge: "); ok {
			r.say("merge: %s", note)
		}
	}
	return sc.Err()
}
