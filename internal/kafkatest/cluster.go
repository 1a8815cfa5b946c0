// Package kafkatest runs real Apache Kafka brokers (KRaft, every node is
// broker+controller) on 127.0.0.1 for integration tests, fault tests and
// benchmarks. The jars come from scripts/kafka.sh, which pins the version
// (Options.KafkaVersion or KAFKA_VERSION in the environment picks another);
// this package is the one place that writes node configs, formats storage and
// starts the JVMs.
//
//	func TestX(t *testing.T) {
//		kafkatest.Integration(t) // skips unless KAFKA_BENCH_INTEGRATION=1
//		c := kafkatest.Start(t, kafkatest.Options{Nodes: 3})
//		cl, _ := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
//		...
//	}
//
// Outside tests: go run ./internal/kafkatest/cmd/kafka-cluster -nodes 3.
//
// Needs java 17+ and mvn (first run downloads ~55 MB of jars into
// ~/.cache/kafka_bench_exporter). KAFKA_BENCH_CDS=0 turns off the AppCDS
// archives that make JVMs start faster (see cds.go).
//
// Metadata questions (WaitReady, LeaderOf, BrokerIDs) are answered by real
// Metadata requests: kadm.BrokerMetadata/Metadata in kadm v1.20 answer from
// kgo's cache, whose broker list can stay stale indefinitely.
package kafkatest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
)

// Options configure a cluster. The zero value is a 1-node cluster.
type Options struct {
	Nodes        int               // 1 or 3 (default 1); any N >= 1 works, RF is min(N, 3)
	BrokerConfig map[string]string // extra server.properties, applied to every node; overrides the defaults
	HeapMB       int               // default 512
	JVMFlags     []string          // extra broker JVM flags, after the defaults (so they win)
	// SASLSSL, when set, adds a SASL_SSL client listener to every node
	// (see SASLSSL and Cluster.SecureBootstrap).
	SASLSSL *SASLSSL
	// KafkaVersion is the Apache Kafka release to run, e.g. "3.9.1"; empty:
	// KAFKA_VERSION from the environment, else scripts/kafka.sh's default.
	KafkaVersion string
	// Racks, when set, is each node's broker.rack, in node order (one per
	// node).
	Racks []string
}

const (
	defaultHeapMB = 512
	// startAttempts: free ports are picked by listening on :0 and closing,
	// so another process can take one before the JVM binds it; retry then.
	startAttempts = 3
)

// errPortInUse marks a start failure caused by a port taken between picking it and the JVM binding it.
var errPortInUse = errors.New("port already in use")

// Cluster is a running set of Kafka JVMs. Its methods are safe for concurrent use.
type Cluster struct {
	opts      Options
	logf      func(string, ...any)
	env       jvmEnv
	dir       string
	clusterID string
	nodes     []*node
	certs     *testcerts.Set // with Options.SASLSSL

	mu     sync.Mutex // guards node.proc, node.paused, node.env, closed
	closed bool
}

type node struct {
	id      int32
	port    int // PLAINTEXT (client) listener
	cport   int // CONTROLLER listener
	sport   int // SECURE (SASL_SSL client) listener, with Options.SASLSSL
	home    string
	config  string
	logPath string

	proc   *process // last started JVM; nil before the first start
	paused bool
	env    *jvmEnv // another release than the cluster's (Upgrade); nil: the cluster's
}

// StartCluster starts a cluster and returns once every broker is listed in
// metadata. ctx bounds the start only; the cluster runs until Close. logf
// (may be nil) receives progress lines.
func StartCluster(ctx context.Context, opts Options, logf func(string, ...any)) (*Cluster, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if opts.Nodes == 0 {
		opts.Nodes = 1
	}
	if opts.HeapMB == 0 {
		opts.HeapMB = defaultHeapMB
	}
	if opts.Nodes < 1 {
		return nil, fmt.Errorf("kafkatest: Options.Nodes = %d, want >= 1", opts.Nodes)
	}
	if len(opts.Racks) > 0 && len(opts.Racks) != opts.Nodes {
		return nil, fmt.Errorf("kafkatest: %d Options.Racks for %d nodes, want one per node", len(opts.Racks), opts.Nodes)
	}
	if opts.HeapMB < 128 {
		return nil, fmt.Errorf("kafkatest: Options.HeapMB = %d, want >= 128", opts.HeapMB)
	}
	java, err := lookJava()
	if err != nil {
		return nil, err
	}
	lib, log4j, version, err := kafkaLib(ctx, opts.KafkaVersion, logf)
	if err != nil {
		return nil, err
	}
	env := jvmEnv{java: java, lib: lib, log4j: log4j, version: version}.withCDS(ctx, logf)
	for attempt := 1; ; attempt++ {
		c, err := startOnce(ctx, opts, logf, env)
		if err == nil || !errors.Is(err, errPortInUse) || attempt == startAttempts || ctx.Err() != nil {
			return c, err
		}
		logf("kafkatest: %v; retrying with new ports", err)
	}
}

func startOnce(ctx context.Context, opts Options, logf func(string, ...any), env jvmEnv) (_ *Cluster, err error) {
	began := time.Now()
	removeStaleDirs(logf)
	dir, err := ownedTempDir()
	if err != nil {
		return nil, err
	}
	c := &Cluster{opts: opts, logf: logf, env: env, dir: dir}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	if opts.SASLSSL != nil {
		if c.certs, err = opts.SASLSSL.certificates(dir); err != nil {
			return nil, err
		}
	}
	if c.clusterID, err = newClusterID(); err != nil {
		return nil, err
	}
	if err := c.configureNodes(); err != nil {
		return nil, err
	}

	// Format and start every node in parallel: JVM start-up dominates.
	if err := c.forEachNode(func(n *node) error { return c.format(ctx, n) }); err != nil {
		return nil, err
	}
	formatted := time.Since(began)
	if err := c.startStopped(); err != nil {
		return nil, err
	}
	if err := c.waitBrokers(ctx, c.allIDs()); err != nil {
		return nil, err
	}
	logf("kafkatest: %d-node cluster up in %v (format %v), bootstrap %s, logs in %s",
		opts.Nodes, time.Since(began).Round(time.Millisecond), formatted.Round(time.Millisecond),
		strings.Join(c.Bootstrap(), ","), dir)
	return c, nil
}

// newClusterID returns 16 random bytes in base64 raw URL encoding, like
// `kafka-storage.sh random-uuid`. Like Kafka's Uuid.randomUuid it rejects ids
// starting with '-', which the storage tool's argument parser takes for a flag.
func newClusterID() (string, error) {
	for {
		var raw [16]byte
		if _, err := rand.Read(raw[:]); err != nil {
			return "", fmt.Errorf("kafkatest: cluster id: %w", err)
		}
		if id := base64.RawURLEncoding.EncodeToString(raw[:]); id[0] != '-' {
			return id, nil
		}
	}
}

const (
	tempPrefix = "kafkatest-"
	ownerFile  = "owner.pid" // pid of the process that made the dir
)

// ownedTempDir makes the temporary directory of a cluster or a MirrorMaker,
// with the owner file that removeStaleDirs reads.
func ownedTempDir() (string, error) {
	dir, err := os.MkdirTemp("", tempPrefix)
	if err != nil {
		return "", fmt.Errorf("kafkatest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return "", fmt.Errorf("kafkatest: %w", errors.Join(err, os.RemoveAll(dir)))
	}
	return dir, nil
}

// removeStaleDirs removes cluster dirs left by processes that died without
// Close (a test binary killed on timeout: Pdeathsig kills its JVMs, but
// nothing removes their data, which can be gigabytes after a benchmark).
func removeStaleDirs(logf func(string, ...any)) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // not ours, or being created
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue // owner alive (or unknown): leave it
		}
		if os.RemoveAll(dir) == nil {
			logf("kafkatest: removed %s left by dead process %d", dir, pid)
		}
	}
}

// Close kills every JVM and removes the cluster's directory. It is idempotent.
func (c *Cluster) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	var procs []*process
	for _, n := range c.nodes {
		if n.proc.running() {
			procs = append(procs, n.proc)
		}
	}
	c.mu.Unlock()
	for _, p := range procs {
		_ = p.signal(syscall.SIGKILL)
	}
	for _, p := range procs {
		<-p.done
	}
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
	}
}

// Bootstrap returns "127.0.0.1:port" of every node, stopped ones included.
func (c *Cluster) Bootstrap() []string {
	addrs := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		addrs[i] = n.addr()
	}
	return addrs
}

// Nodes returns the number of nodes.
func (c *Cluster) Nodes() int { return len(c.nodes) }

// NodeID returns the Kafka node id of the node at 0-based index i (ids are 1..N).
func (c *Cluster) NodeID(i int) int32 { return c.node(i).id }

// IndexOfNode returns the 0-based index of node id, or -1.
func (c *Cluster) IndexOfNode(id int32) int {
	if id < 1 || int(id) > len(c.nodes) {
		return -1
	}
	return int(id) - 1
}

// Dir returns the cluster's temporary directory (removed by Close).
func (c *Cluster) Dir() string { return c.dir }

// ClusterID returns the KRaft cluster id the nodes were formatted with.
func (c *Cluster) ClusterID() string { return c.clusterID }

// KafkaVersion is the Apache Kafka release the nodes run, e.g. "4.4.0".
func (c *Cluster) KafkaVersion() string { return c.env.version }

func (c *Cluster) node(i int) *node {
	if i < 0 || i >= len(c.nodes) {
		panic(fmt.Sprintf("kafkatest: node index %d out of range [0,%d)", i, len(c.nodes)))
	}
	return c.nodes[i]
}

func (c *Cluster) allIDs() []int32 {
	ids := make([]int32, len(c.nodes))
	for i, n := range c.nodes {
		ids[i] = n.id
	}
	return ids
}

// forEachNode runs f on every node in parallel and joins the errors.
func (c *Cluster) forEachNode(f func(*node) error) error {
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i, n := range c.nodes {
		wg.Go(func() { errs[i] = f(n) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// freePorts reserves n distinct loopback ports by holding listeners open
// together, then releases them for the JVMs to bind.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close() // a reservation only: nothing was accepted
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("kafkatest: picking a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
