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
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/internal/testcerts"
	"github.com/kafka-bench/kafka_bench_exporter/internal/testenv"
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
	// stopTimeout is how long Stop waits after SIGTERM before SIGKILL.
	stopTimeout = 30 * time.Second
	// quorumGrace is how long StopAll lets the last nodes try to finish a
	// controlled shutdown after the controller quorum is gone.
	quorumGrace = 5 * time.Second
	// restartTimeout bounds Restart, which has no context.
	restartTimeout = 90 * time.Second
	// startAttempts: free ports are picked by listening on :0 and closing,
	// so another process can take one before the JVM binds it; retry then.
	startAttempts = 3
	// attemptTimeout bounds one metadata request so that a paused or dying
	// broker cannot stall a wait loop.
	attemptTimeout = 3 * time.Second
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

	mu     sync.Mutex // guards node.proc, node.paused, closed
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

// process is one run of a JVM; a restarted node gets a new one.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the JVM has exited and been reaped
	err  error         // Wait's result, valid after done
}

func (p *process) running() bool {
	if p == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
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
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("kafkatest: %w (install: apt-get install openjdk-17-jdk-headless maven)", err)
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
	dir, err := os.MkdirTemp("", tempPrefix)
	if err != nil {
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, fmt.Errorf("kafkatest: %w", errors.Join(err, os.RemoveAll(dir)))
	}
	c := &Cluster{opts: opts, logf: logf, env: env, dir: dir}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()

	perNode := 2
	if opts.SASLSSL != nil {
		perNode = 3
		if c.certs, err = opts.SASLSSL.certificates(dir); err != nil {
			return nil, err
		}
	}
	ports, err := freePorts(perNode * opts.Nodes)
	if err != nil {
		return nil, err
	}
	if c.clusterID, err = newClusterID(); err != nil {
		return nil, err
	}

	voters := make([]string, opts.Nodes)
	for i := range opts.Nodes {
		n := &node{id: int32(i + 1), port: ports[perNode*i], cport: ports[perNode*i+1]}
		if opts.SASLSSL != nil {
			n.sport = ports[perNode*i+2]
		}
		n.home = filepath.Join(dir, fmt.Sprintf("node-%d", n.id))
		n.config = filepath.Join(n.home, "server.properties")
		n.logPath = filepath.Join(dir, fmt.Sprintf("node-%d.log", n.id))
		c.nodes = append(c.nodes, n)
		voters[i] = fmt.Sprintf("%d@127.0.0.1:%d", n.id, n.cport)
	}
	for _, n := range c.nodes {
		if err := os.MkdirAll(n.home, 0o755); err != nil {
			return nil, fmt.Errorf("kafkatest: %w", err)
		}
		if err := os.WriteFile(n.config, []byte(c.nodeConfig(n, strings.Join(voters, ","))), 0o644); err != nil {
			return nil, fmt.Errorf("kafkatest: %w", err)
		}
	}

	// Format and start every node in parallel: JVM start-up dominates.
	if err := c.forEachNode(func(n *node) error { return c.format(ctx, n) }); err != nil {
		return nil, err
	}
	formatted := time.Since(began)
	c.mu.Lock()
	for _, n := range c.nodes {
		if err := c.startLocked(n); err != nil {
			c.mu.Unlock()
			return nil, err
		}
	}
	c.mu.Unlock()
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

// nodeConfig renders server.properties: KRaft combined mode on loopback with
// settings that make a test cluster start and form groups fast.
func (c *Cluster) nodeConfig(n *node, voters string) string {
	rf := min(c.opts.Nodes, 3)
	minISR := max(rf-1, 1)
	kv := [][2]string{
		{"process.roles", "broker,controller"},
		{"node.id", strconv.Itoa(int(n.id))},
		{"controller.quorum.voters", voters},
		{"listeners", fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", n.port, n.cport)},
		{"advertised.listeners", fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", n.port)},
		{"inter.broker.listener.name", "PLAINTEXT"},
		{"controller.listener.names", "CONTROLLER"},
		{"listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"},
		{"log.dirs", filepath.Join(n.home, "data")},
		{"num.partitions", "1"},
		{"default.replication.factor", strconv.Itoa(rf)},
		{"min.insync.replicas", strconv.Itoa(minISR)},
		{"offsets.topic.replication.factor", strconv.Itoa(rf)},
		{"offsets.topic.num.partitions", "1"}, // default 50 makes the first group join slow
		{"transaction.state.log.replication.factor", strconv.Itoa(rf)},
		{"transaction.state.log.min.isr", strconv.Itoa(minISR)},
		{"share.coordinator.state.topic.replication.factor", strconv.Itoa(rf)},
		{"share.coordinator.state.topic.min.isr", strconv.Itoa(minISR)},
		{"group.initial.rebalance.delay.ms", "0"}, // default 3 s
		{"auto.create.topics.enable", "false"},
	}
	if c.opts.SASLSSL != nil {
		kv = c.opts.SASLSSL.listenerConfig(kv, n, c.certs)
	}
	if int(n.id) <= len(c.opts.Racks) {
		kv = append(kv, [2]string{"broker.rack", c.opts.Racks[n.id-1]})
	}
	keys := make([]string, 0, len(c.opts.BrokerConfig))
	for k := range c.opts.BrokerConfig {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		i := slices.IndexFunc(kv, func(e [2]string) bool { return e[0] == k })
		if i >= 0 {
			kv[i][1] = c.opts.BrokerConfig[k]
		} else {
			kv = append(kv, [2]string{k, c.opts.BrokerConfig[k]})
		}
	}
	var b strings.Builder
	b.WriteString("# written by internal/kafkatest\n")
	for _, e := range kv {
		fmt.Fprintf(&b, "%s=%s\n", e[0], e[1])
	}
	return b.String()
}

// nodeEnv is the JVM and jars node n runs.
func (c *Cluster) nodeEnv(n *node) jvmEnv {
	if n.env != nil {
		return *n.env
	}
	return c.env
}

// jvmFlags are the flags for the broker JVM.
func (c *Cluster) jvmFlags(n *node) []string {
	env := c.nodeEnv(n)
	heap := strconv.Itoa(c.opts.HeapMB) + "m"
	extra := c.opts.JVMFlags
	if c.opts.SASLSSL != nil {
		extra = append(c.opts.SASLSSL.jvmFlags(), extra...)
	}
	return append(append([]string{
		"-Xms" + heap, "-Xmx" + heap,
		"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:+ExplicitGCInvokesConcurrent",
		"-Xshare:auto",
		"-Djava.awt.headless=true",
		"-Dlog4j2.configurationFile=" + env.log4j,
		"-Dkafka.logs.dir=" + n.home,
	}, append(env.brokerCDS, extra...)...), "-cp", filepath.Join(env.lib, "*"))
}

func (c *Cluster) format(ctx context.Context, n *node) (err error) {
	f, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	if _, err := fmt.Fprintf(f, "==== kafkatest: formatting node %d (cluster %s) ====\n", n.id, c.clusterID); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	// A short-lived tool: C1 only and a small heap start faster.
	args := append([]string{"-Xmx256m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"}, c.env.formatCDS...)
	args = append(args,
		"-Dlog4j2.configurationFile="+c.env.log4j,
		"-cp", filepath.Join(c.env.lib, "*"),
		"kafka.tools.StorageTool", "format", "-t", c.clusterID, "-c", n.config,
	)
	if c.opts.SASLSSL != nil {
		args = append(args, c.opts.SASLSSL.formatArgs()...)
	}
	cmd := exec.CommandContext(ctx, c.env.java, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := testenv.StartTied(cmd); err != nil {
		return fmt.Errorf("kafkatest: formatting node %d: %w", n.id, err)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("kafkatest: formatting node %d: %w\n%s", n.id, err, tail(n.logPath))
	}
	return nil
}

// startLocked starts n's JVM. Its stdout and stderr are appended to n.logPath,
// so the log of a restarted node keeps the history of earlier runs.
func (c *Cluster) startLocked(n *node) error {
	if c.closed {
		return errors.New("kafkatest: cluster is closed")
	}
	if n.proc.running() {
		return fmt.Errorf("kafkatest: node %d is already running", n.id)
	}
	f, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	if _, err := fmt.Fprintf(f, "==== kafkatest: starting node %d at %s ====\n", n.id, time.Now().Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("kafkatest: %w", errors.Join(err, f.Close()))
	}
	args := append(c.jvmFlags(n), "kafka.Kafka", n.config)
	cmd := exec.Command(c.nodeEnv(n).java, args...)
	cmd.Dir = n.home
	cmd.Stdout, cmd.Stderr = f, f
	// Own process group: a Ctrl-C on the terminal reaches only the Go process,
	// which then stops the JVMs itself. StartTied: a test binary that crashes
	// or is killed on timeout takes its JVMs with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := testenv.StartTied(cmd); err != nil {
		return errors.Join(fmt.Errorf("kafkatest: starting node %d: %w", n.id, err), f.Close())
	}
	// The child has its own copy and writes through it; ours wrote only
	// the header, which is already out.
	_ = f.Close()
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	n.proc, n.paused = p, false
	return nil
}

// Bootstrap returns "127.0.0.1:port" of every node, stopped ones included.
func (c *Cluster) Bootstrap() []string {
	addrs := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		addrs[i] = n.addr()
	}
	return addrs
}

func (n *node) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.port)) }

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

// Logs returns the path of node i's stdout/stderr log (all runs, format included).
func (c *Cluster) Logs(i int) string { return c.node(i).logPath }

// Dir returns the cluster's temporary directory (removed by Close).
func (c *Cluster) Dir() string { return c.dir }

// ClusterID returns the KRaft cluster id the nodes were formatted with.
func (c *Cluster) ClusterID() string { return c.clusterID }

// KafkaVersion is the Apache Kafka release the nodes run, e.g. "4.4.0".
func (c *Cluster) KafkaVersion() string { return c.env.version }

// Running reports whether node i's JVM is alive (paused counts as alive).
func (c *Cluster) Running(i int) bool {
	n := c.node(i)
	c.mu.Lock()
	defer c.mu.Unlock()
	return n.proc.running()
}

func (c *Cluster) node(i int) *node {
	if i < 0 || i >= len(c.nodes) {
		panic(fmt.Sprintf("kafkatest: node index %d out of range [0,%d)", i, len(c.nodes)))
	}
	return c.nodes[i]
}

// current returns node i's JVM if it is running, else nil.
func (c *Cluster) current(i int) (*node, *process) {
	n := c.node(i)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !n.proc.running() {
		return n, nil
	}
	return n, n.proc
}

// signal signals the JVM's whole process group.
func (p *process) signal(sig syscall.Signal) error {
	err := syscall.Kill(-p.cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}

// Stop stops node i with SIGTERM (controlled shutdown) and waits for the JVM
// to exit; after 30 s it is killed and Stop returns an error saying so.
// Stopping a node that is not running is a no-op. A controlled shutdown needs
// a controller quorum: stopping the nodes of a 3-node cluster one after the
// other hangs the last one until the kill (use StopAll).
func (c *Cluster) Stop(i int) error {
	n, p := c.current(i)
	if p == nil {
		return nil
	}
	if err := p.signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("kafkatest: SIGTERM node %d: %w", n.id, err)
	}
	// A paused JVM must run to handle SIGTERM; SIGCONT on a running one is harmless.
	_ = p.signal(syscall.SIGCONT)
	select {
	case <-p.done:
		c.setPaused(n, false)
		return nil
	case <-time.After(stopTimeout):
	}
	_ = p.signal(syscall.SIGKILL)
	<-p.done
	c.setPaused(n, false)
	return fmt.Errorf("kafkatest: node %d did not exit within %v of SIGTERM, killed it; log %s\n%s", n.id, stopTimeout, n.logPath, tail(n.logPath))
}

// Kill kills node i with SIGKILL (a crash) and waits until it is gone.
// Killing a node that is not running is a no-op.
func (c *Cluster) Kill(i int) error {
	n, p := c.current(i)
	if p == nil {
		return nil
	}
	if err := p.signal(syscall.SIGKILL); err != nil {
		return fmt.Errorf("kafkatest: SIGKILL node %d: %w", n.id, err)
	}
	<-p.done
	c.setPaused(n, false)
	return nil
}

// Pause stops node i with SIGSTOP (a stall: sockets stay open, nothing
// answers) and returns once the kernel reports it stopped.
func (c *Cluster) Pause(i int) error {
	n, p := c.current(i)
	if p == nil {
		return fmt.Errorf("kafkatest: Pause: node %d is not running", n.id)
	}
	if err := p.signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("kafkatest: SIGSTOP node %d: %w", n.id, err)
	}
	c.setPaused(n, true)
	deadline := time.Now().Add(5 * time.Second)
	for procState(p.cmd.Process.Pid) != 'T' {
		if time.Now().After(deadline) {
			return fmt.Errorf("kafkatest: node %d not stopped 5 s after SIGSTOP", n.id)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// Resume continues node i after Pause with SIGCONT.
func (c *Cluster) Resume(i int) error {
	n, p := c.current(i)
	if p == nil {
		return fmt.Errorf("kafkatest: Resume: node %d is not running", n.id)
	}
	if err := p.signal(syscall.SIGCONT); err != nil {
		return fmt.Errorf("kafkatest: SIGCONT node %d: %w", n.id, err)
	}
	c.setPaused(n, false)
	return nil
}

// procState returns the state letter of /proc/PID/stat ('R', 'S', 'T', ...), or 0.
func procState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name is in parentheses and may contain spaces: the state follows the last ')'.
	s := string(b)
	if j := strings.LastIndexByte(s, ')'); j >= 0 && j+2 < len(s) {
		return s[j+2]
	}
	return 0
}

func (c *Cluster) setPaused(n *node, paused bool) {
	c.mu.Lock()
	n.paused = paused
	c.mu.Unlock()
}

// Restart starts node i again on the same ports and log dir (a running node is
// stopped first) and waits until it is registered, i.e. listed in metadata.
func (c *Cluster) Restart(i int) error {
	if err := c.Stop(i); err != nil {
		return err
	}
	n := c.node(i)
	c.mu.Lock()
	err := c.startLocked(n)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), restartTimeout)
	defer cancel()
	return c.waitBrokers(ctx, []int32{n.id})
}

// ConfigPath is node i's server.properties.
func (c *Cluster) ConfigPath(i int) string { return c.node(i).config }

// SetProperties rewrites node i's server.properties: each key of set gets
// its value (replaced in place, or added at the end), each key of unset is
// removed. A running node reads it at its next start (Restart keeps its data
// directory and ports).
func (c *Cluster) SetProperties(i int, set map[string]string, unset []string) error {
	n := c.node(i)
	c.mu.Lock()
	defer c.mu.Unlock()
	data, err := os.ReadFile(n.config)
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	done := map[string]bool{}
	var out []string
	for line := range strings.SplitSeq(strings.TrimRight(string(data), "\n"), "\n") {
		k, _, isKV := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		switch {
		case !isKV || strings.HasPrefix(k, "#"):
			out = append(out, line)
		case slices.Contains(unset, k):
		case hasKey(set, k):
			if !done[k] {
				out = append(out, k+"="+set[k])
				done[k] = true
			}
		default:
			out = append(out, line)
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !done[k] {
			out = append(out, k+"="+set[k])
		}
	}
	if err := os.WriteFile(n.config, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	return nil
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// Upgrade restarts node i with the jars of another Apache Kafka release
// (fetched by scripts/kafka.sh like the cluster's), keeping its data
// directory, ports and server.properties: one step of a rolling upgrade. It
// waits until the node is registered again, as Restart does.
func (c *Cluster) Upgrade(ctx context.Context, i int, version string) error {
	lib, log4j, v, err := kafkaLib(ctx, version, c.logf)
	if err != nil {
		return err
	}
	env := jvmEnv{java: c.env.java, lib: lib, log4j: log4j, version: v}.withCDS(ctx, c.logf)
	if err := c.Stop(i); err != nil {
		return err
	}
	n := c.node(i)
	c.mu.Lock()
	n.env = &env
	err = c.startLocked(n)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, restartTimeout)
	defer cancel()
	return c.waitBrokers(ctx, []int32{n.id})
}

// NodeVersion is the Kafka release node i runs.
func (c *Cluster) NodeVersion(i int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodeEnv(c.node(i)).version
}

// StopAll stops every running node with SIGTERM, in parallel: one by one, the
// last nodes would wait in controlled shutdown for a quorum that is gone.
// Even in parallel, once fewer than a majority of the nodes still run (one
// was stopped before, or the others finished first) the rest can never
// finish theirs — Kafka waits minutes for the controller — so they get
// quorumGrace and are then killed, which is no failure. A node that hangs
// while a quorum still runs is an error, as with Stop.
func (c *Cluster) StopAll() error {
	type stopping struct {
		n *node
		p *process
	}
	var pending []stopping
	for i := range c.nodes {
		n, p := c.current(i)
		if p == nil {
			continue
		}
		if err := p.signal(syscall.SIGTERM); err != nil {
			return fmt.Errorf("kafkatest: SIGTERM node %d: %w", n.id, err)
		}
		_ = p.signal(syscall.SIGCONT) // a paused JVM must run to handle SIGTERM
		pending = append(pending, stopping{n, p})
	}
	majority := len(c.nodes)/2 + 1
	deadline := time.Now().Add(stopTimeout)
	var lost time.Time // when fewer than a majority were left running
	var errs []error
	for len(pending) > 0 {
		var still []stopping
		for _, s := range pending {
			select {
			case <-s.p.done:
				c.setPaused(s.n, false)
			default:
				still = append(still, s)
			}
		}
		pending = still
		if len(pending) == 0 {
			break
		}
		if lost.IsZero() && len(pending) < majority {
			lost = time.Now()
		}
		quorumGone := !lost.IsZero() && time.Since(lost) > quorumGrace
		if quorumGone || time.Now().After(deadline) {
			for _, s := range pending {
				_ = s.p.signal(syscall.SIGKILL)
				<-s.p.done
				c.setPaused(s.n, false)
				if !quorumGone {
					errs = append(errs, fmt.Errorf("kafkatest: node %d did not exit within %v of SIGTERM, killed it; log %s\n%s", s.n.id, stopTimeout, s.n.logPath, tail(s.n.logPath)))
				}
			}
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.Join(errs...)
}

// StartAll starts every node that is not running (all at once, so that a
// quorum can form) and waits until all running brokers are in metadata.
func (c *Cluster) StartAll(ctx context.Context) error {
	c.mu.Lock()
	for _, n := range c.nodes {
		if n.proc.running() {
			continue
		}
		if err := c.startLocked(n); err != nil {
			c.mu.Unlock()
			return err
		}
	}
	c.mu.Unlock()
	return c.WaitReady(ctx)
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

// WaitReady waits until metadata lists every running, unpaused broker.
func (c *Cluster) WaitReady(ctx context.Context) error {
	var ids []int32
	c.mu.Lock()
	for _, n := range c.nodes {
		if n.proc.running() && !n.paused {
			ids = append(ids, n.id)
		}
	}
	c.mu.Unlock()
	return c.waitBrokers(ctx, ids)
}

// LeaderOf returns the leader of a partition from a fresh Metadata request
// (not kadm's cached metadata, see metadata).
// While the topic is unknown or the partition has no leader it retries for up
// to 15 s (bounded by ctx), since both are normal right after creation or a
// failure.
func (c *Cluster) LeaderOf(ctx context.Context, topic string, partition int32) (int32, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cl := c.client()
	defer cl.Close()
	var last error
	for {
		leader, err := leaderOf(ctx, cl, topic, partition)
		if err == nil {
			return leader, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return -1, fmt.Errorf("kafkatest: leader of %s/%d: %w (last: %w)", topic, partition, ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func leaderOf(ctx context.Context, cl *kgo.Client, topic string, partition int32) (int32, error) {
	resp, err := metadata(ctx, cl, topic)
	if err != nil {
		return -1, err
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return -1, err
		}
		for _, p := range t.Partitions {
			if p.Partition != partition {
				continue
			}
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return -1, err
			}
			if p.Leader < 0 {
				return -1, errors.New("partition has no leader")
			}
			return p.Leader, nil
		}
		return -1, fmt.Errorf("partition %d not in metadata", partition)
	}
	return -1, errors.New("topic not in metadata")
}

// client returns a kgo client seeded with every running, unpaused node, with
// a short dial timeout so that dead nodes cost little.
func (c *Cluster) client() *kgo.Client {
	var seeds []string
	c.mu.Lock()
	for _, n := range c.nodes {
		if n.proc.running() && !n.paused {
			seeds = append(seeds, n.addr())
		}
	}
	c.mu.Unlock()
	if len(seeds) == 0 {
		seeds = c.Bootstrap()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.DialTimeout(time.Second))
	if err != nil { // only for invalid options
		panic(err)
	}
	return cl
}

// metadata issues a real Metadata request (no topics if topics is empty).
// kadm.BrokerMetadata and kadm.Metadata answer from kgo's metadata cache
// (RequestCachedMetadata): its broker list is not refreshed by them and can
// stay stale for good, which is useless for waiting on membership changes.
func metadata(ctx context.Context, cl *kgo.Client, topics ...string) (*kmsg.MetadataResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = new(t)
		req.Topics = append(req.Topics, rt)
	}
	return req.RequestWith(ctx, cl)
}

// BrokerIDs returns the node ids of the brokers listed in a fresh Metadata
// response, i.e. the registered, unfenced brokers.
func (c *Cluster) BrokerIDs(ctx context.Context) ([]int32, error) {
	cl := c.client()
	defer cl.Close()
	resp, err := metadata(ctx, cl)
	if err != nil {
		return nil, err
	}
	ids := make([]int32, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		ids = append(ids, b.NodeID)
	}
	slices.Sort(ids)
	return ids, nil
}

// waitBrokers polls metadata until every id in ids is listed, failing early
// if one of their JVMs exits.
func (c *Cluster) waitBrokers(ctx context.Context, ids []int32) error {
	if len(ids) == 0 {
		return nil // nothing running: nothing to wait for (and no one to ask)
	}
	cl := c.client()
	defer cl.Close()
	var last error
	for {
		for _, id := range ids {
			n := c.nodes[id-1]
			c.mu.Lock()
			p := n.proc
			c.mu.Unlock()
			if !p.running() {
				exit := errors.New("not started")
				if p != nil {
					exit = p.err
					if exit == nil {
						exit = errors.New("exit status 0")
					}
				}
				log := tail(n.logPath)
				err := fmt.Errorf("kafkatest: node %d exited while starting (%w); log %s:\n%s", id, exit, n.logPath, log)
				if strings.Contains(log, "Address already in use") {
					err = fmt.Errorf("%w: %w", errPortInUse, err)
				}
				return err
			}
		}
		resp, err := metadata(ctx, cl)
		if err == nil {
			var missing, listed []int32
			for _, b := range resp.Brokers {
				listed = append(listed, b.NodeID)
			}
			for _, id := range ids {
				if !slices.Contains(listed, id) {
					missing = append(missing, id)
				}
			}
			if len(missing) == 0 {
				return nil
			}
			last = fmt.Errorf("brokers %v not in metadata yet (listed: %v)", missing, listed)
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkatest: waiting for brokers %v: %w (last: %w)%s", ids, ctx.Err(), last, c.tails(ids))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *Cluster) allIDs() []int32 {
	ids := make([]int32, len(c.nodes))
	for i, n := range c.nodes {
		ids[i] = n.id
	}
	return ids
}

func (c *Cluster) tails(ids []int32) string {
	var b strings.Builder
	for _, id := range ids {
		n := c.nodes[id-1]
		fmt.Fprintf(&b, "\n--- node %d log %s:\n%s", id, n.logPath, tail(n.logPath))
	}
	return b.String()
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

// tail returns the last lines of a log file, for error messages.
func tail(path string) string {
	const maxLines, maxBytes = 40, 16 << 10
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	if len(b) > maxBytes {
		b = b[len(b)-maxBytes:]
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return strings.Join(lines, "\n")
}

// pid returns the pid of node i's current JVM, or 0.
func (c *Cluster) pid(i int) int {
	n := c.node(i)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !n.proc.running() {
		return 0
	}
	return n.proc.cmd.Process.Pid
}
