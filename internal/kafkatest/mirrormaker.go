package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// mirrorMakerClass is MirrorMaker 2's dedicated-mode entry point.
const mirrorMakerClass = "org.apache.kafka.connect.mirror.MirrorMaker"

// MirrorOptions configure a MirrorMaker 2 in dedicated mode that copies
// topics from Source to Target, one way.
type MirrorOptions struct {
	// Source and Target are the clusters' bootstrap lists
	// (Cluster.Bootstrap).
	Source, Target []string
	// SourceAlias and TargetAlias are the clusters' names in
	// mm2.properties (default "A" and "B"); the copy of topic T is
	// "<SourceAlias>.T" under the default replication policy.
	SourceAlias, TargetAlias string
	// Topics is the regex list of source topics to copy (default ".*").
	Topics string
	// Properties are extra mm2.properties entries; they win over the
	// defaults.
	Properties map[string]string
	HeapMB     int // default 256
}

// MirrorMaker is a MirrorMaker 2 JVM that can be stopped and started again
// with the same configuration (and its offsets, kept on the target).
type MirrorMaker struct {
	opts    MirrorOptions
	java    string
	lib     string
	log4j   string
	dir     string
	config  string
	logPath string

	mu     sync.Mutex
	proc   *process
	closed bool
}

// StartMirrorMaker writes mm2.properties and starts MirrorMaker 2 with the
// jars of `scripts/kafka.sh mirror-lib`. It returns once the JVM runs; the
// copy starts some seconds later (wait for records on the target).
func StartMirrorMaker(ctx context.Context, opts MirrorOptions, logf func(string, ...any)) (*MirrorMaker, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if len(opts.Source) == 0 || len(opts.Target) == 0 {
		return nil, errors.New("kafkatest: MirrorOptions needs Source and Target bootstrap lists")
	}
	if opts.SourceAlias == "" {
		opts.SourceAlias = "A"
	}
	if opts.TargetAlias == "" {
		opts.TargetAlias = "B"
	}
	if opts.Topics == "" {
		opts.Topics = ".*"
	}
	if opts.HeapMB == 0 {
		opts.HeapMB = 256
	}
	java, err := lookJava()
	if err != nil {
		return nil, err
	}
	lib, log4j, err := mirrorLib(ctx, logf)
	if err != nil {
		return nil, err
	}
	dir, err := ownedTempDir()
	if err != nil {
		return nil, err
	}
	m := &MirrorMaker{opts: opts, java: java, lib: lib, log4j: log4j, dir: dir,
		config: filepath.Join(dir, "mm2.properties"), logPath: filepath.Join(dir, "mirrormaker.log")}
	if err := os.WriteFile(m.config, []byte(m.properties()), 0o644); err != nil {
		m.Close()
		return nil, fmt.Errorf("kafkatest: %w", err)
	}
	if err := m.Start(); err != nil {
		m.Close()
		return nil, err
	}
	logf("kafkatest: MirrorMaker 2 %s->%s started (topics %q), log %s", opts.SourceAlias, opts.TargetAlias, opts.Topics, m.logPath)
	return m, nil
}

// properties is mm2.properties: one-way, every internal topic with
// replication factor 1 (one-node clusters), and quick to notice new topics.
func (m *MirrorMaker) properties() string {
	a, b := m.opts.SourceAlias, m.opts.TargetAlias
	p := map[string]string{
		"clusters":                              a + ", " + b,
		a + ".bootstrap.servers":                strings.Join(m.opts.Source, ","),
		b + ".bootstrap.servers":                strings.Join(m.opts.Target, ","),
		a + "->" + b + ".enabled":               "true",
		a + "->" + b + ".topics":                m.opts.Topics,
		b + "->" + a + ".enabled":               "false",
		"replication.factor":                    "1",
		"checkpoints.topic.replication.factor":  "1",
		"heartbeats.topic.replication.factor":   "1",
		"offset-syncs.topic.replication.factor": "1",
		"offset.storage.replication.factor":     "1",
		"status.storage.replication.factor":     "1",
		"config.storage.replication.factor":     "1",
		"sync.topic.configs.enabled":            "false",
		"sync.topic.acls.enabled":               "false",
		"emit.checkpoints.enabled":              "false",
		"emit.heartbeats.enabled":               "false",
		"refresh.groups.enabled":                "false",
		"refresh.topics.interval.seconds":       "1",
		"offset.lag.max":                        "10",
		"tasks.max":                             "1",
		"offset.flush.interval.ms":              "5000",
		// A restarted MirrorMaker rejoins as a new member of its Connect
		// group: without this, the tasks of the member that left wait for
		// it up to the default 5 minutes before they are assigned again.
		"scheduled.rebalance.max.delay.ms":           "0",
		b + ".consumer.fetch.max.wait.ms":            "100",
		a + "->" + b + ".consumer.fetch.max.wait.ms": "100",
	}
	maps.Copy(p, m.opts.Properties)
	var sb strings.Builder
	for _, k := range slices.Sorted(maps.Keys(p)) {
		fmt.Fprintf(&sb, "%s = %s\n", k, p[k])
	}
	return sb.String()
}

// Start starts the JVM (again, after Stop). Its output is appended to the
// log, so a restarted MirrorMaker keeps the history of earlier runs.
func (m *MirrorMaker) Start() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errors.New("kafkatest: MirrorMaker is closed")
	}
	if m.proc.running() {
		return errors.New("kafkatest: MirrorMaker is already running")
	}
	heap := strconv.Itoa(m.opts.HeapMB) + "m"
	cmd := exec.Command(m.java, "-Xms"+heap, "-Xmx"+heap, "-XX:+UseG1GC", "-Xshare:auto",
		"-Djava.awt.headless=true", "-Dlog4j2.configurationFile="+m.log4j,
		"-cp", filepath.Join(m.lib, "*"), mirrorMakerClass, m.config, "--clusters", m.opts.TargetAlias)
	cmd.Dir = m.dir
	p, err := startLogged(cmd, m.logPath, "starting MirrorMaker 2", "at "+time.Now().Format(time.RFC3339Nano))
	if err != nil {
		return err
	}
	m.proc = p
	return nil
}

// Stop sends SIGTERM (MirrorMaker stops its tasks and commits its offsets)
// and waits for the JVM to exit, killing it after stopTimeout.
func (m *MirrorMaker) Stop() error {
	m.mu.Lock()
	p := m.proc
	m.mu.Unlock()
	if !p.running() {
		return nil
	}
	return p.stop("MirrorMaker 2", m.logPath)
}

// Running reports whether the JVM runs.
func (m *MirrorMaker) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.proc.running()
}

// Logs is the path of the MirrorMaker log.
func (m *MirrorMaker) Logs() string { return m.logPath }

// Close kills the JVM and removes its directory. It is idempotent.
func (m *MirrorMaker) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	p := m.proc
	m.mu.Unlock()
	if p.running() {
		p.kill()
	}
	_ = os.RemoveAll(m.dir)
}

// StartMirror starts a MirrorMaker 2 for t, failing t on any error; a
// cleanup kills it, after logging the tail of its log if t failed.
func StartMirror(t testing.TB, opts MirrorOptions) *MirrorMaker {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	m, err := StartMirrorMaker(ctx, opts, t.Logf)
	if err != nil {
		t.Fatalf("kafkatest.StartMirror: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- MirrorMaker 2 log (%s), tail:\n%s", m.Logs(), tail(m.Logs()))
		}
		m.Close()
	})
	return m
}
