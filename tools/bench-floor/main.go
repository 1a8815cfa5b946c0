// Command bench-floor measures the load generator's CPU per record against
// the client library's floor, on one real Kafka broker (package kafkatest,
// the version scripts/kafka.sh pins):
//
//	go run ./tools/bench-floor                      # produce and consume, 3 rounds
//	go run ./tools/bench-floor -sides produce -rate 50000 -size 1024 -acks 1
//	go run ./tools/bench-floor -vs /tmp/old/kafka_bench_exporter   # two builds of ours
//	go run ./tools/bench-floor -sides daemon -rate 30 -size 128 -seconds 120
//
// Sides:
//
//	produce  `kafka_bench_exporter bench` (consumer off) against kgo-floor
//	         produce: same topic layout, record size, rate, acks, linger,
//	         batch size, buffer memory, random letters, records per wake-up
//	consume  bench's consume_only against kgo-floor consume, a fresh group
//	         each run, on one topic filled once by bench
//	share    bench's consume_only with consumer.kind share (-members) against
//	         kgo-floor share, a fresh share group each run, on one topic
//	         filled once by bench
//	daemon   the exporter daemon (one probe, defaults but rate and record
//	         size) against -vs (another build of it): CPU per produced
//	         record over -seconds after -warmup
//
// CPU is user+system time of the child process from its rusage (for the
// daemon, /proc/PID/stat over the measured window), divided by the records it
// produced or consumed. Each pair runs A B, the next B A; round 0 of each side
// is a warm-up, run and discarded (with -cpuprofile, ours is profiled then,
// through bench's --cpuprofile). It prints each side's min / median / max µs per
// record and the ratio per pair. The machine's load adds noise to both sides
// alike; the ratio of a pair is the figure to quote.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/config"
	"github.com/kafka-bench/kafka_bench_exporter/hostinfo"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes"
)

type settings struct {
	brokers    string
	rounds     int
	records    int64
	rate       float64
	size       int
	partitions int
	members    int
	acks       string
	linger     time.Duration
	batch      int
	buffer     int
	seconds    time.Duration
	warmup     time.Duration
	profile    string
	work       string
	ours, vs   string // binaries; vs "" is kgo-floor
	floor      string
}

func main() {
	log.SetFlags(log.Ltime)
	log.SetPrefix("bench-floor: ")
	var s settings
	flag.StringVar(&s.brokers, "brokers", "", "use this cluster (comma-separated) instead of starting a one-node one")
	flag.IntVar(&s.rounds, "rounds", 3, "measured rounds per side (after one warm-up round)")
	flag.Int64Var(&s.records, "records", 500000, "records per run")
	flag.Float64Var(&s.rate, "rate", 50000, "records/s (0: as fast as possible)")
	flag.IntVar(&s.size, "size", 1024, "record size in bytes")
	flag.IntVar(&s.partitions, "partitions", 6, "partitions of each topic")
	flag.StringVar(&s.acks, "acks", "1", "acks: 0, 1 or all")
	flag.DurationVar(&s.linger, "linger", 5*time.Millisecond, "linger.ms")
	flag.IntVar(&s.batch, "batch", 16384, "batch.size")
	flag.IntVar(&s.buffer, "buffer", 32<<20, "buffer.memory")
	flag.DurationVar(&s.seconds, "seconds", 120*time.Second, "daemon: measured window")
	flag.DurationVar(&s.warmup, "warmup", 20*time.Second, "daemon: time before the window")
	sides := flag.String("sides", "produce,consume", "produce, consume, share and/or daemon, comma-separated")
	flag.IntVar(&s.members, "members", 3, "share: members of the share group")
	flag.StringVar(&s.profile, "cpuprofile", "", "write CPU profiles of the warm-up runs, per side: FILE.produce, FILE.floor.produce, ...")
	flag.StringVar(&s.ours, "ours", "", "the exporter binary to measure (default: built from the working directory)")
	flag.StringVar(&s.vs, "vs", "", "compare against this exporter binary instead of kgo-floor")
	flag.StringVar(&s.work, "out", "", "directory for binaries, bench files and logs (default: a temporary one)")
	flag.Parse()

	ctx := context.Background()
	if _, err := os.Stat("go.mod"); err != nil && (s.ours == "" || s.vs == "") {
		log.Fatal("run from the repository's root (it builds ./cmd/kafka_bench_exporter and ./tools/kgo-floor), or give -ours and -vs")
	}
	if s.work == "" {
		dir, err := os.MkdirTemp("", "bench-floor")
		if err != nil {
			log.Fatal(err)
		}
		defer func() { _ = os.RemoveAll(dir) }()
		s.work = dir
	}
	if err := os.MkdirAll(s.work, 0o755); err != nil {
		log.Fatal(err)
	}
	if s.ours == "" {
		s.ours = build(ctx, s.work, "./cmd/kafka_bench_exporter")
	}
	if s.vs == "" {
		s.floor = build(ctx, s.work, "./tools/kgo-floor")
	}
	if s.brokers == "" {
		c, err := kafkatest.StartCluster(ctx, kafkatest.Options{Nodes: 1,
			BrokerConfig: map[string]string{"file.delete.delay.ms": "0"}}, log.Printf)
		if err != nil {
			log.Fatal(err)
		}
		defer c.Close()
		s.brokers = strings.Join(c.Bootstrap(), ",")
		log.Printf("Kafka %s at %s", c.KafkaVersion(), s.brokers)
	}
	for side := range strings.SplitSeq(*sides, ",") {
		var err error
		switch side {
		case "produce":
			err = s.produce(ctx)
		case "consume":
			err = s.consume(ctx)
		case "share":
			err = s.share(ctx)
		case "daemon":
			err = s.daemon(ctx)
		default:
			err = fmt.Errorf("-sides: %q is not produce, consume, share or daemon", side)
		}
		if err != nil {
			log.Print(err)
			return // the deferred Close stops the cluster
		}
	}
}

func build(ctx context.Context, dir, pkg string) string {
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("go build %s: %v", pkg, err)
	}
	return out
}

// run is one measured run: CPU per record in µs.
type run struct {
	cpu     time.Duration
	records int64
}

func (r run) perRecord() float64 { return float64(r.cpu.Microseconds()) / float64(r.records) }

// pairs runs a() and b() rounds+1 times, alternating who goes first; round 0
// is discarded.
func (s *settings) pairs(what string, a, b func(round int) (run, error)) error {
	var as, bs []run
	for r := 0; r <= s.rounds; r++ {
		order := []int{0, 1}
		if r%2 == 1 {
			order = []int{1, 0}
		}
		for _, o := range order {
			f, name := a, "ours"
			if o == 1 {
				f, name = b, s.otherName()
			}
			settle()
			res, err := f(r)
			if err != nil {
				return fmt.Errorf("%s round %d, %s: %w", what, r, name, err)
			}
			warm := ""
			if r == 0 {
				warm = " (warm-up, discarded)"
			}
			log.Printf("%s round %d %s: %.3f µs CPU per record (%v for %d records)%s", what, r, name, res.perRecord(), res.cpu, res.records, warm)
			if r == 0 {
				continue
			}
			if o == 0 {
				as = append(as, res)
			} else {
				bs = append(bs, res)
			}
		}
	}
	report(what, s.otherName(), as, bs)
	return nil
}

func (s *settings) otherName() string {
	if s.vs != "" {
		return "vs"
	}
	return "kgo-floor"
}

func report(what, other string, as, bs []run) {
	per := func(rs []run) []float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = r.perRecord()
		}
		return v
	}
	pa, pb := per(as), per(bs)
	if len(pa) == 0 || len(pa) != len(pb) {
		return
	}
	ratios := make([]float64, len(pa))
	for i := range pa {
		ratios[i] = pa[i] / pb[i]
	}
	fmt.Printf("\n%s: µs CPU per record (user+sys), %d rounds alternated\n\n", what, len(pa))
	fmt.Println("| program | min | median | max | each round |")
	fmt.Println("|---|---:|---:|---:|---|")
	row := func(name string, v []float64, f string) {
		each := make([]string, len(v))
		for i, x := range v {
			each[i] = fmt.Sprintf(f, x)
		}
		sorted := slices.Sorted(slices.Values(v))
		fmt.Printf("| %s | "+f+" | "+f+" | "+f+" | %s |\n", name, sorted[0], median(sorted), sorted[len(sorted)-1], strings.Join(each, " "))
	}
	row("ours", pa, "%.3f")
	row(other, pb, "%.3f")
	row("ours / "+other+", per pair", ratios, "%.3f")
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// settle lets the previous run's writes reach the disk.
func settle() {
	syscall.Sync()
	time.Sleep(time.Second)
}

// child runs a command to its end and returns its CPU time (user+system).
func child(ctx context.Context, logfile string, name string, args ...string) (time.Duration, string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout strings.Builder
	errf, err := os.Create(logfile)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = errf.Close() }() // the child's log: its output is read from stdout
	cmd.Stdout = io.MultiWriter(&stdout, errf)
	cmd.Stderr = errf
	if err := cmd.Run(); err != nil {
		return 0, stdout.String(), fmt.Errorf("%s: %w (see %s)", name, err, logfile)
	}
	return cpuOf(cmd.ProcessState), stdout.String(), nil
}

func cpuOf(ps *os.ProcessState) time.Duration {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return ps.UserTime() + ps.SystemTime()
	}
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
}

func (s *settings) probe() config.Probe {
	var p config.Probe
	p.SetDefaults()
	p.Rate = s.rate
	p.RecordSize = s.size
	p.Producer.BatchSize = s.batch
	return p
}

// benchFile writes a bench file of one scenario.
func (s *settings) benchFile(name string, extra ...string) (string, error) {
	lines := []string{
		fmt.Sprintf("kafka: {brokers: [%s]}", s.brokers),
		fmt.Sprintf("num_records: %d", s.records),
		fmt.Sprintf("rate: %g", s.rate),
		"defaults:",
		fmt.Sprintf("  record_size: %d", s.size),
		"  payload: {kind: random_letters}",
		fmt.Sprintf("  create_topic: {partitions: %d, replication_factor: 1}", s.partitions),
		fmt.Sprintf("  producer: {acks: %q, linger.ms: %d, batch.size: %d, buffer.memory: %d, compression.type: none}",
			s.acks, s.linger.Milliseconds(), s.batch, s.buffer),
	}
	f := filepath.Join(s.work, name+".yml")
	return f, os.WriteFile(f, []byte(strings.Join(append(lines, extra...), "\n")+"\n"), 0o644)
}

// runOurs runs a bench file; with profile it writes a CPU profile of the
// whole run there (bench's --cpuprofile).
func (s *settings) runOurs(ctx context.Context, file, logfile, profile string) (time.Duration, string, error) {
	args := []string{"bench", "--bench.file", file, "--log.level=warn"}
	if profile != "" {
		args = append(args, "--cpuprofile", profile)
		log.Printf("cpu profile of ours: %s", profile)
	}
	return child(ctx, logfile, s.ours, args...)
}

// produced reads ProducerPerformance's line that bench prints: "N records sent, ...".
func produced(out string) (int64, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 3 && f[1] == "records" && f[2] == "sent," {
			return strconv.ParseInt(f[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("no \"records sent\" line in bench's output")
}

// consumed reads ConsumerPerformance's result line that bench prints: the
// line after the header "start.time, ...", field 5 (data.consumed.in.nMsg).
func consumed(out string) (int64, error) {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "start.time") && i+1 < len(lines) {
			if f := strings.Split(lines[i+1], ", "); len(f) > 4 {
				return strconv.ParseInt(strings.TrimSpace(f[4]), 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("no ConsumerPerformance line in bench's output")
}

// fromFloor reads kgo-floor's last line: "acked N failed M in D, R
// records/s" or "consumed N".
func fromFloor(out string) (int64, error) {
	f := strings.Fields(out)
	if len(f) >= 2 && f[0] == "acked" {
		if len(f) >= 4 && f[3] != "0" {
			return 0, fmt.Errorf("kgo-floor: %s records failed", f[3])
		}
		return strconv.ParseInt(f[1], 10, 64)
	}
	if len(f) >= 2 && f[0] == "consumed" {
		return strconv.ParseInt(f[1], 10, 64)
	}
	return 0, fmt.Errorf("kgo-floor printed %q", out)
}

func (s *settings) admin() (*kadm.Client, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(s.brokers, ",")...))
	if err != nil {
		return nil, err
	}
	return kadm.NewClient(cl), nil
}

func (s *settings) profileFile(side string) string {
	if s.profile == "" {
		return ""
	}
	return s.profile + "." + side
}

// floorProfile is where kgo-floor's warm-up run of side writes its profile.
func (s *settings) floorProfile(round int, side string) string {
	if round != 0 || s.profile == "" {
		return ""
	}
	return s.profile + ".floor." + side
}

// ourRun runs ours with file, profiling round 0; count reads the records.
func (s *settings) ourRun(ctx context.Context, file, name string, round int, side string, count func(string) (int64, error)) (run, error) {
	profile := ""
	if round == 0 && s.profile != "" {
		profile = s.profileFile(side)
	}
	cpu, out, err := s.runOurs(ctx, file, filepath.Join(s.work, fmt.Sprintf("%s-%d.log", name, round)), profile)
	if err != nil {
		return run{}, err
	}
	n, err := count(out)
	if err != nil {
		return run{}, err
	}
	return run{cpu: cpu, records: n}, nil
}

func (s *settings) produce(ctx context.Context) error {
	file, err := s.benchFile("produce-ours", "  consumer: {enabled: false}")
	if err != nil {
		return err
	}
	adm, err := s.admin()
	if err != nil {
		return err
	}
	defer adm.Close()
	round := probes.RoundSize(s.probe(), int32(s.partitions))
	ours := func(r int) (run, error) { return s.ourRun(ctx, file, "produce-ours", r, "produce", produced) }
	other := func(r int) (run, error) {
		if s.vs != "" {
			cpu, out, err := child(ctx, filepath.Join(s.work, fmt.Sprintf("produce-vs-%d.log", r)), s.vs, "bench", "--bench.file", file, "--log.level=warn")
			if err != nil {
				return run{}, err
			}
			n, err := produced(out)
			return run{cpu: cpu, records: n}, err
		}
		topic := fmt.Sprintf("floor-produce-%d-%d", r, time.Now().UnixNano())
		if _, err := adm.CreateTopic(ctx, int32(s.partitions), 1, nil, topic); err != nil {
			return run{}, err
		}
		defer adm.DeleteTopics(ctx, topic) //nolint:errcheck // best effort
		cpu, out, err := child(ctx, filepath.Join(s.work, fmt.Sprintf("produce-floor-%d.log", r)), s.floor, "produce",
			"-cpuprofile", s.floorProfile(r, "produce"), "-brokers", s.brokers, "-topic", topic, "-records", strconv.FormatInt(s.records, 10),
			"-rate", strconv.FormatFloat(s.rate, 'g', -1, 64), "-round", strconv.FormatUint(round, 10),
			"-size", strconv.Itoa(s.size), "-acks", s.acks, "-linger", s.linger.String(), "-batch", strconv.Itoa(s.batch),
			"-buffer", strconv.Itoa(s.buffer), "-partitions", strconv.Itoa(s.partitions))
		if err != nil {
			return run{}, err
		}
		n, err := fromFloor(out)
		return run{cpu: cpu, records: n}, err
	}
	log.Printf("produce: %d records x %d B at %g records/s, acks=%s, %d partitions, %d records per wake-up",
		s.records, s.size, s.rate, s.acks, s.partitions, round)
	return s.pairs(fmt.Sprintf("produce %d B acks=%s at %g records/s", s.size, s.acks, s.rate), ours, other)
}

// fill fills a fresh topic with the run's records (bench, consumer off) for
// side and returns its name; the caller deletes it.
func (s *settings) fill(ctx context.Context, side string) (string, error) {
	topic := fmt.Sprintf("floor-fill-%s-%d", side, time.Now().UnixNano())
	fill, err := s.benchFile("fill-"+side, "  topic: "+topic, "  consumer: {enabled: false}", "delete_topics: false")
	if err != nil {
		return "", err
	}
	log.Printf("%s: filling %s with %d records", side, topic, s.records)
	_, _, err = child(ctx, filepath.Join(s.work, "fill-"+side+".log"), s.ours, "bench", "--bench.file", fill, "--log.level=warn")
	return topic, err
}

func (s *settings) consume(ctx context.Context) error {
	adm, err := s.admin()
	if err != nil {
		return err
	}
	defer adm.Close()
	topic, err := s.fill(ctx, "consume")
	defer adm.DeleteTopics(ctx, topic) //nolint:errcheck // best effort
	if err != nil {
		return err
	}
	file, err := s.benchFile("consume-ours", "  topic: "+topic, "consume_only: true", "delete_topics: false")
	if err != nil {
		return err
	}
	ours := func(r int) (run, error) { return s.ourRun(ctx, file, "consume-ours", r, "consume", consumed) }
	other := func(r int) (run, error) {
		if s.vs != "" {
			cpu, out, err := child(ctx, filepath.Join(s.work, fmt.Sprintf("consume-vs-%d.log", r)), s.vs, "bench", "--bench.file", file, "--log.level=warn")
			if err != nil {
				return run{}, err
			}
			n, err := consumed(out)
			return run{cpu: cpu, records: n}, err
		}
		group := fmt.Sprintf("floor-%d-%d", r, time.Now().UnixNano())
		defer adm.DeleteGroup(ctx, group) //nolint:errcheck // best effort
		cpu, out, err := child(ctx, filepath.Join(s.work, fmt.Sprintf("consume-floor-%d.log", r)), s.floor, "consume",
			"-cpuprofile", s.floorProfile(r, "consume"), "-brokers", s.brokers, "-topic", topic, "-group", group, "-records", strconv.FormatInt(s.records, 10))
		if err != nil {
			return run{}, err
		}
		n, err := fromFloor(out)
		return run{cpu: cpu, records: n}, err
	}
	return s.pairs(fmt.Sprintf("consume %d B", s.size), ours, other)
}

// share reads one topic, filled once by bench, with a share group of
// -members members: bench's consume_only with consumer.kind share against
// kgo-floor share, a fresh group each run (share.auto.offset.reset earliest:
// ours sets it itself, the floor's is set here). Both count the group's start.
func (s *settings) share(ctx context.Context) error {
	if s.vs != "" {
		return errors.New("-sides share compares against kgo-floor only: leave out -vs")
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(s.brokers, ",")...))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	topic, err := s.fill(ctx, "share")
	defer adm.DeleteTopics(ctx, topic) //nolint:errcheck // best effort
	if err != nil {
		return err
	}
	ours := func(r int) (run, error) {
		group := fmt.Sprintf("floor-share-ours-%d-%d", r, time.Now().UnixNano())
		defer adm.DeleteGroup(ctx, group) //nolint:errcheck // best effort
		file, err := s.benchFile("share-ours", "  topic: "+topic,
			fmt.Sprintf("  consumer: {kind: share, consumers: %d, share: {group.id: %s}}", s.members, group),
			"consume_only: true", "delete_topics: false")
		if err != nil {
			return run{}, err
		}
		return s.ourRun(ctx, file, "share-ours", r, "share", consumed)
	}
	other := func(r int) (run, error) {
		group := fmt.Sprintf("floor-share-%d-%d", r, time.Now().UnixNano())
		defer adm.DeleteGroup(ctx, group) //nolint:errcheck // best effort
		if err := kclient.SetShareGroupConfigs(ctx, cl, group, map[string]string{kclient.ShareAutoOffsetReset: "earliest"}); err != nil {
			return run{}, err
		}
		cpu, out, err := child(ctx, filepath.Join(s.work, fmt.Sprintf("share-floor-%d.log", r)), s.floor, "share",
			"-cpuprofile", s.floorProfile(r, "share"), "-brokers", s.brokers, "-topic", topic, "-group", group,
			"-records", strconv.FormatInt(s.records, 10), "-members", strconv.Itoa(s.members))
		if err != nil {
			return run{}, err
		}
		n, err := fromFloor(out)
		return run{cpu: cpu, records: n}, err
	}
	return s.pairs(fmt.Sprintf("share %d B, %d members", s.size, s.members), ours, other)
}

// daemon measures the exporter daemon (one probe, rate and record size set,
// every other key at its default) against the -vs build of it.
func (s *settings) daemon(ctx context.Context) error {
	if s.vs == "" {
		return fmt.Errorf("-sides daemon compares two builds of the exporter: give -vs")
	}
	one := func(bin, name string) func(int) (run, error) {
		return func(r int) (run, error) {
			topic := fmt.Sprintf("floor-daemon-%s-%d-%d", name, r, time.Now().UnixNano())
			cfg := filepath.Join(s.work, "daemon-"+name+".yml")
			body := fmt.Sprintf("kafka: {brokers: [%s]}\nprobes: [{name: floor, topic: %s, rate: %g, record_size: %d, consumer: {group.id: %s}}]\n",
				s.brokers, topic, s.rate, s.size, topic)
			if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
				return run{}, err
			}
			addr, err := testenv.LoopbackAddr()
			if err != nil {
				return run{}, err
			}
			logf, err := os.Create(filepath.Join(s.work, fmt.Sprintf("daemon-%s-%d.log", name, r)))
			if err != nil {
				return run{}, err
			}
			defer func() { _ = logf.Close() }()
			cmd := exec.CommandContext(ctx, bin, "--config.file="+cfg, "--web.listen-address="+addr, "--log.level=warn")
			cmd.Stdout, cmd.Stderr = logf, logf
			if err := cmd.Start(); err != nil {
				return run{}, err
			}
			defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
			url := "http://" + addr + "/metrics"
			deadline := time.Now().Add(time.Minute)
			for {
				if resp, err := http.Get("http://" + addr + "/-/ready"); err == nil {
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						break
					}
				}
				if time.Now().After(deadline) {
					return run{}, fmt.Errorf("%s not ready after a minute", name)
				}
				time.Sleep(200 * time.Millisecond)
			}
			time.Sleep(s.warmup)
			c0, err := procCPU(cmd.Process.Pid)
			if err != nil {
				return run{}, err
			}
			n0, err := producedTotal(url)
			if err != nil {
				return run{}, err
			}
			// Scraped every 15 s, as Prometheus would.
			for end := time.Now().Add(s.seconds); time.Now().Before(end); {
				time.Sleep(min(15*time.Second, time.Until(end)))
				if _, err := scrape.Get(url); err != nil {
					return run{}, err
				}
			}
			c1, err := procCPU(cmd.Process.Pid)
			if err != nil {
				return run{}, err
			}
			n1, err := producedTotal(url)
			if err != nil {
				return run{}, err
			}
			return run{cpu: c1 - c0, records: int64(n1 - n0)}, nil
		}
	}
	return s.pairs(fmt.Sprintf("daemon at %g records/s x %d B, %v windows", s.rate, s.size, s.seconds), one(s.ours, "ours"), one(s.vs, "vs"))
}

func producedTotal(url string) (float64, error) {
	f, err := scrape.Get(url)
	if err != nil {
		return 0, err
	}
	var n float64
	for _, m := range f.Find("kafka_bench_produced_records_total") {
		n += m.GetCounter().GetValue()
	}
	return n, nil
}

// procCPU is utime+stime of a running process.
func procCPU(pid int) (time.Duration, error) {
	p, err := hostinfo.ReadProcess(pid)
	return p.CPU, err
}
