package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
)

// groupsBench is the consumer-group lag collector beside kminion's (its
// adminApi scrape mode) and kafka_exporter's, on one real broker holding
// -topics x -partitions partitions, each group with committed offsets on
// -topics-per-group topics at a known lag. Per group count (ascending; the
// groups of a row stay for the next) and round, each program in turn
// (the order rotated every round) is started, waited for until it exports
// every group-partition's lag, then measured over -polls polls at
// -interval: CPU (utime+stime) and requests sent per poll, one poll's wall
// time, RSS; its lag in records is compared with the committed truth for
// every group and partition. The peers are binaries given by flag, built
// elsewhere; nothing here builds them.
//
// Requests are counted by a proxy in front of the broker this command
// starts (it advertises the proxy's address, so every connection after the
// bootstrap passes it); with -kafka-bench-brokers they are not counted.
func groupsBench(ctx context.Context, args []string) error {
	s := newSettings("groups", "groups [flags]")
	g := &groupsRun{
		counts:       s.List("group-counts", "100 500", "group counts, ascending"),
		topics:       s.Int("topics", 500, "topics"),
		partitions:   s.Int("partitions", 4, "partitions per topic"),
		perGroup:     s.Int("topics-per-group", 2, "topics each group has committed offsets on"),
		rounds:       s.Int("rounds", 3, "rounds, each program once per round, the order rotated"),
		interval:     s.Int("interval", 10, "seconds between polls: our groups.interval, the peers' scrape interval"),
		polls:        s.Int("polls", 6, "polls measured per run"),
		brokers:      s.String("kafka-bench-brokers", "", "use this broker (comma-separated list) instead of starting a 1-node one; requests are then not counted"),
		tools:        s.List("tools", "ours kminion kafka_exporter", "programs measured"),
		bin:          s.String("kbe-bin", "", "our exporter binary (with the groups block)"),
		kminion:      s.String("kminion-bin", "", "kminion binary"),
		kexp:         s.String("kafka-exporter-bin", "", "kafka_exporter binary"),
		pollMetric:   s.String("ours-poll-metric", "kafka_bench_group_poll_duration_seconds", "our poll's duration: a histogram, or a gauge of the last poll"),
		pollLast:     s.String("ours-poll-last", "kafka_bench_group_poll_last_success_timestamp_seconds", "with a gauge -ours-poll-metric, our last successful poll's Unix time (counts the polls)"),
		lagMetric:    s.String("ours-lag-metric", "kafka_bench_group_lag_records", "our lag in records, per group, topic, partition"),
		out:          s.String("out", "", "directory for configurations and logs (default: a temporary one, removed)"),
		reportPath:   s.String("report", "", "also write the Markdown report to this file"),
		createdTopic: map[int]bool{},
	}
	if err := s.parse(args); err != nil {
		return err
	}
	counts, err := ints("group-counts", *g.counts)
	if err != nil {
		return err
	}
	if !slices.IsSorted(counts) {
		return fmt.Errorf("-group-counts (GROUP_COUNTS) %q: want ascending counts", *g.counts)
	}
	if *g.topics < 1 || *g.partitions < 1 || *g.perGroup < 1 || *g.perGroup > *g.topics || *g.rounds < 1 || *g.interval < 1 || *g.polls < 1 {
		return errors.New("-topics, -partitions, -rounds, -interval and -polls must be >= 1, -topics-per-group within 1..-topics")
	}
	tools := strings.Fields(*g.tools)
	for _, t := range tools {
		bin, ok := map[string]struct {
			path *string
			flag string
		}{"ours": {g.bin, "kbe-bin"}, "kminion": {g.kminion, "kminion-bin"}, "kafka_exporter": {g.kexp, "kafka-exporter-bin"}}[t]
		switch {
		case !ok:
			return fmt.Errorf("-tools (TOOLS): %q is not one of ours, kminion, kafka_exporter", t)
		case *bin.path == "":
			return fmt.Errorf("-tools (TOOLS) names %s: give its binary, -%s (%s)", t, bin.flag, envName(bin.flag))
		}
	}
	work, cleanup, err := workDir(*g.out, "bench-groups")
	if err != nil {
		return err
	}
	defer cleanup()
	g.work = work
	rep, err := newReport(*g.reportPath)
	if err != nil {
		return err
	}
	defer func() { _ = rep.close() }()
	g.rep = rep

	if *g.brokers == "" {
		c, err := startBroker(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		p, err := startProxy(c.Bootstrap()[0])
		if err != nil {
			return err
		}
		defer p.close()
		// The broker advertises the proxy from now on: every connection
		// after a client's bootstrap goes through it and is counted.
		if err := c.SetProperties(0, map[string]string{"advertised.listeners": "PLAINTEXT://" + p.addr}, nil); err != nil {
			return err
		}
		if err := c.Restart(0); err != nil {
			return err
		}
		g.proxy = p
		*g.brokers = p.addr
	}
	rep.say("Machine: %s; %s.", machine(ctx), javaVersion(ctx))
	var rows []groupsResult
	for _, n := range counts {
		if err := g.setup(ctx, n); err != nil {
			return err
		}
		for round := 1; round <= *g.rounds; round++ {
			order := slices.Clone(tools)
			for range (round - 1) % len(order) {
				order = append(order[1:], order[0])
			}
			for _, t := range order {
				settle()
				r, err := g.run(ctx, t, n, round)
				if err != nil {
					return err
				}
				log.Print(r.line())
				rows = append(rows, r)
			}
		}
	}
	g.report(rows, tools, counts)
	return rep.err
}

type groupsRun struct {
	counts, tools, brokers, bin, kminion, kexp, pollMetric, pollLast, lagMetric, out, reportPath *string
	topics, partitions, perGroup, rounds, interval, polls                                        *int

	work  string
	rep   *report
	proxy *proxy
	cl    *kgo.Client // during setup only: closed, it sends nothing the proxy counts
	adm   *kadm.Client

	createdTopic map[int]bool
	ends         map[string]map[int32]int64 // topic, partition: end offset
	groups       int                        // groups made so far
	want         map[lagKey]int64           // every group-partition's committed lag
}

// lagKey is one group-partition.
type lagKey struct {
	group, topic string
	partition    int32
}

func benchTopic(i int) string { return fmt.Sprintf("bench-groups-%04d", i) }
func benchGroup(i int) string { return fmt.Sprintf("bench-group-%04d", i) }

// groupTopics are the topics group i commits on: spread evenly, so -topics
// groups cover every topic once per -topics-per-group.
func (g *groupsRun) groupTopics(i int) []int {
	var out []int
	for k := range *g.perGroup {
		out = append(out, (i + k**g.topics / *g.perGroup)%*g.topics)
	}
	return out
}

// recordsIn is how many records partition p of topic t holds: 10 to 49.
func recordsIn(t, p int) int { return 10 + (t*7+p*13)%40 }

// lagOf is group i's lag on a partition holding end records: 0 up to end,
// about one group-partition in eight at 0.
func lagOf(i, t, p int, end int64) int64 {
	v := int64(i*31+t*7+p*3) % 8
	if v == 0 {
		return 0
	}
	return int64(i*17+t*5+p*11) % (end + 1)
}

// setup creates the topics a group up to n needs (with their records) and
// groups g.groups..n-1 with committed offsets.
func (g *groupsRun) setup(ctx context.Context, n int) error {
	began := time.Now()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(*g.brokers, ",")...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchMaxBytes(1<<20), kgo.MaxBufferedRecords(1<<20))
	if err != nil {
		return err
	}
	defer cl.Close()
	g.cl, g.adm = cl, kadm.NewClient(cl)
	var need []int
	for i := g.groups; i < n; i++ {
		for _, t := range g.groupTopics(i) {
			if !g.createdTopic[t] && !slices.Contains(need, t) {
				need = append(need, t)
			}
		}
	}
	slices.Sort(need)
	for chunk := range slices.Chunk(need, 100) {
		var names []string
		for _, t := range chunk {
			names = append(names, benchTopic(t))
		}
		resp, err := g.adm.CreateTopics(ctx, int32(*g.partitions), 1, nil, names...)
		if err != nil {
			return fmt.Errorf("create topics: %w", err)
		}
		for _, r := range resp.Sorted() {
			if r.Err != nil && !strings.Contains(r.Err.Error(), "TOPIC_ALREADY_EXISTS") {
				return fmt.Errorf("create topic %s: %w", r.Topic, r.Err)
			}
		}
	}
	if err := g.waitLeaders(ctx, need); err != nil {
		return err
	}
	var recs []*kgo.Record
	for _, t := range need {
		for p := range *g.partitions {
			for k := range recordsIn(t, p) {
				recs = append(recs, &kgo.Record{Topic: benchTopic(t), Partition: int32(p), Value: fmt.Appendf(nil, "record %d", k)})
			}
		}
		g.createdTopic[t] = true
	}
	if err := g.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("produce: %w", err)
	}
	var names []string
	for t := range g.createdTopic {
		names = append(names, benchTopic(t))
	}
	ends, err := g.adm.ListEndOffsets(ctx, names...)
	if err != nil {
		return fmt.Errorf("list end offsets: %w", err)
	}
	if err := ends.Error(); err != nil {
		return fmt.Errorf("list end offsets: %w", err)
	}
	g.ends = map[string]map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if g.ends[o.Topic] == nil {
			g.ends[o.Topic] = map[int32]int64{}
		}
		g.ends[o.Topic][o.Partition] = o.Offset
	})
	if g.want == nil {
		g.want = map[lagKey]int64{}
	}
	for i := g.groups; i < n; i++ {
		var os kadm.Offsets
		for _, t := range g.groupTopics(i) {
			for p := range *g.partitions {
				end := g.ends[benchTopic(t)][int32(p)]
				lag := lagOf(i, t, p, end)
				os.Add(kadm.Offset{Topic: benchTopic(t), Partition: int32(p), At: end - lag, LeaderEpoch: -1})
				g.want[lagKey{benchGroup(i), benchTopic(t), int32(p)}] = lag
			}
		}
		resp, err := g.adm.CommitOffsets(ctx, benchGroup(i), os)
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			return fmt.Errorf("commit offsets of %s: %w", benchGroup(i), err)
		}
	}
	g.groups = n
	parts := map[string]bool{}
	for k := range g.want {
		parts[k.topic+"/"+strconv.Itoa(int(k.partition))] = true
	}
	log.Printf("%d groups, %d group-partitions over %d partitions of %d topics (set up in %s)", n, len(g.want), len(parts),
		len(g.createdTopic), time.Since(began).Round(time.Second))
	return nil
}

// waitLeaders waits until every partition of the topics has a leader.
func (g *groupsRun) waitLeaders(ctx context.Context, topics []int) error {
	if len(topics) == 0 {
		return nil
	}
	var names []string
	for _, t := range topics {
		names = append(names, benchTopic(t))
	}
	for deadline := time.Now().Add(5 * time.Minute); ; {
		md, err := g.adm.Metadata(ctx, names...)
		ok := err == nil
		if ok {
			for _, n := range names {
				td, found := md.Topics[n]
				if !found || td.Err != nil || len(td.Partitions) != *g.partitions {
					ok = false
					break
				}
				for _, p := range td.Partitions {
					if p.Leader < 0 || p.Err != nil {
						ok = false
					}
				}
			}
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("topics without leaders after 5 minutes: %w", err)
			}
			return errors.New("topics without leaders after 5 minutes")
		}
		if err := pacer.Sleep(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
}

// groupsResult is one program's run.
type groupsResult struct {
	tool          string
	groups, round int
	groupParts    int     // group-partitions expected
	polls         float64 // in the window
	pollSeconds   float64 // one poll's wall time, mean over the window
	requests      float64 // per poll; NaN: not counted
	cpu           time.Duration
	rss, peakRSS  uint64
	equal, got    int // lag series equal to the committed lag, series exported
	wrong         []string
	load          string
}

func (r groupsResult) cpuPerPoll() float64 { return r.cpu.Seconds() / r.polls }

func (r groupsResult) line() string {
	return fmt.Sprintf("| %d | %s | %d | %.3f | %s | %.1f | %.1f | %.1f | %d / %d | %s |", r.groups, r.tool, r.round, r.pollSeconds,
		fmtRequests(r.requests), 1000*r.cpuPerPoll(), mib(r.rss), mib(r.peakRSS), r.equal, r.groupParts, r.load)
}

func fmtRequests(v float64) string {
	if math.IsNaN(v) {
		return "not counted"
	}
	return fmt.Sprintf("%.0f", v)
}

// lagSeries names a program's lag family and its labels.
type lagSeries struct{ family, group, topic, partition string }

func (g *groupsRun) series(tool string) lagSeries {
	switch tool {
	case "kminion":
		return lagSeries{"kminion_kafka_consumer_group_topic_partition_lag", "group_id", "topic_name", "partition_id"}
	case "kafka_exporter":
		return lagSeries{"kafka_consumergroup_lag", "consumergroup", "topic", "partition"}
	}
	return lagSeries{*g.lagMetric, "group", "topic", "partition"}
}

// lags reads the bench groups' lag series of a scrape.
func (ls lagSeries) lags(f scrape.Families) map[lagKey]float64 {
	out := map[lagKey]float64{}
	for _, m := range f.Find(ls.family) {
		var k lagKey
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case ls.group:
				k.group = l.GetValue()
			case ls.topic:
				k.topic = l.GetValue()
			case ls.partition:
				p, _ := strconv.Atoi(l.GetValue())
				k.partition = int32(p)
			}
		}
		if strings.HasPrefix(k.group, "bench-group-") {
			out[k] = m.GetGauge().GetValue()
		}
	}
	return out
}

// compareLags counts the series equal to want, and names the first
// differences (missing, different or extra).
func compareLags(want map[lagKey]int64, got map[lagKey]float64) (equal int, wrong []string) {
	keys := slices.SortedFunc(maps.Keys(want), func(a, b lagKey) int {
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})
	for _, k := range keys {
		v, ok := got[k]
		switch {
		case !ok:
			wrong = append(wrong, fmt.Sprintf("%s %s/%d: missing (want %d)", k.group, k.topic, k.partition, want[k]))
		case v != float64(want[k]):
			wrong = append(wrong, fmt.Sprintf("%s %s/%d: %g, want %d", k.group, k.topic, k.partition, v, want[k]))
		default:
			equal++
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			wrong = append(wrong, fmt.Sprintf("%s %s/%d: %g, not committed", k.group, k.topic, k.partition, v))
		}
	}
	return equal, wrong
}

// run starts one program, waits for its first complete result and measures
// it.
func (g *groupsRun) run(ctx context.Context, tool string, n, round int) (groupsResult, error) {
	addr, err := testenv.LoopbackAddr()
	if err != nil {
		return groupsResult{}, err
	}
	cmd, err := g.command(tool, addr)
	if err != nil {
		return groupsResult{}, err
	}
	p, err := start(filepath.Join(g.work, fmt.Sprintf("%s-%d-%d.log", tool, n, round)), cmd)
	if err != nil {
		return groupsResult{}, err
	}
	defer p.stop()
	url := "http://" + addr + "/metrics"
	ls := g.series(tool)
	// The first complete result: every group-partition exported. Each
	// peer's scrape is a poll; ours polls in the background.
	var last scrape.Families
	if err := p.waitFor(ctx, "exporting the lag of every group-partition", func() bool {
		f, _, err := timedScrape(ctx, url)
		if err != nil {
			return false
		}
		last = f
		return len(ls.lags(f)) >= len(g.want)
	}); err != nil {
		if last != nil {
			_, wrong := compareLags(g.want, ls.lags(last))
			log.Printf("%s: %d lag series differ, first: %v", tool, len(wrong), wrong[:min(5, len(wrong))])
		}
		return groupsResult{}, err
	}
	r := groupsResult{tool: tool, groups: n, round: round, groupParts: len(g.want), requests: math.NaN()}
	interval := time.Duration(*g.interval) * time.Second
	if err := pacer.Sleep(ctx, interval); err != nil { // past the start-up's own polls
		return r, err
	}
	load0 := loadAvg()
	s0, err := p.stats()
	if err != nil {
		return r, err
	}
	var q0 int64
	if g.proxy != nil {
		q0 = g.proxy.requests()
	}
	f0, _, err := timedScrape(ctx, url)
	if err != nil {
		return r, err
	}
	window := []scrape.Families{f0}
	var pollSecs []float64
	tick := time.Now()
	for range *g.polls {
		tick = tick.Add(interval)
		if err := pacer.Sleep(ctx, time.Until(tick)); err != nil {
			return r, err
		}
		f, d, err := timedScrape(ctx, url)
		if err != nil {
			return r, err
		}
		pollSecs = append(pollSecs, d.Seconds())
		window = append(window, f)
		last = f
	}
	s1, err := p.stats()
	if err != nil {
		return r, err
	}
	if g.proxy != nil {
		r.requests = float64(g.proxy.requests() - q0)
	}
	r.cpu, r.rss, r.peakRSS = s1.CPU-s0.CPU, s1.RSS, s1.PeakRSS
	r.load = load0 + " → " + loadAvg()
	if tool == "ours" {
		if r.polls, r.pollSeconds, err = g.oursPolls(window, interval); err != nil {
			return r, fmt.Errorf("ours: %w (see %s)", err, p.log.Name())
		}
	} else {
		// A scrape is a poll: the first one of the window is its start.
		r.polls, r.pollSeconds = float64(len(pollSecs)), median(pollSecs)
	}
	r.requests /= r.polls
	got := ls.lags(last)
	r.got = len(got)
	r.equal, r.wrong = compareLags(g.want, got)
	if len(r.wrong) > 0 {
		log.Printf("%s: %d lag series differ, first: %v", tool, len(r.wrong), r.wrong[:min(5, len(r.wrong))])
	}
	return r, nil
}

// command is the program's command line, its configuration written to the
// work directory; it serves /metrics on addr and reads the broker at
// g.brokers only.
func (g *groupsRun) command(tool, addr string) (*exec.Cmd, error) {
	brokers := strings.Split(*g.brokers, ",")
	interval := fmt.Sprintf("%ds", *g.interval)
	switch tool {
	case "kminion":
		host, port, _ := net.SplitHostPort(addr)
		cfg := filepath.Join(g.work, "kminion.yml")
		if err := writeYAML(cfg, map[string]any{
			"logger": map[string]any{"level": "warn"},
			"kafka":  map[string]any{"brokers": brokers},
			"minion": map[string]any{
				"consumerGroups": map[string]any{"enabled": true, "scrapeMode": "adminApi", "granularity": "partition",
					"allowedGroups": []string{"/bench-group-.*/"}},
				"topics":  map[string]any{"enabled": false},
				"logDirs": map[string]any{"enabled": false},
			},
			"exporter": map[string]any{"host": host, "port": port},
		}); err != nil {
			return nil, err
		}
		cmd := exec.Command(*g.kminion)
		cmd.Env = append(os.Environ(), "CONFIG_FILEPATH="+cfg)
		return cmd, nil
	case "kafka_exporter":
		return exec.Command(*g.kexp, "--kafka.server="+brokers[0], "--web.listen-address="+addr,
			"--kafka.version=4.0.0", "--group.filter=bench-group-.*"), nil
	}
	cfg := filepath.Join(g.work, "ours.yml")
	if err := writeYAML(cfg, map[string]any{
		"kafka":                map[string]any{"brokers": brokers},
		"probes":               []any{},
		"host":                 map[string]any{"enabled": false},
		"config_poll_interval": "0s",
		// Every group exported, as the peers do: max_series's default
		// (20,000) kept 982 of 1,000 groups of 8 partitions.
		"groups": map[string]any{"enabled": true, "interval": interval, "granularity": "partition",
			"max_series": 1_000_000, "allow": []string{"bench-group-.*"}},
	}); err != nil {
		return nil, err
	}
	return exec.Command(*g.bin, "--config.file="+cfg, "--log.level=warn", "--web.listen-address="+addr), nil
}

// oursPolls reads our polls over the window's scrapes: a histogram of
// their duration gives their count and mean; a gauge of the last poll's
// duration gives the median of the values scraped, and the polls are
// counted by the last successful poll's timestamp.
func (g *groupsRun) oursPolls(window []scrape.Families, interval time.Duration) (polls, seconds float64, err error) {
	first, last := window[0], window[len(window)-1]
	if c0, sum0 := histogram(first, *g.pollMetric); c0 > 0 {
		c1, sum1 := histogram(last, *g.pollMetric)
		if c1 <= c0 {
			return 0, 0, fmt.Errorf("%s counted no poll in the window", *g.pollMetric)
		}
		return c1 - c0, (sum1 - sum0) / (c1 - c0), nil
	}
	var walls []float64
	for _, f := range window[1:] {
		if v, ok := f.Value(*g.pollMetric); ok {
			walls = append(walls, v)
		}
	}
	t0, ok0 := first.Value(*g.pollLast)
	t1, ok1 := last.Value(*g.pollLast)
	polls = math.Round((t1 - t0) / interval.Seconds())
	if len(walls) == 0 || !ok0 || !ok1 || polls < 1 {
		return 0, 0, fmt.Errorf("no poll in the window by %s and %s", *g.pollMetric, *g.pollLast)
	}
	return polls, median(walls), nil
}

// timedScrape reads url, timing the request to the body's end. A peer
// computes at scrape, so it can take much longer than scrape.Get allows.
func timedScrape(ctx context.Context, url string) (scrape.Families, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	began := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	took := time.Since(began)
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := scrape.Parse(strings.NewReader(string(body)))
	return f, took, err
}

// histogram is a family's observation count and sum, over its series.
func histogram(f scrape.Families, name string) (count, sum float64) {
	for _, m := range f.Find(name) {
		if h := m.GetHistogram(); h != nil {
			count += float64(h.GetSampleCount())
			sum += h.GetSampleSum()
		} else if s := m.GetSummary(); s != nil {
			count += float64(s.GetSampleCount())
			sum += s.GetSampleSum()
		}
	}
	return count, sum
}

// loadAvg is the 1-minute load average.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// report prints every run, then the medians per program and group count
// with our ratios to each peer.
func (g *groupsRun) report(rows []groupsResult, tools []string, counts []int) {
	g.rep.say("")
	g.rep.say("| groups | program | round | poll wall s | requests per poll | CPU ms per poll | RSS MiB (end) | peak RSS MiB | lag series equal / expected | load 1 min (start → end) |")
	g.rep.say("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range rows {
		g.rep.say("%s", r.line())
	}
	g.rep.say("")
	g.rep.say("Medians over rounds; ratios are ours / the peer's median.")
	g.rep.say("")
	g.rep.say("| groups | group-partitions | program | poll wall s | requests per poll | CPU ms per poll | RSS MiB | lag equal | CPU ours / it | RSS ours / it |")
	g.rep.say("|---:|---:|---|---:|---:|---:|---:|---|---:|---:|")
	type med struct {
		wall, req, cpu, rss float64
		parts               int
		equal               bool
	}
	for _, n := range counts {
		meds := map[string]med{}
		for _, t := range tools {
			var wall, req, cpu, rss []float64
			m := med{equal: true}
			for _, r := range rows {
				if r.tool == t && r.groups == n {
					wall, req, cpu, rss = append(wall, r.pollSeconds), append(req, r.requests), append(cpu, r.cpuPerPoll()), append(rss, float64(r.rss))
					m.equal = m.equal && len(r.wrong) == 0
					m.parts = r.groupParts
				}
			}
			m.wall, m.req, m.cpu, m.rss = median(wall), median(req), median(cpu), median(rss)
			meds[t] = m
		}
		for _, t := range tools {
			m := meds[t]
			cpuRatio, rssRatio := "", ""
			if o, ok := meds["ours"]; ok && t != "ours" {
				cpuRatio, rssRatio = fmt.Sprintf("%.2f", ratio(o.cpu, m.cpu)), fmt.Sprintf("%.2f", ratio(o.rss, m.rss))
			}
			g.rep.say("| %d | %d | %s | %.3f | %s | %.1f | %.1f | %s | %s | %s |", n, m.parts, t, m.wall, fmtRequests(m.req), 1000*m.cpu,
				m.rss/(1<<20), map[bool]string{true: "every series", false: "**differs**"}[m.equal], cpuRatio, rssRatio)
		}
	}
}

// proxy forwards TCP connections to the broker and counts the Kafka
// requests clients send through it.
type proxy struct {
	addr   string
	target string
	ln     net.Listener

	mu    sync.Mutex
	count int64
	conns []net.Conn
}

func startProxy(target string) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &proxy{addr: ln.Addr().String(), target: target, ln: ln}
	go p.serve()
	return p, nil
}

func (p *proxy) requests() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *proxy) forward(c net.Conn) {
	b, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, c, b)
	p.mu.Unlock()
	go func() {
		_, _ = io.Copy(c, b)
		_ = c.Close()
	}()
	_ = countRequests(c, b, func() {
		p.mu.Lock()
		p.count++
		p.mu.Unlock()
	})
	_ = b.Close()
}

func (p *proxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
}

// countRequests copies Kafka requests from src to dst, frame by frame (a
// 4-byte big-endian size, then the request), calling counted once per
// request; it returns at src's end.
func countRequests(src io.Reader, dst io.Writer, counted func()) error {
	r := bufio.NewReaderSize(src, 64<<10)
	var size [4]byte
	for {
		if _, err := io.ReadFull(r, size[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		n := int64(binary.BigEndian.Uint32(size[:]))
		if _, err := dst.Write(size[:]); err != nil {
			return err
		}
		if _, err := io.CopyN(dst, r, n); err != nil {
			return err
		}
		counted()
	}
}
