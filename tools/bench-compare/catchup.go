package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/bench/run"
	"github.com/kafka-bench/kafka_bench_exporter/hostinfo"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
)

const (
	e2eFamily          = "kafka_bench_end_to_end_latency_seconds"
	catchUpRecords     = "kafka_bench_catchup_read_records_total"
	catchUpTopic       = "catchup-impact"
	catchUpRecordBytes = 1024
)

// catchUpImpact is what catch-up reads cost the steady probe of the same
// topic: its end-to-end latency while a catch-up read runs against while
// none does, in one daemon run, the seconds told apart by the catch-up
// records counted between two scrapes a second apart. Each round runs the
// daemon twice, reads capped at -cap-mib and uncapped, the order alternated.
// Every read starts at the log's start of a topic filled beforehand, and the
// page cache of its older segments is dropped after each read (the newest
// segment, the steady consumer's, keeps its pages), so each read is cold.
func catchUpImpact(ctx context.Context, args []string) error {
	s := newSettings("catchup", "catchup [flags]")
	out := s.String("out", "", "directory for the binary, files and logs (default: a temporary one, removed)")
	rounds := s.Int("rounds", 2, "rounds, each a capped and an uncapped daemon run, the order alternated")
	fillMiB := s.Int("fill-mib", 2048, "MiB of 1 KiB records written to the topic first: the backlog every read starts from")
	rate := s.Int("rate", 1000, "the steady probe's records/s, 1 KiB each")
	partitions := s.Int("partitions", 6, "the topic's partitions")
	reads := s.Int("reads", 4, "catch-up reads per daemon run")
	readSecs := s.Int("read-seconds", 15, "each read's max_duration, seconds")
	gapSecs := s.Int("gap-seconds", 30, "seconds from one read's max_duration to the next read's start")
	capMiB := s.Int("cap-mib", 50, "max_bytes_per_second of the capped reads, MiB/s (the default of the key)")
	if err := s.parse(args); err != nil {
		return err
	}
	for name, v := range map[string]int{"rounds": *rounds, "fill-mib": *fillMiB, "rate": *rate, "partitions": *partitions, "reads": *reads, "read-seconds": *readSecs, "gap-seconds": *gapSecs, "cap-mib": *capMiB} {
		if v <= 0 {
			return fmt.Errorf("-%s (%s): %d, want > 0", name, envName(name), v)
		}
	}
	work, bin, cleanup, err := exporterIn(ctx, *out, "bench-catchup")
	if err != nil {
		return err
	}
	defer cleanup()
	c, err := startBroker(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	brokers := c.Bootstrap()
	fill := filepath.Join(work, "fill.yml")
	noDelete, off := false, false
	if err := writeYAML(fill, benchFile{Kafka: kafkaKeys{Brokers: brokers}, NumRecords: int64(*fillMiB) * (1 << 20) / catchUpRecordBytes,
		DeleteTopics: &noDelete, Defaults: probeKeys{Topic: catchUpTopic, RecordSize: catchUpRecordBytes,
			CreateTopic: catchUpTopicKeys(*partitions), Consumer: &consumerKeys{Enabled: &off}}}); err != nil {
		return err
	}
	log.Printf("filling %s with %d MiB", catchUpTopic, *fillMiB)
	if _, err := runBench(ctx, bin, filepath.Join(work, "fill"), "--bench.file", fill); err != nil {
		return err
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return err
	}
	defer cl.Close()
	im := impact{bin: bin, work: work, brokers: brokers, adm: kadm.NewClient(cl), rate: *rate, partitions: *partitions,
		reads: *reads, read: time.Duration(*readSecs) * time.Second, gap: time.Duration(*gapSecs) * time.Second}
	caps := []int64{int64(*capMiB) << 20, 0}
	var runs []impactRun
	for r := 1; r <= *rounds; r++ {
		order := caps
		if r%2 == 0 {
			order = []int64{caps[1], caps[0]}
		}
		for _, capBytes := range order {
			settle()
			res, err := im.run(ctx, r, capBytes)
			if err != nil {
				return err
			}
			log.Printf("round %d, %s: p99 %.1f ms outside, %.1f ms during", r, res.capText(), res.outside.quantile(0.99)*1000, res.during.quantile(0.99)*1000)
			runs = append(runs, res)
		}
	}
	printImpact(runs)
	return nil
}

// catchUpTopicKeys create the topic with segments of 64 MiB, so that a
// partition's backlog spans several, and every one but the newest (the
// steady consumer's) can be dropped from the page cache.
func catchUpTopicKeys(partitions int) *topicKeys {
	return &topicKeys{Partitions: int32(partitions), ReplicationFactor: 1, Configs: map[string]string{"segment.bytes": strconv.Itoa(64 << 20)}}
}

// impact is the settings of the daemon runs.
type impact struct {
	bin, work        string
	brokers          []string
	adm              *kadm.Client
	rate, partitions int
	reads            int
	read, gap        time.Duration
}

// impactRun is one daemon run's steady end-to-end latency by the seconds
// with a catch-up read and those without, and what the reads did.
type impactRun struct {
	round                       int
	capBytes                    int64
	during, outside             sparse
	duringSecs, outsideSecs     float64
	diskMiBDuring               float64
	catchUpMiBps                []float64 // each read's
	lost, duplicated, afterSecs float64
}

func (r impactRun) capText() string {
	if r.capBytes == 0 {
		return "uncapped"
	}
	return fmt.Sprintf("capped at %d MiB/s", r.capBytes>>20)
}

// impactSample is one scrape and the disks' read bytes at its time.
type impactSample struct {
	e2e       sparse
	records   float64 // catch-up records read so far
	runs      float64 // catch-up reads ended so far
	diskBytes float64
}

func (im impact) run(ctx context.Context, round int, capBytes int64) (impactRun, error) {
	name := fmt.Sprintf("round%d-cap%d", round, capBytes>>20)
	cfg := filepath.Join(im.work, name+".yml")
	probe, err := withExtra(probeKeys{Name: "steady", Topic: catchUpTopic, Rate: float64(im.rate), RecordSize: catchUpRecordBytes,
		LagInterval: "1s", CreateTopic: catchUpTopicKeys(im.partitions)},
		map[string]any{"catch_up": []any{map[string]any{"from": "start", "interval": (im.read + im.gap).String(),
			"max_duration": im.read.String(), "max_bytes_per_second": capBytes}}})
	if err != nil {
		return impactRun{}, err
	}
	if err := writeYAML(cfg, configFile{Kafka: kafkaKeys{Brokers: im.brokers}, Probes: []any{probe}}); err != nil {
		return impactRun{}, err
	}
	d, err := startDaemon(ctx, im.bin, filepath.Join(im.work, name+".log"), "--config.file="+cfg, "--no-collector.host", "--log.level=warn")
	if err != nil {
		return impactRun{}, err
	}
	defer d.stop()
	// The first read finds the fill, or the last run's reads, cold too.
	if state := run.DropPageCache(ctx, im.adm, catchUpTopic, true); state != "cold" {
		return impactRun{}, fmt.Errorf("dropping the page cache of %s: %s", catchUpTopic, state)
	}
	res := impactRun{round: round, capBytes: capBytes}
	var prev *impactSample
	wasReading := false
	deadline := time.Now().Add(time.Duration(im.reads+1)*(im.read+im.gap) + 2*time.Minute)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return impactRun{}, ctx.Err()
		case <-tick.C:
		}
		f, err := scrape.GetProto(d.base + "/metrics")
		if err != nil {
			return impactRun{}, err
		}
		cur, ok, err := readImpactSample(ctx, f)
		if err != nil {
			return impactRun{}, err
		}
		if !ok { // the steady probe has yet to read a record
			continue
		}
		if prev != nil {
			reading := cur.records > prev.records
			delta := cur.e2e.add(prev.e2e, -1)
			switch {
			case reading:
				res.during = res.during.add(delta, 1)
				res.duringSecs++
				res.diskMiBDuring += (cur.diskBytes - prev.diskBytes) / (1 << 20)
			case wasReading:
				// The second a read ended in, and what the broker still does
				// for it: neither during nor outside.
				res.afterSecs++
			default:
				res.outside = res.outside.add(delta, 1)
				res.outsideSecs++
			}
			if cur.runs > prev.runs {
				if state := run.DropPageCache(ctx, im.adm, catchUpTopic, true); state != "cold" {
					return impactRun{}, fmt.Errorf("dropping the page cache of %s after a read: %s", catchUpTopic, state)
				}
				res.catchUpMiBps = append(res.catchUpMiBps, value(f, "kafka_bench_catchup_bytes_per_second")/(1<<20))
			}
			wasReading = reading
		}
		prev = &cur
		if cur.runs >= float64(im.reads) && !wasReading {
			res.lost, res.duplicated = value(f, "kafka_bench_records_lost_total"), value(f, "kafka_bench_records_duplicated_total")
			return res, nil
		}
		if time.Now().After(deadline) {
			return impactRun{}, fmt.Errorf("%s: %v of %d catch-up reads ended by the deadline (see %s)", name, cur.runs, im.reads, d.log.Name())
		}
	}
}

// readImpactSample reads a scrape: ok is false until the steady probe has
// latencies.
func readImpactSample(ctx context.Context, f scrape.Families) (impactSample, bool, error) {
	e2e, ok := nativeSum(f, e2eFamily)
	if !ok || e2e.count() == 0 {
		return impactSample{}, false, nil
	}
	disks, err := hostinfo.Kernel{}.DiskIO(ctx)
	if err != nil {
		return impactSample{}, false, err
	}
	var diskBytes float64
	for _, d := range hostinfo.SelectDisks(disks, wholeDisks) {
		diskBytes += float64(d.ReadBytes)
	}
	return impactSample{e2e: e2e, records: value(f, catchUpRecords), runs: value(f, "kafka_bench_catchup_runs_total"), diskBytes: diskBytes}, true, nil
}

// wholeDisks are the block devices whose reads count: whole disks, not
// their partitions (the host collector's default, host.disks).
var wholeDisks = regexp.MustCompile(`^(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)$`)

// printImpact prints a row per daemon run and, per cap, the medians over
// the rounds.
func printImpact(runs []impactRun) {
	fmt.Println("| round | catch-up reads | catch-up MiB/s, each read | seconds outside / during / just after | steady p50 ms outside / during | steady p99 ms outside / during | p99 during / outside | p99.9 ms outside / during | MiB read from the disks during reads | lost | duplicated |")
	fmt.Println("|---:|---|---|---|---|---|---:|---|---:|---:|---:|")
	ms := func(s sparse, q float64) string { return strconv.FormatFloat(s.quantile(q)*1000, 'f', 1, 64) }
	for _, r := range runs {
		mibps := make([]string, len(r.catchUpMiBps))
		for i, v := range r.catchUpMiBps {
			mibps[i] = strconv.FormatFloat(v, 'f', 1, 64)
		}
		fmt.Printf("| %d | %s | %s | %.0f / %.0f / %.0f | %s / %s | %s / %s | %.2f | %s / %s | %.0f | %.0f | %.0f |\n", r.round, r.capText(),
			strings.Join(mibps, " "), r.outsideSecs, r.duringSecs, r.afterSecs, ms(r.outside, 0.5), ms(r.during, 0.5),
			ms(r.outside, 0.99), ms(r.during, 0.99), ratio(r.during.quantile(0.99), r.outside.quantile(0.99)),
			ms(r.outside, 0.999), ms(r.during, 0.999), r.diskMiBDuring, r.lost, r.duplicated)
	}
	for _, capped := range []bool{true, false} {
		var ratios []float64
		text := ""
		for _, r := range runs {
			if (r.capBytes > 0) == capped {
				ratios = append(ratios, ratio(r.during.quantile(0.99), r.outside.quantile(0.99)))
				text = r.capText()
			}
		}
		if len(ratios) > 0 && !math.IsNaN(median(ratios)) {
			fmt.Printf("\n%s: steady p99 during / outside the reads, median of %d runs: %.2f\n", text, len(ratios), median(ratios))
		}
	}
}
