package kafkatest

import (
	"context"
	"crypto/tls"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestNodeConfig needs no broker: it checks the rendered server.properties.
func TestNodeConfig(t *testing.T) {
	for _, tc := range []struct {
		nodes int
		want  []string
	}{
		{1, []string{"offsets.topic.replication.factor=1", "transaction.state.log.min.isr=1", "default.replication.factor=1", "min.insync.replicas=1"}},
		{3, []string{"offsets.topic.replication.factor=3", "transaction.state.log.replication.factor=3", "transaction.state.log.min.isr=2", "default.replication.factor=3", "min.insync.replicas=2"}},
	} {
		c := &Cluster{opts: Options{Nodes: tc.nodes, BrokerConfig: map[string]string{
			"group.initial.rebalance.delay.ms": "7", // overrides a default in place
			"log.segment.bytes":                "1048576",
		}}}
		n := &node{id: 2, port: 1000, cport: 1001, home: "/x"}
		cfg := c.nodeConfig(n, "1@127.0.0.1:1,2@127.0.0.1:1001")
		want := append(tc.want,
			"node.id=2",
			"process.roles=broker,controller",
			"controller.quorum.voters=1@127.0.0.1:1,2@127.0.0.1:1001",
			"listeners=PLAINTEXT://127.0.0.1:1000,CONTROLLER://127.0.0.1:1001",
			"offsets.topic.num.partitions=1",
			"auto.create.topics.enable=false",
			"group.initial.rebalance.delay.ms=7",
			"log.segment.bytes=1048576",
		)
		lines := strings.Split(cfg, "\n")
		for _, w := range want {
			if !slices.Contains(lines, w) {
				t.Errorf("nodes=%d: config lacks %q:\n%s", tc.nodes, w, cfg)
			}
		}
		if strings.Count(cfg, "group.initial.rebalance.delay.ms=") != 1 {
			t.Errorf("override duplicated a key:\n%s", cfg)
		}
		if strings.Contains(cfg, "broker.rack") {
			t.Errorf("a broker.rack without Options.Racks:\n%s", cfg)
		}
	}
	c := &Cluster{opts: Options{Nodes: 3, Racks: []string{"a", "b", "c"}}}
	if cfg := c.nodeConfig(&node{id: 2, port: 1000, cport: 1001, home: "/x"}, "2@127.0.0.1:1001"); !slices.Contains(strings.Split(cfg, "\n"), "broker.rack=b") {
		t.Errorf("node 2 of racks a, b, c lacks broker.rack=b:\n%s", cfg)
	}
}

func TestNewClusterID(t *testing.T) {
	for range 1000 {
		id, err := newClusterID()
		if err != nil {
			t.Fatal(err)
		}
		if len(id) != 22 || id[0] == '-' || strings.ContainsAny(id, "+/=") {
			t.Fatalf("bad cluster id %q", id)
		}
	}
}

func TestProcState(t *testing.T) {
	if s := procState(os.Getpid()); s != 'R' && s != 'S' {
		t.Fatalf("procState(self) = %q", s)
	}
	if s := procState(-1); s != 0 {
		t.Fatalf("procState(-1) = %q", s)
	}
}

func newClient(t testing.TB, seeds []string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func createTopic(t testing.TB, ctx context.Context, cl *kgo.Client, topic string, rf int16) {
	t.Helper()
	resp, err := kadm.NewClient(cl).CreateTopic(ctx, 1, rf, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
}

// consume reads want records of topic from the start with a consumer group.
func consume(t testing.TB, ctx context.Context, seeds []string, topic, group string, want int) []string {
	t.Helper()
	cl := newClient(t, seeds, kgo.ConsumeTopics(topic), kgo.ConsumerGroup(group),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var got []string
	for len(got) < want {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consume %s: got %q, want %d records: %v", topic, got, want, err)
		}
		fs.EachError(func(topic string, p int32, err error) { t.Logf("fetch %s/%d: %v", topic, p, err) })
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	return got
}

func TestSingleNode(t *testing.T) {
	Integration(t)
	began := time.Now()
	c := Start(t, Options{})
	t.Logf("1-node cluster started in %v", time.Since(began).Round(time.Millisecond))
	ctx := t.Context()

	if c.Nodes() != 1 || c.NodeID(0) != 1 || c.IndexOfNode(1) != 0 || c.IndexOfNode(2) != -1 {
		t.Fatalf("Nodes/NodeID/IndexOfNode inconsistent: %d %d", c.Nodes(), c.NodeID(0))
	}
	cl := newClient(t, c.Bootstrap())
	createTopic(t, ctx, cl, "single", 1)
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "single", Value: []byte("hello")}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	began = time.Now()
	if got := consume(t, ctx, c.Bootstrap(), "single", "g1", 1); got[0] != "hello" {
		t.Fatalf("consumed %q", got)
	}
	t.Logf("consumer group joined and read in %v", time.Since(began).Round(time.Millisecond))
	if leader, err := c.LeaderOf(ctx, "single", 0); err != nil || leader != 1 {
		t.Fatalf("LeaderOf = %d, %v; want 1", leader, err)
	}

	// Auto-creation is off: producing to an unknown topic must not create it.
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	err := newClient(t, c.Bootstrap()).ProduceSync(pctx, &kgo.Record{Topic: "nope", Value: []byte("x")}).FirstErr()
	cancel()
	if err == nil {
		t.Fatal("produce to a missing topic succeeded: auto.create.topics.enable is not false")
	}

	// The data survives a full stop and start.
	began = time.Now()
	if err := c.StopAll(); err != nil {
		t.Fatalf("StopAll: %v", err)
	}
	t.Logf("StopAll took %v", time.Since(began).Round(time.Millisecond))
	if c.Running(0) {
		t.Fatal("node still running after StopAll")
	}
	began = time.Now()
	if err := c.StartAll(ctx); err != nil {
		t.Fatalf("StartAll: %v", err)
	}
	t.Logf("StartAll took %v", time.Since(began).Round(time.Millisecond))
	if got := consume(t, ctx, c.Bootstrap(), "single", "g2", 1); got[0] != "hello" {
		t.Fatalf("after restart consumed %q", got)
	}

	c.Close()
	c.Close() // idempotent
	if c.Running(0) {
		t.Fatal("node running after Close")
	}
}

func TestThreeNodes(t *testing.T) {
	Integration(t)
	began := time.Now()
	// A shorter broker session makes a killed broker leave metadata sooner (default 9 s).
	c := Start(t, Options{Nodes: 3, BrokerConfig: map[string]string{
		"broker.session.timeout.ms":    "4000",
		"broker.heartbeat.interval.ms": "1000",
	}})
	t.Logf("3-node cluster started in %v", time.Since(began).Round(time.Millisecond))
	ctx := t.Context()
	if ids, err := c.BrokerIDs(ctx); err != nil || !slices.Equal(ids, []int32{1, 2, 3}) {
		t.Fatalf("BrokerIDs = %v, %v", ids, err)
	}
	if got := len(c.Bootstrap()); got != 3 {
		t.Fatalf("Bootstrap has %d addresses", got)
	}

	cl := newClient(t, c.Bootstrap())
	createTopic(t, ctx, cl, "rf3", 3)
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "rf3", Value: []byte("before")}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	leader, err := c.LeaderOf(ctx, "rf3", 0)
	if err != nil {
		t.Fatal(err)
	}
	victim := c.IndexOfNode(leader)
	t.Logf("leader of rf3/0 is node %d; killing it", leader)

	began = time.Now()
	if err := c.Kill(victim); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if c.Running(victim) {
		t.Fatal("killed node still running")
	}
	waitFor(t, 30*time.Second, "killed broker to leave metadata", func() bool {
		ids, err := c.BrokerIDs(ctx)
		return err == nil && !slices.Contains(ids, leader) && len(ids) == 2
	})
	t.Logf("killed broker left metadata after %v", time.Since(began).Round(time.Millisecond))
	newLeader, err := c.LeaderOf(ctx, "rf3", 0)
	if err != nil || newLeader == leader {
		t.Fatalf("leader after kill = %d, %v; want a node other than %d", newLeader, err, leader)
	}
	// acks=all with min.insync.replicas=2 still works with 2 of 3 nodes.
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "rf3", Value: []byte("after")}).FirstErr(); err != nil {
		t.Fatalf("produce with one node down: %v", err)
	}

	began = time.Now()
	if err := c.Restart(victim); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("Restart until registered took %v", time.Since(began).Round(time.Millisecond))
	if ids, err := c.BrokerIDs(ctx); err != nil || len(ids) != 3 {
		t.Fatalf("BrokerIDs after restart = %v, %v", ids, err)
	}
	if got := consume(t, ctx, c.Bootstrap(), "rf3", "g3", 2); !slices.Equal(got, []string{"before", "after"}) {
		t.Fatalf("consumed %q", got)
	}

	// Pause: the JVM is stopped, its socket accepts but nothing answers.
	const paused = 1
	if err := c.Pause(paused); err != nil {
		t.Fatalf("Pause: %v", err)
	}
	if s := procState(c.pid(paused)); s != 'T' {
		t.Fatalf("paused JVM state %q, want T", s)
	}
	only := newClient(t, []string{c.Bootstrap()[paused]})
	if _, err := metadata(ctx, only); err == nil {
		t.Fatal("a paused broker answered a metadata request")
	}
	if err := c.WaitReady(ctx); err != nil { // ignores the paused node
		t.Fatalf("WaitReady while paused: %v", err)
	}
	if err := c.Resume(paused); err != nil {
		t.Fatalf("Resume: %v", err)
	}
	waitFor(t, 30*time.Second, "resumed broker to answer", func() bool {
		_, err := metadata(ctx, only)
		return err == nil
	})
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}

	// Stop (SIGTERM) is a controlled shutdown: the broker leaves at once.
	began = time.Now()
	if err := c.Stop(2); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	t.Logf("Stop (controlled shutdown) took %v", time.Since(began).Round(time.Millisecond))
	if err := c.Stop(2); err != nil { // stopping a stopped node is a no-op
		t.Fatal(err)
	}
	if err := c.Pause(2); err == nil {
		t.Fatal("Pause of a stopped node succeeded")
	}

	// A full stop and start keeps the data; StartAll starts the nodes together
	// since no single node can form a quorum alone.
	began = time.Now()
	if err := c.StopAll(); err != nil {
		t.Fatalf("StopAll: %v", err)
	}
	t.Logf("StopAll took %v", time.Since(began).Round(time.Millisecond))
	began = time.Now()
	if err := c.StartAll(ctx); err != nil {
		t.Fatalf("StartAll: %v", err)
	}
	t.Logf("StartAll took %v", time.Since(began).Round(time.Millisecond))
	if got := consume(t, ctx, c.Bootstrap(), "rf3", "g4", 2); !slices.Equal(got, []string{"before", "after"}) {
		t.Fatalf("after StartAll consumed %q", got)
	}
}

func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestNodeConfigSASLSSL needs no broker: the SECURE listener and its
// SASL and SSL settings, and the SCRAM users of the storage tool.
func TestNodeConfigSASLSSL(t *testing.T) {
	s := &SASLSSL{Users: map[string]string{"alice": "alice-pw"}, ClientAuth: true}
	certs, err := s.certificates(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{opts: Options{Nodes: 1, SASLSSL: s}, certs: certs}
	cfg := c.nodeConfig(&node{id: 1, port: 1000, cport: 1001, sport: 1002, home: "/x"}, "1@127.0.0.1:1001")
	lines := strings.Split(cfg, "\n")
	for _, w := range []string{
		"listeners=PLAINTEXT://127.0.0.1:1000,CONTROLLER://127.0.0.1:1001,SECURE://127.0.0.1:1002",
		"advertised.listeners=PLAINTEXT://127.0.0.1:1000,SECURE://127.0.0.1:1002",
		"listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SECURE:SASL_SSL",
		"inter.broker.listener.name=PLAINTEXT",
		`listener.name.secure.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-pw";`,
		"listener.name.secure.ssl.client.auth=required",
		"listener.name.secure.ssl.keystore.location=" + certs.ServerPEMFile,
	} {
		if !slices.Contains(lines, w) {
			t.Errorf("config lacks %q:\n%s", w, cfg)
		}
	}
	want := []string{"--add-scram", "SCRAM-SHA-256=[name=alice,password=alice-pw]", "--add-scram", "SCRAM-SHA-512=[name=alice,password=alice-pw]"}
	if got := s.formatArgs(); !slices.Equal(got, want) {
		t.Errorf("formatArgs = %q, want %q", got, want)
	}
	if _, err := (&SASLSSL{Users: map[string]string{"bob": "a,b"}}).certificates(t.TempDir()); err == nil {
		t.Error("a password with a comma was accepted")
	}
}

// TestSASLSSL: clients authenticate over TLS with SCRAM-SHA-512 (users
// made at format time) and PLAIN (JAAS), with a client certificate; a
// wrong password is refused with SASL_AUTHENTICATION_FAILED.
func TestSASLSSL(t *testing.T) {
	Integration(t)
	c := Start(t, Options{SASLSSL: &SASLSSL{Users: map[string]string{"alice": "alice-pw"}, ClientAuth: true}})
	ctx := t.Context()
	if len(c.SecureBootstrap()) != 1 || c.Certs() == nil {
		t.Fatalf("SecureBootstrap = %v, Certs = %v", c.SecureBootstrap(), c.Certs())
	}
	tlsCfg := &tls.Config{RootCAs: c.Certs().CAPool, Certificates: []tls.Certificate{c.Certs().Client}}
	createTopic(t, ctx, newClient(t, c.Bootstrap()), "secure", 1)
	for _, mech := range []sasl.Mechanism{
		scram.Auth{User: "alice", Pass: "alice-pw"}.AsSha512Mechanism(),
		plain.Auth{User: "alice", Pass: "alice-pw"}.AsMechanism(),
	} {
		cl := newClient(t, c.SecureBootstrap(), kgo.DialTLSConfig(tlsCfg.Clone()), kgo.SASL(mech))
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "secure", Value: []byte(mech.Name())}).FirstErr(); err != nil {
			t.Fatalf("%s: produce: %v", mech.Name(), err)
		}
	}
	// franz-go keeps retrying a connection that fails authentication; the
	// record fails at its delivery timeout with the SASL error as the last
	// error, which is what the probe maps onto reason auth.
	wrong := newClient(t, c.SecureBootstrap(), kgo.DialTLSConfig(tlsCfg.Clone()), kgo.RecordDeliveryTimeout(3*time.Second),
		kgo.SASL(scram.Auth{User: "alice", Pass: "wrong"}.AsSha512Mechanism()))
	err := wrong.ProduceSync(ctx, &kgo.Record{Topic: "secure", Value: []byte("x")}).FirstErr()
	if !errors.Is(err, kerr.SaslAuthenticationFailed) || !errors.Is(err, kgo.ErrRecordTimeout) {
		t.Errorf("wrong password: produce err = %v, want a timeout with SASL_AUTHENTICATION_FAILED", err)
	}
	if _, err := kadm.NewClient(wrong).ListTopics(ctx, "secure"); !errors.Is(err, kerr.SaslAuthenticationFailed) {
		t.Errorf("wrong password: metadata err = %v, want SASL_AUTHENTICATION_FAILED", err)
	}
}

// TestSetProperties needs no broker: a key set is replaced in place or
// added, a key unset is removed, comments and the rest stay.
func TestSetProperties(t *testing.T) {
	path := t.TempDir() + "/server.properties"
	if err := os.WriteFile(path, []byte("# header\nnode.id=1\nnum.io.threads=4\nlog.dirs=/d\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &Cluster{nodes: []*node{{id: 1, config: path}}}
	if err := c.SetProperties(0, map[string]string{"num.io.threads": "6", "replica.fetch.wait.max.ms": "100"}, []string{"log.dirs"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(c.ConfigPath(0))
	if err != nil {
		t.Fatal(err)
	}
	if want := "# header\nnode.id=1\nnum.io.threads=6\nreplica.fetch.wait.max.ms=100\n"; string(got) != want {
		t.Errorf("server.properties:\n%s\nwant:\n%s", got, want)
	}
	if err := c.SetProperties(0, nil, []string{"replica.fetch.wait.max.ms"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "# header\nnode.id=1\nnum.io.threads=6\n" {
		t.Errorf("after the unset:\n%s", got)
	}
}
