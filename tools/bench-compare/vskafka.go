package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-bench/kafka_bench_exporter/bench/result"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/pacer"
)

// The Java producer defaults of Kafka 4.x, written out so both tools get them.
const (
	lingerMS     = 5
	batchSize    = 16384
	bufferMemory = 33554432
)

// toolJVM are the JVM flags kafka-producer-perf-test.sh and
// kafka-consumer-perf-test.sh use.
var toolJVM = []string{"-Xmx512M", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
	"-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-Djava.awt.headless=true"}

var vsKafkaParts = []string{"produce", "produce-txn", "consume", "share", "steady", "compression", "seeds", "cost"}

// vsKafka is ours against Kafka's perf tools on one single-broker Kafka.
// Rows "produce" compare ProducerPerformance's records/sec, "produce-txn"
// the same of a transactional producer (acks=all, transactions of
// -txn-duration-ms), "consume" ConsumerPerformance's nMsg.sec (whole run,
// group join included), "consume-fetch" its fetch.nMsg.sec. Every point starts with a round 0 of both tools that is
// run and discarded (the broker's JIT, page cache and topic metadata are
// then warm for both); the measured rounds alternate which tool goes first.
func vsKafka(ctx context.Context, args []string) (err error) {
	s := newSettings("vs-kafka", "vs-kafka [flags] [produce] [produce-txn] [consume] [share] [steady] [compression] [seeds] [cost]   (default: all)")
	v := &vsRun{
		rounds:     s.Int("rounds", 3, "measured rounds per point, after a discarded warm-up round"),
		records:    s.Int("records", 1000000, "records per run"),
		records10K: s.Int("records-10k", 200000, "records per run of 10 KiB records or more (1M x 10 KiB would outgrow the page cache)"),
		partitions: s.Int("partitions", 9, "partitions of every topic"),
		steadySecs: s.Int("steady-secs", 60, "steady: seconds per rate"),
		costSecs:   s.Int("cost-secs", 300, "cost: seconds measured"),
		compressed: s.Int("compressed-records", 100000, "compression: records per row"),
		payload:    s.String("payload", "random_letters", "our payload kind in produce and consume"),
		members:    s.Int("share-members", 3, "share: members of the share group (ShareConsumerPerformance --threads)"),
		out:        s.String("out", "", "directory for logs, bench files and report.md (default: a temporary one, removed)"),
		seedsFile:  s.String("seeds-file", "bench/spec/testdata/valid-seeds-record-size.yml", "seeds: the bench file of the sweep"),
		txnMS:      s.Int("txn-duration-ms", 3000, "produce-txn: how long each transaction stays open (transaction.duration.ms; ProducerPerformance's --transaction-duration-ms, whose default this is)"),
	}
	sizes := s.List("sizes", "100 1024 10240", "record sizes")
	txnSizes := s.List("txn-sizes", "1024", "produce-txn: record sizes")
	acks := s.List("acks-list", "1 all", "acks values")
	rates := s.List("steady-rates", "1000 10000 50000", "steady: rates")
	codecs := s.List("codecs", "lz4 zstd", "compression: compression.type values")
	if err := s.parse(args); err != nil {
		return err
	}
	parts := s.fs.Args()
	if len(parts) == 0 {
		parts = vsKafkaParts
	}
	for _, p := range parts {
		if !slices.Contains(vsKafkaParts, p) {
			return fmt.Errorf("vs-kafka: %q is not one of %s", p, strings.Join(vsKafkaParts, ", "))
		}
	}
	if v.sizes, err = ints("sizes", *sizes); err != nil {
		return err
	}
	if v.txnSizes, err = ints("txn-sizes", *txnSizes); err != nil {
		return err
	}
	if v.steadyRates, err = ints("steady-rates", *rates); err != nil {
		return err
	}
	if *v.txnMS < 1 || *v.txnMS >= txnTimeoutMS {
		return fmt.Errorf("-txn-duration-ms (TXN_DURATION_MS) %d: must be at least 1 and below transaction.timeout.ms (%d, both tools' default)", *v.txnMS, txnTimeoutMS)
	}
	v.acks, v.codecs = strings.Fields(*acks), strings.Fields(*codecs)
	if len(v.acks) == 0 || len(v.codecs) == 0 {
		return errors.New("-acks-list (ACKS_LIST) and -codecs (CODECS) may not be empty")
	}
	work, cleanup, err := workDir(*v.out, "bench-vs-kafka")
	if err != nil {
		return err
	}
	defer cleanup()
	v.work = work
	if v.report, err = newReport(filepath.Join(work, "report.md")); err != nil {
		return err
	}
	defer func() {
		if cerr := v.report.close(); err == nil {
			err = cerr
		}
	}()
	log.Printf("building into %s", work)
	if v.bin, err = build(ctx, work, "./cmd/kafka_bench_exporter"); err != nil {
		return err
	}
	want := func(p string) bool { return slices.Contains(parts, p) }
	if want("produce") || want("share") {
		if v.floor, err = build(ctx, work, "./tools/kgo-floor"); err != nil {
			return err
		}
	}
	if v.cluster, err = startBroker(ctx); err != nil {
		return err
	}
	defer v.cluster.Close()
	v.brokers = v.cluster.Bootstrap()
	cl, err := kgo.NewClient(kgo.SeedBrokers(v.brokers...))
	if err != nil {
		return err
	}
	defer cl.Close()
	v.cl, v.adm = cl, kadm.NewClient(cl)

	if want("produce") || want("produce-txn") || want("consume") || want("share") {
		v.report.say("")
		v.report.say("### Ours vs Kafka's perf tools (records/s, median of %d rounds after a discarded warm-up round, alternating; ours: payload %s)", *v.rounds, *v.payload)
		v.report.say("")
		v.report.say("| test | record size (B) | acks | ours | Kafka | ours / Kafka | ours, each round | Kafka, each round |")
		v.report.say("|---|---:|---|---:|---:|---:|---|---|")
	}
	steps := []struct {
		part string
		run  func(context.Context) error
	}{{"produce", v.produce}, {"produce-txn", v.produceTxn}, {"consume", v.consume}, {"share", v.share}, {"steady", v.steady}, {"compression", v.compression}, {"seeds", v.seeds}, {"cost", v.cost}}
	for _, st := range steps {
		if want(st.part) {
			if err := st.run(ctx); err != nil {
				return fmt.Errorf("%s: %w", st.part, err)
			}
		}
	}
	v.report.say("")
	v.report.say("Machine: %s; %s; %s; Kafka %s, 1 broker on 127.0.0.1, %d partitions, RF 1.",
		machine(ctx), javaVersion(ctx), runtime.Version(), v.cluster.KafkaVersion(), *v.partitions)
	log.Printf("report: %s", filepath.Join(work, "report.md"))
	return nil
}

type vsRun struct {
	rounds, records, records10K, partitions, steadySecs, costSecs, compressed, txnMS *int
	payload, out, seedsFile                                                          *string
	sizes, txnSizes, steadyRates                                                     []int
	acks, codecs                                                                     []string

	work, bin string
	floor     string // kgo-floor, for the produce and share parts
	cluster   *kafkatest.Cluster
	brokers   []string
	cl        *kgo.Client
	adm       *kadm.Client
	report    *report
	members   *int
}

func (v *vsRun) recordsFor(size int) int {
	if size >= 10240 {
		return *v.records10K
	}
	return *v.records
}

// file is a bench file of one scenario as both tools run it: size, acks,
// n records as fast as possible, the Java producer's defaults written out.
func (v *vsRun) file(size int, acks string, n int, payload payloadKeys, compression string) benchFile {
	return benchFile{
		Kafka:      kafkaKeys{Brokers: v.brokers},
		NumRecords: int64(n),
		Defaults: probeKeys{
			RecordSize:  size,
			Payload:     &payload,
			CreateTopic: &topicKeys{Partitions: int32(*v.partitions), ReplicationFactor: 1},
			Producer: &producerKeys{Acks: acks, LingerMS: lingerMS, BatchSize: batchSize,
				BufferMemory: bufferMemory, CompressionType: compression},
		},
	}
}

// runOurs writes f as name.yml and runs it; the result is bench's JSON.
func (v *vsRun) runOurs(ctx context.Context, name string, f benchFile, extra ...string) (result.JSONResult, error) {
	path := filepath.Join(v.work, name+".yml")
	if err := writeYAML(path, f); err != nil {
		return result.JSONResult{}, err
	}
	return runBench(ctx, v.bin, filepath.Join(v.work, name), append([]string{"--bench.file", path}, extra...)...)
}

// runBench runs `bin bench ARGS --format json --output PREFIX.json`, its
// output in PREFIX.out and PREFIX.err, and reads its one result.
func runBench(ctx context.Context, bin, prefix string, args ...string) (result.JSONResult, error) {
	out := prefix + ".json"
	if err := runLogged(ctx, prefix, bin, append(append([]string{"bench"}, args...), "--log.level=warn", "--format", "json", "--output", out)...); err != nil {
		return result.JSONResult{}, err
	}
	return readResult(out)
}

// runLogged runs a command to its end, stdout to PREFIX.out, stderr to
// PREFIX.err.
func runLogged(ctx context.Context, prefix, name string, args ...string) error {
	stdout, err := os.Create(prefix + ".out")
	if err != nil {
		return err
	}
	defer stdout.Close() //nolint:errcheck // a log
	stderr, err := os.Create(prefix + ".err")
	if err != nil {
		return err
	}
	defer stderr.Close() //nolint:errcheck // a log
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		tail, _ := os.ReadFile(prefix + ".err")
		return fmt.Errorf("%s %s: %w (see %s.out, %s.err)\n%s", filepath.Base(name), strings.Join(args, " "), err, prefix, prefix, tailBytes(tail, 2000))
	}
	return nil
}

func tailBytes(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

// runTool runs a Kafka tool class with the perf scripts' JVM flags and keeps
// its output in NAME.out.
func (v *vsRun) runTool(ctx context.Context, name, class string, args ...string) (string, error) {
	out, err := kafkatest.RunTool(ctx, toolJVM, class, args...)
	if werr := os.WriteFile(filepath.Join(v.work, name+".out"), []byte(out), 0o644); werr != nil && err == nil {
		err = werr
	}
	return out, err
}

// createTopic creates topic and waits until every partition has a leader,
// as ours waits for its own topic before its first record: a client that
// starts on a topic its broker does not list yet waits for its next
// metadata refresh (up to franz-go's metadata.min.age of 5 s), inside its
// timed run.
func (v *vsRun) createTopic(ctx context.Context, topic string) error {
	r, err := v.adm.CreateTopic(ctx, int32(*v.partitions), 1, nil, topic)
	if err == nil {
		err = r.Err
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := kclient.WaitTopic(ctx, v.adm, topic, kclient.Led); err != nil {
		return fmt.Errorf("topic %s created, but not every partition has a leader: %w", topic, err)
	}
	return nil
}

func (v *vsRun) deleteTopic(ctx context.Context, topic string) error {
	rs, err := v.adm.DeleteTopics(ctx, topic)
	if err != nil {
		return err
	}
	return rs.Error()
}

// alternate runs round 0 (a warm-up, discarded) to rounds of ours and
// theirs, kafka first in even rounds, so drift (disk, page cache) hits both;
// it keeps each side's values per round.
func (v *vsRun) alternate(what string, ours, theirs func(round int) ([]float64, error)) (o, t [][]float64, err error) {
	for r := 0; r <= *v.rounds; r++ {
		for _, tool := range roundTools(r) {
			settle()
			f, keep := ours, &o
			if tool == "kafka" {
				f, keep = theirs, &t
			}
			vals, err := f(r)
			if err != nil {
				return nil, nil, fmt.Errorf("%s round %d, %s: %w", what, r, tool, err)
			}
			warm := ""
			if r == 0 {
				warm = " (warm-up, discarded)"
			} else {
				*keep = append(*keep, vals)
			}
			log.Printf("%s round %d%s %s: %.0f records/s", what, r, warm, tool, vals[0])
		}
	}
	return o, t, nil
}

// roundTools is the order of the two tools in round r (alternate): Kafka's
// first in even rounds.
func roundTools(r int) []string {
	if r%2 == 1 {
		return []string{"ours", "kafka"}
	}
	return []string{"kafka", "ours"}
}

// oursFirst says whether ours runs before Kafka's tool in round r.
func oursFirst(r int) bool { return roundTools(r)[0] == "ours" }

// inTurn runs a then b, or b then a when swapped, with between before the
// second (settle).
func inTurn(swapped bool, a, b func() error, between func()) error {
	if swapped {
		a, b = b, a
	}
	if err := a(); err != nil {
		return err
	}
	between()
	return b()
}

// column is the i-th value of every round.
func column(rounds [][]float64, i int) []float64 {
	out := make([]float64, len(rounds))
	for r, vals := range rounds {
		out[r] = vals[i]
	}
	return out
}

// compareRow is one row of the perf-tools table: medians, their ratio and
// every round.
func compareRow(test string, size int, acks string, ours, kafka []float64) string {
	each := func(v []float64) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = fmt.Sprintf("%.0f", x)
		}
		return strings.Join(s, " ")
	}
	mo, mk := median(ours), median(kafka)
	return fmt.Sprintf("| %s | %d | %s | %.0f | %.0f | **%.2f** | %s | %s |", test, size, acks, mo, mk, ratio(mo, mk), each(ours), each(kafka))
}

func (v *vsRun) produce(ctx context.Context) error {
	for _, size := range v.sizes {
		n := v.recordsFor(size)
		for _, acks := range v.acks {
			name := fmt.Sprintf("produce-ours-%d-%s", size, acks)
			f := v.file(size, acks, n, payloadKeys{Kind: *v.payload}, "none")
			f.Defaults.Consumer = &consumerKeys{Enabled: new(false)}
			// The floor runs beside ours, before it in the rounds where
			// ours goes first and after it in the others (alternate), so
			// ours is always between the two others and each of them in
			// turn first and last: none always writes while the broker
			// still writes back the run before.
			ours := func(r int) ([]float64, error) {
				var res result.JSONResult
				var floor float64
				runOurs := func() (err error) {
					res, err = v.runOurs(ctx, fmt.Sprintf("%s-%d", name, r), f)
					return err
				}
				runFloor := func() (err error) {
					floor, err = v.produceFloor(ctx, fmt.Sprintf("produce-floor-%d-%s-%d", size, acks, r), n, size, acks)
					return err
				}
				if err := inTurn(!oursFirst(r), runFloor, runOurs, settle); err != nil {
					return nil, err
				}
				if res.Produce == nil {
					return nil, errors.New("bench's result has no produce part")
				}
				return []float64{res.Produce.RecordsPerSec, floor}, nil
			}
			theirs := func(r int) ([]float64, error) {
				topic := fmt.Sprintf("pp-%d-%s-%d", size, acks, r)
				return v.producerPerf(ctx, fmt.Sprintf("produce-kafka-%d-%s-%d", size, acks, r), topic, producerPerfArgs(v.brokers, topic, n, size, acks, nil))
			}
			o, k, err := v.alternate(fmt.Sprintf("produce %d B acks=%s (%d records)", size, acks, n), ours, theirs)
			if err != nil {
				return err
			}
			v.report.say("%s", compareRow("produce", size, acks, column(o, 0), column(k, 0)))
			v.report.say("%s", compareRow("produce, kgo-floor as ours", size, acks, column(o, 1), column(k, 0)))
		}
	}
	return nil
}

// txnTimeoutMS is transaction.timeout.ms, the Java producer's default and
// ours, which neither tool is given: a transaction must end before it.
const txnTimeoutMS = 60000

// txnSettings make a producer transactional: its transactional.id and how
// long each transaction stays open before it commits.
type txnSettings struct {
	id         string
	durationMS int
}

// producerPerfArgs are ProducerPerformance's arguments for n records of
// size bytes to topic as fast as possible, with the producer properties
// ours gets (file); txn, when set, makes it transactional:
// --transactional-id, --transaction-duration-ms and idempotence on (acks
// must then be all).
func producerPerfArgs(brokers []string, topic string, n, size int, acks string, txn *txnSettings) []string {
	args := []string{"--topic", topic, "--num-records", strconv.Itoa(n), "--throughput", "-1", "--record-size", strconv.Itoa(size)}
	if txn != nil {
		args = append(args, "--transactional-id", txn.id, "--transaction-duration-ms", strconv.Itoa(txn.durationMS))
	}
	args = append(args, "--producer-props", "bootstrap.servers="+strings.Join(brokers, ","), "acks="+acks,
		fmt.Sprint("linger.ms=", lingerMS), fmt.Sprint("batch.size=", batchSize), fmt.Sprint("buffer.memory=", bufferMemory), "compression.type=none")
	if txn != nil {
		args = append(args, "enable.idempotence=true")
	}
	return args
}

// producerPerf runs ProducerPerformance with args to topic, created before
// and deleted after, and reads its records/sec.
func (v *vsRun) producerPerf(ctx context.Context, name, topic string, args []string) ([]float64, error) {
	if err := v.createTopic(ctx, topic); err != nil {
		return nil, err
	}
	out, err := v.runTool(ctx, name, "org.apache.kafka.tools.ProducerPerformance", args...)
	if err != nil {
		return nil, err
	}
	if err := v.deleteTopic(ctx, topic); err != nil {
		return nil, err
	}
	rate, err := producerRate(out)
	return []float64{rate}, err
}

// txnFile is the produce part's bench file (consumer off) with a
// transactional producer: acks=all, idempotence on, transactions of
// txn.durationMS (none aborted on purpose: transaction.abort.ratio stays 0).
func (v *vsRun) txnFile(size, n int, txn txnSettings) benchFile {
	f := v.file(size, "all", n, payloadKeys{Kind: *v.payload}, "none")
	f.Defaults.Consumer = &consumerKeys{Enabled: new(false)}
	f.Defaults.Producer.EnableIdempotence = new(true)
	f.Defaults.Producer.TransactionalID = txn.id
	f.Defaults.Producer.TransactionDurationMS = txn.durationMS
	return f
}

// txnRate is our records/sec of a transactional run, an error if any
// acknowledged record's transaction was not committed (aborted, or its end
// failed: the result's produce.not_committed), as ProducerPerformance's
// failed commit would be.
func txnRate(res result.JSONResult, prefix string) (float64, error) {
	switch p := res.Produce; {
	case p == nil:
		return 0, errors.New("bench's result has no produce part")
	case p.NotCommitted > 0:
		return 0, fmt.Errorf("%d acknowledged records of transactions not committed (see %s.err)", p.NotCommitted, prefix)
	default:
		return p.RecordsPerSec, nil
	}
}

// produceTxn compares a transactional producer, ours against
// ProducerPerformance --transactional-id --transaction-duration-ms, each
// run with a fresh transactional id; otherwise as produce.
//
// Our records/sec counts every acknowledged record after the warm-up: the
// bench's recorder takes the records of a transaction not committed
// (aborted, or its end failed) out of those a consumer is to read, not out
// of the producer's count. No transaction is aborted on purpose here, so
// only a failed end could leave such records: a run whose result counts
// any (txnRate) is an error, as ProducerPerformance's would be. Our
// elapsed time ends at the last acknowledgement, before the last commit;
// ProducerPerformance's after it and the producer's close.
func (v *vsRun) produceTxn(ctx context.Context) error {
	const acks = "all" // transactions need idempotence, and so acks=all
	for _, size := range v.txnSizes {
		n := v.recordsFor(size)
		ours := func(r int) ([]float64, error) {
			name := fmt.Sprintf("produce-txn-ours-%d-%d", size, r)
			f := v.txnFile(size, n, txnSettings{id: fmt.Sprintf("txn-ours-%d-%d", size, r), durationMS: *v.txnMS})
			res, err := v.runOurs(ctx, name, f)
			if err != nil {
				return nil, err
			}
			rate, err := txnRate(res, filepath.Join(v.work, name))
			return []float64{rate}, err
		}
		theirs := func(r int) ([]float64, error) {
			topic := fmt.Sprintf("pp-txn-%d-%d", size, r)
			txn := &txnSettings{id: fmt.Sprintf("txn-kafka-%d-%d", size, r), durationMS: *v.txnMS}
			return v.producerPerf(ctx, fmt.Sprintf("produce-txn-kafka-%d-%d", size, r), topic, producerPerfArgs(v.brokers, topic, n, size, acks, txn))
		}
		o, k, err := v.alternate(fmt.Sprintf("produce-txn %d B acks=%s, transactions of %d ms (%d records)", size, acks, *v.txnMS, n), ours, theirs)
		if err != nil {
			return err
		}
		v.report.say("%s", compareRow("produce-txn", size, acks, column(o, 0), column(k, 0)))
	}
	return nil
}

func (v *vsRun) consume(ctx context.Context) error {
	for _, size := range v.sizes {
		n := v.recordsFor(size)
		topic := fmt.Sprintf("fill-%d", size)
		// Pre-filled by ours: our consumer then decodes and tracks every
		// record (ConsumerPerformance reads opaque bytes either way).
		fill := v.file(size, "1", n, payloadKeys{Kind: *v.payload}, "none")
		fill.Defaults.Topic = topic
		fill.Defaults.Consumer = &consumerKeys{Enabled: new(false)}
		settle()
		if _, err := v.runOurs(ctx, fmt.Sprintf("fill-%d", size), fill); err != nil {
			return err
		}
		f := v.file(size, "1", n, payloadKeys{Kind: *v.payload}, "none")
		f.Defaults.Topic = topic
		f.ConsumeOnly = true
		ours := func(r int) ([]float64, error) {
			res, err := v.runOurs(ctx, fmt.Sprintf("consume-ours-%d-%d", size, r), f)
			if err != nil {
				return nil, err
			}
			c, err := ourConsumerRates(res)
			return []float64{c.total, c.fetch}, err
		}
		theirs := func(r int) ([]float64, error) {
			out, err := v.runTool(ctx, fmt.Sprintf("consume-kafka-%d-%d", size, r), "org.apache.kafka.tools.ConsumerPerformance",
				"--bootstrap-server", strings.Join(v.brokers, ","), "--topic", topic, "--messages", strconv.Itoa(n),
				"--group", fmt.Sprintf("cp-%d-%d", size, r), "--timeout", "60000")
			if err != nil {
				return nil, err
			}
			c, err := consumerRate(out)
			return []float64{c.total, c.fetch}, err
		}
		o, k, err := v.alternate(fmt.Sprintf("consume %d B (%d records)", size, n), ours, theirs)
		if err != nil {
			return err
		}
		v.report.say("%s", compareRow("consume", size, "-", column(o, 0), column(k, 0)))
		v.report.say("%s", compareRow("consume-fetch", size, "-", column(o, 1), column(k, 1)))
		if err := v.deleteTopic(ctx, topic); err != nil {
			return err
		}
	}
	return nil
}

// share compares a share group reading a pre-filled topic of 1 KiB records
// (ours consume-only with consumer.kind share) with
// ShareConsumerPerformance, the same number of members, a fresh group each
// run whose share.auto.offset.reset is earliest (ours sets it itself; the
// tool's is set here, as an operator would with kafka-configs).
func (v *vsRun) share(ctx context.Context) error {
	const size = 1024
	n := v.recordsFor(size)
	topic := "fill-share"
	fill := v.file(size, "1", n, payloadKeys{Kind: *v.payload}, "none")
	fill.Defaults.Topic = topic
	fill.Defaults.Consumer = &consumerKeys{Enabled: new(false)}
	settle()
	if _, err := v.runOurs(ctx, "fill-share", fill); err != nil {
		return err
	}
	ours := func(r int) ([]float64, error) {
		f := v.file(size, "1", n, payloadKeys{Kind: *v.payload}, "none")
		f.Defaults.Topic = topic
		f.ConsumeOnly = true
		f.Defaults.Consumer = &consumerKeys{Kind: "share", Consumers: *v.members, Share: &shareKeys{GroupID: fmt.Sprintf("share-ours-%d", r)}}
		res, err := v.runOurs(ctx, fmt.Sprintf("share-ours-%d", r), f)
		if err != nil {
			return nil, err
		}
		c, err := ourConsumerRates(res)
		if err != nil {
			return nil, err
		}
		settle()
		floor, err := v.shareFloor(ctx, fmt.Sprintf("share-floor-%d", r), topic, n)
		return []float64{c.total, floor.total, c.fetch, floor.fetch}, err
	}
	theirs := func(r int) ([]float64, error) {
		group := fmt.Sprintf("share-kafka-%d", r)
		if err := kclient.SetShareGroupConfigs(ctx, v.cl, group, map[string]string{kclient.ShareAutoOffsetReset: "earliest"}); err != nil {
			return nil, err
		}
		out, err := v.runTool(ctx, group, "org.apache.kafka.tools.ShareConsumerPerformance",
			"--bootstrap-server", strings.Join(v.brokers, ","), "--topic", topic, "--num-records", strconv.Itoa(n),
			"--group", group, "--threads", strconv.Itoa(*v.members), "--timeout", "60000",
			"--show-detailed-stats", "--reporting-interval", "1000")
		if err != nil {
			return nil, err
		}
		c, err := shareConsumerRates(out)
		return []float64{c.total, c.fetch}, err
	}
	o, k, err := v.alternate(fmt.Sprintf("share-consume %d B, %d members (%d records)", size, *v.members, n), ours, theirs)
	if err != nil {
		return err
	}
	v.report.say("%s", compareRow(fmt.Sprintf("share-consume (%d members)", *v.members), size, "-", column(o, 0), column(k, 0)))
	v.report.say("%s", compareRow(fmt.Sprintf("share-consume, kgo-floor as ours (%d members)", *v.members), size, "-", column(o, 1), column(k, 0)))
	// From each side's first record: the group's start left out.
	v.report.say("%s", compareRow(fmt.Sprintf("share-consume from the first record (%d members)", *v.members), size, "-", column(o, 2), column(k, 1)))
	v.report.say("%s", compareRow(fmt.Sprintf("share-consume from the first record, kgo-floor as ours (%d members)", *v.members), size, "-", column(o, 3), column(k, 1)))
	v.report.say("%s", compareRow(fmt.Sprintf("share-consume from the first record, kgo-floor as Kafka (%d members)", *v.members), size, "-", column(o, 2), column(o, 3)))
	return v.deleteTopic(ctx, topic)
}

// produceFloor runs kgo-floor's producer, the client library alone (no
// header, histogram, tracking or metrics), beside ours in the same round
// (before or after it, see produce): n records of size as fast as it can, round-robin over a fresh
// topic of the same partitions, with the producer settings both tools get
// (linger.ms, batch.size, buffer.memory, no compression; idempotence
// follows acks as in ours), and returns its records/s, timed from the first
// record to the last acknowledgement, as ours is.
func (v *vsRun) produceFloor(ctx context.Context, name string, n, size int, acks string) (float64, error) {
	topic := name
	if err := v.createTopic(ctx, topic); err != nil {
		return 0, err
	}
	prefix := filepath.Join(v.work, name)
	if err := runLogged(ctx, prefix, v.floor, "produce", "-brokers", strings.Join(v.brokers, ","), "-topic", topic,
		"-records", strconv.Itoa(n), "-rate", "0", "-size", strconv.Itoa(size), "-acks", acks,
		"-partitions", strconv.Itoa(*v.partitions), "-linger", fmt.Sprint(lingerMS, "ms"),
		"-batch", strconv.Itoa(batchSize), "-buffer", strconv.Itoa(bufferMemory)); err != nil {
		return 0, err
	}
	if err := v.deleteTopic(ctx, topic); err != nil {
		return 0, err
	}
	out, err := os.ReadFile(prefix + ".out")
	if err != nil {
		return 0, err
	}
	return floorProduceRate(string(out))
}

// shareFloor runs kgo-floor's share consumer, the client library alone (no
// header, tracking or metrics), on the topic with a fresh share group of
// the same members, right after ours in the same round, and returns its
// records/s, timed like ours: with and without the group's start.
func (v *vsRun) shareFloor(ctx context.Context, group, topic string, n int) (consumerRates, error) {
	if err := kclient.SetShareGroupConfigs(ctx, v.cl, group, map[string]string{kclient.ShareAutoOffsetReset: "earliest"}); err != nil {
		return consumerRates{}, err
	}
	prefix := filepath.Join(v.work, group)
	if err := runLogged(ctx, prefix, v.floor, "share", "-brokers", strings.Join(v.brokers, ","), "-topic", topic,
		"-group", group, "-records", strconv.Itoa(n), "-members", strconv.Itoa(*v.members)); err != nil {
		return consumerRates{}, err
	}
	out, err := os.ReadFile(prefix + ".out")
	if err != nil {
		return consumerRates{}, err
	}
	return floorShareRates(string(out))
}

func (v *vsRun) steady(ctx context.Context) error {
	v.report.say("")
	v.report.say("### Steady state: ours at a fixed rate for %d s (1 KiB, acks=all, consumer on)", *v.steadySecs)
	v.report.say("")
	v.report.say("| target rec/s | records | achieved rec/s | achieved / target | p99 produce ms | p99 end-to-end ms |")
	v.report.say("|---:|---:|---:|---:|---:|---:|")
	for _, rate := range v.steadyRates {
		f := benchFile{
			Kafka:    kafkaKeys{Brokers: v.brokers},
			Duration: fmt.Sprintf("%ds", *v.steadySecs),
			Rate:     float64(rate),
			Defaults: probeKeys{RecordSize: 1024, CreateTopic: &topicKeys{Partitions: int32(*v.partitions), ReplicationFactor: 1}},
		}
		settle()
		res, err := v.runOurs(ctx, fmt.Sprintf("steady-%d", rate), f)
		if err != nil {
			return err
		}
		if res.Produce == nil || res.Consume == nil || res.Consume.EndToEndMS == nil {
			return fmt.Errorf("steady %d rec/s: bench's result lacks the producer's or the end-to-end latencies", rate)
		}
		p := res.Produce
		v.report.say("| %d | %d | %.1f | %.5f | %.3f | %.3f |", rate, p.Records, p.RecordsPerSec, p.RecordsPerSec/float64(rate),
			p.LatencyMS.P99, res.Consume.EndToEndMS.P99)
		log.Printf("steady %d rec/s: achieved %.3f", rate, p.RecordsPerSec)
	}
	return nil
}

// payloadLines writes 2,000 JSON-like events of about 1 KiB (words from a
// small vocabulary, as logs and events are), one per line, for our payload
// kind file and ProducerPerformance's --payload-file alike; it returns their
// average length.
func payloadLines(path string) (float64, error) {
	words := strings.Fields("alpha beta gamma delta error info warn user order item cart click view search checkout login logout session page price")
	rnd := rand.New(rand.NewPCG(42, 42)) //nolint:gosec // a fixed sample, not a secret
	var b strings.Builder
	total := 0
	const lines = 2000
	for i := range lines {
		line := fmt.Sprintf(`{"id":%d,"user":"u%05d","event":"%s","ts":%d,"text":"`, i, rnd.IntN(50000), words[rnd.IntN(len(words))], 1700000000000+i*37)
		for len(line) < 1000 {
			line += words[rnd.IntN(len(words))] + " "
		}
		line += `"}`
		total += len(line)
		b.WriteString(line + "\n")
	}
	return float64(total) / lines, os.WriteFile(path, []byte(b.String()), 0o644)
}

// topicBytes is the size of a topic's partitions in the brokers' log dirs.
func (v *vsRun) topicBytes(ctx context.Context, topic string) (int64, error) {
	dirs, err := v.adm.DescribeAllLogDirs(ctx, nil) // every topic: a set of a topic alone names no partition
	if err != nil {
		return 0, err
	}
	var n int64
	for _, broker := range dirs {
		if err := broker.Error(); err != nil {
			return 0, err
		}
		broker.EachPartition(func(p kadm.DescribedLogDirPartition) {
			if p.Topic == topic {
				n += p.Size
			}
		})
	}
	return n, nil
}

func (v *vsRun) compression(ctx context.Context) error {
	pfile := filepath.Join(v.work, "payload.jsonl")
	entry, err := payloadLines(pfile)
	if err != nil {
		return err
	}
	n := *v.compressed
	v.report.say("")
	v.report.say("### Bytes the broker stores for %d records (acks=1, linger.ms=%d, batch.size=%d, %d partitions)", n, lingerMS, batchSize, *v.partitions)
	v.report.say("")
	v.report.say("Payload file: %d records drawn from 2,000 JSON-like lines of %.1f B on average (generated by this command).", n, entry)
	v.report.say("")
	v.report.say("| compression.type | producer | payload | record value B | stored MB | stored / raw |")
	v.report.say("|---|---|---|---:|---:|---:|")
	row := func(codec, producer, payload string, value float64, topic string) error {
		stored, err := v.topicBytes(ctx, topic)
		if err != nil {
			return err
		}
		v.report.say("| %s | %s | %s | %g | %.1f | %.3f |", codec, producer, payload, value, float64(stored)/1e6, float64(stored)/(float64(n)*value))
		return v.deleteTopic(ctx, topic)
	}
	for _, codec := range v.codecs {
		for _, kind := range []string{"random_letters", "random_bytes", "file"} {
			topic := fmt.Sprintf("cmp-ours-%s-%s", kind, codec)
			payload, value := payloadKeys{Kind: kind}, 1024.0
			if kind == "file" {
				// The record value: the payload line and the record header.
				payload.File, value = pfile, 36+roundTo(entry, 1)
			}
			f := v.file(1024, "1", n, payload, codec)
			f.Defaults.Topic = topic
			f.Defaults.Consumer = &consumerKeys{Enabled: new(false)}
			f.DeleteTopics = new(false)
			settle()
			if _, err := v.runOurs(ctx, topic, f); err != nil {
				return err
			}
			if err := row(codec, "ours", kind, value, topic); err != nil {
				return err
			}
		}
		for _, kind := range []string{"random_letters", "file"} {
			topic := fmt.Sprintf("cmp-pp-%s-%s", kind, codec)
			if err := v.createTopic(ctx, topic); err != nil {
				return err
			}
			payload, value, label := []string{"--record-size", "1024"}, 1024.0, "random A-Z (built in)"
			if kind == "file" {
				payload, value, label = []string{"--payload-file", pfile}, roundTo(entry, 1), "--payload-file"
			}
			settle()
			args := append([]string{"--topic", topic, "--num-records", strconv.Itoa(n), "--throughput", "-1"}, payload...)
			args = append(args, "--producer-props", "bootstrap.servers="+strings.Join(v.brokers, ","), "acks=1",
				fmt.Sprint("linger.ms=", lingerMS), fmt.Sprint("batch.size=", batchSize), fmt.Sprint("buffer.memory=", bufferMemory), "compression.type="+codec)
			if _, err := v.runTool(ctx, topic, "org.apache.kafka.tools.ProducerPerformance", args...); err != nil {
				return err
			}
			if err := row(codec, "ProducerPerformance", label, value, topic); err != nil {
				return err
			}
		}
	}
	return nil
}

func roundTo(x float64, digits int) float64 { return result.Round(x, digits) }

func (v *vsRun) seeds(ctx context.Context) error {
	settle()
	v.report.say("")
	v.report.say("### A seeds-style sweep: %s", *v.seedsFile)
	v.report.say("")
	md := filepath.Join(v.work, "seeds.md")
	if err := runLogged(ctx, filepath.Join(v.work, "seeds"), v.bin, "bench", "--bench.file", *v.seedsFile,
		"--kafka.brokers", strings.Join(v.brokers, ","), "--log.level=warn", "--output", md); err != nil {
		return err
	}
	b, err := os.ReadFile(md)
	if err != nil {
		return err
	}
	v.report.say("%s", strings.TrimRight(string(b), "\n"))
	return nil
}

// cost is the exporter daemon, one probe at 1,000 rec/s x 1 KiB, scraped
// every 15 s for -cost-secs: CPU and RSS; then a 20 s broker stall
// (SIGSTOP): records pile up in the producer (up to buffer.memory), and the
// memory must go back once Kafka answers again.
func (v *vsRun) cost(ctx context.Context) error {
	settle()
	if err := pacer.Sleep(ctx, 20*time.Second); err != nil { // the broker idle again after the runs above
		return err
	}
	d, err := startDaemon(ctx, v.bin, filepath.Join(v.work, "cost.log"), "--kafka.brokers="+strings.Join(v.brokers, ","),
		"--probe.rate=1000", "--probe.record-size=1024", "--log.level=warn")
	if err != nil {
		return err
	}
	defer d.stop()
	if err := pacer.Sleep(ctx, 30*time.Second); err != nil { // past start-up
		return err
	}
	p0, err := d.stats()
	if err != nil {
		return err
	}
	t0 := time.Now()
	first, err := d.metrics()
	if err != nil {
		return err
	}
	last := first
	for range *v.costSecs / 15 {
		if err := pacer.Sleep(ctx, 15*time.Second); err != nil {
			return err
		}
		if last, err = d.metrics(); err != nil {
			return err
		}
	}
	p1, err := d.stats()
	if err != nil {
		return err
	}
	el := time.Since(t0).Seconds()
	if err := v.cluster.Pause(0); err != nil {
		return err
	}
	err = pacer.Sleep(ctx, 20*time.Second)
	if rerr := v.cluster.Resume(0); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return err
	}
	if err := pacer.Sleep(ctx, time.Minute); err != nil {
		return err
	}
	p2, err := d.stats()
	if err != nil {
		return err
	}
	rate := (value(last, "kafka_bench_produced_records_total") - value(first, "kafka_bench_produced_records_total")) / el
	v.report.say("")
	v.report.say("### Always-on cost: exporter daemon, one probe at 1,000 rec/s x 1 KiB, scraped every 15 s")
	v.report.say("")
	v.report.say("| seconds | produced rec/s | CPU (fraction of one core) | RSS MiB (end) | peak RSS MiB | peak RSS MiB, 20 s broker stall | RSS MiB 60 s after it |")
	v.report.say("|---:|---:|---:|---:|---:|---:|---:|")
	v.report.say("| %.0f | %.1f | %.4f | %.1f | %.1f | %.1f | %.1f |", el, rate, (p1.CPU-p0.CPU).Seconds()/el,
		mib(p1.RSS), mib(p1.PeakRSS), mib(p2.PeakRSS), mib(p2.RSS))
	return nil
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
