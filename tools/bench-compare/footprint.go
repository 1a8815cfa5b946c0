package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
)

// footprint is the exporter's always-on cost: CPU and RSS of the daemon
// probing a real broker at a fixed record rate. Per row it starts the
// exporter (one probe with default settings: acks=all, 3 partitions,
// consumer on; its own topic and group), waits until it is ready plus
// -warmup seconds, then scrapes /metrics every 15 s for -seconds-per-row
// and reads the process's CPU and RSS over that window. With -peer-cmd it
// measures another program side by side, rounds alternated.
func footprint(ctx context.Context, args []string) error {
	s := newSettings("footprint", "footprint [flags] [rate:record_size ...]   (default: 30:128 300:128 1000:1024)")
	f := &footprintRun{
		secs:        s.Int("seconds-per-row", 120, "seconds measured per row"),
		warmup:      s.Int("warmup", 20, "seconds after ready before measuring"),
		rounds:      s.Int("rounds", 1, "rounds of all rows"),
		brokers:     s.String("kafka-bench-brokers", "", "use this broker (comma-separated list) instead of starting a 1-node one"),
		bin:         s.String("kbe-bin", "", "measure this exporter binary instead of building the working directory's"),
		extraFlags:  s.String("extra-flags", "", "more exporter flags, space-separated"),
		probeExtra:  s.String("probe-extra", "", "more probe keys, YAML flow style: 'producer: {linger.ms: 20}'"),
		peerCmd:     s.String("peer-cmd", "", "also measure this program, run by bash with RATE, SIZE, BROKERS and ROUND set"),
		peerURL:     s.String("peer-url", "", "the peer's metrics URL"),
		peerRecords: s.String("peer-records", "", "the peer's counter (summed over series) of the records it produced"),
	}
	if err := s.parse(args); err != nil {
		return err
	}
	rows := s.fs.Args()
	if len(rows) == 0 {
		rows = []string{"30:128", "300:128", "1000:1024"}
	}
	type row struct {
		rate float64
		size int
	}
	var rs []row
	for _, r := range rows {
		rate, size, ok := strings.Cut(r, ":")
		rt, err1 := strconv.ParseFloat(rate, 64)
		sz, err2 := strconv.Atoi(size)
		if !ok || err1 != nil || err2 != nil || rt <= 0 || sz <= 0 {
			return fmt.Errorf("row %q: want rate:record_size, such as 1000:1024", r)
		}
		rs = append(rs, row{rt, sz})
	}
	if *f.peerCmd != "" && (*f.peerURL == "" || *f.peerRecords == "") {
		return fmt.Errorf("-peer-cmd (PEER_CMD) needs -peer-url (PEER_URL) and -peer-records (PEER_RECORDS)")
	}
	if *f.peerURL != "" && !strings.Contains(*f.peerURL, "://") {
		*f.peerURL = "http://" + *f.peerURL // as curl reads 127.0.0.1:18080/metrics
	}
	extra, err := parseExtra(*f.probeExtra)
	if err != nil {
		return err
	}
	f.extra = extra
	work, cleanup, err := workDir("", "footprint")
	if err != nil {
		return err
	}
	defer cleanup()
	f.work = work
	if *f.bin == "" {
		if *f.bin, err = build(ctx, work, "./cmd/kafka_bench_exporter"); err != nil {
			return err
		}
	}
	if *f.brokers == "" {
		c, err := startBroker(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		*f.brokers = strings.Join(c.Bootstrap(), ",")
	}
	fmt.Println("| program | rate (rec/s) | record size (B) | seconds | produced rec/s | CPU (% of a core) | µs CPU per record | RSS MiB (end) | peak RSS MiB |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for round := 1; round <= *f.rounds; round++ {
		for _, r := range rs {
			order := []func(context.Context, float64, int, int) error{f.ours}
			if *f.peerCmd != "" && round%2 == 0 {
				order = []func(context.Context, float64, int, int) error{f.peer, f.ours}
			} else if *f.peerCmd != "" {
				order = append(order, f.peer)
			}
			for _, run := range order {
				if err := run(ctx, r.rate, r.size, round); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

type footprintRun struct {
	secs, warmup, rounds                                                *int
	brokers, bin, extraFlags, probeExtra, peerCmd, peerURL, peerRecords *string
	extra                                                               map[string]any
	work                                                                string
}

// window is what measure reads of a program over its window.
type window struct {
	seconds, records float64
	cpu              time.Duration
	rss, peakRSS     uint64 // bytes: at the end, the highest of the 15 s samples
}

// measure reads p's CPU and its counter of produced records at url over
// the window, RSS at every scrape.
func (f *footprintRun) measure(ctx context.Context, p *process, url, counter string) (window, error) {
	records := func() (float64, error) {
		m, err := scrape.Get(url)
		return value(m, counter), err
	}
	if err := pacer.Sleep(ctx, time.Duration(*f.warmup)*time.Second); err != nil {
		return window{}, err
	}
	s0, err := p.stats()
	if err != nil {
		return window{}, err
	}
	r0, err := records()
	if err != nil {
		return window{}, err
	}
	t0 := time.Now()
	var w window
	for s := 15; s <= *f.secs; s += 15 {
		if err := pacer.Sleep(ctx, 15*time.Second); err != nil {
			return window{}, err
		}
		if _, err := scrape.Get(url); err != nil {
			return window{}, err
		}
		st, err := p.stats()
		if err != nil {
			return window{}, err
		}
		w.peakRSS = max(w.peakRSS, st.RSS)
	}
	s1, err := p.stats()
	if err != nil {
		return window{}, err
	}
	r1, err := records()
	if err != nil {
		return window{}, err
	}
	w.seconds, w.records, w.cpu, w.rss = time.Since(t0).Seconds(), r1-r0, s1.CPU-s0.CPU, s1.RSS
	return w, nil
}

// footprintRow is one row of the table.
func footprintRow(name string, rate float64, size int, w window) string {
	per := math.NaN()
	if w.records > 0 {
		per = w.cpu.Seconds() / w.records * 1e6
	}
	return fmt.Sprintf("| %s | %g | %d | %.0f | %.1f | %.2f %% | %.0f | %.1f | %.1f |", name, rate, size, w.seconds, w.records/w.seconds,
		100*w.cpu.Seconds()/w.seconds, per, mib(w.rss), mib(w.peakRSS))
}

func (f *footprintRun) ours(ctx context.Context, rate float64, size, round int) error {
	// A fresh topic and group per run, every other setting at its default.
	topic := fmt.Sprintf("footprint-%g-%d-%d-%d", rate, size, round, time.Now().UnixNano())
	probe, err := withExtra(probeKeys{Name: "footprint", Topic: topic, Rate: rate, RecordSize: size,
		Consumer: &consumerKeys{GroupID: topic}}, f.extra)
	if err != nil {
		return err
	}
	cfg := filepath.Join(f.work, "probe.yml")
	if err := writeYAML(cfg, configFile{
		Kafka:  kafkaKeys{Brokers: strings.Split(*f.brokers, ",")},
		Probes: []any{probe},
	}); err != nil {
		return err
	}
	args := append([]string{"--config.file=" + cfg, "--log.level=warn"}, strings.Fields(*f.extraFlags)...)
	d, err := startDaemon(ctx, *f.bin, filepath.Join(f.work, "ours.log"), args...)
	if err != nil {
		return err
	}
	defer d.stop()
	w, err := f.measure(ctx, d.process, d.base+"/metrics", "kafka_bench_produced_records_total")
	if err != nil {
		return err
	}
	fmt.Println(footprintRow("ours", rate, size, w))
	return nil
}

func (f *footprintRun) peer(ctx context.Context, rate float64, size, round int) error {
	cmd := exec.Command("bash", "-c", *f.peerCmd)
	cmd.Env = append(os.Environ(), fmt.Sprintf("RATE=%g", rate), fmt.Sprintf("SIZE=%d", size), "BROKERS="+*f.brokers, fmt.Sprintf("ROUND=%d", round))
	p, err := start(filepath.Join(f.work, "peer.log"), cmd)
	if err != nil {
		return err
	}
	defer p.stop()
	if err := p.waitFor(ctx, "serving "+*f.peerRecords, func() bool {
		m, err := scrape.Get(*f.peerURL)
		return err == nil && len(m.Find(*f.peerRecords)) > 0
	}); err != nil {
		return err
	}
	w, err := f.measure(ctx, p, *f.peerURL, *f.peerRecords)
	if err != nil {
		return err
	}
	fmt.Println(footprintRow("peer", rate, size, w))
	return nil
}
