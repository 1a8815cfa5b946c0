package integration

import (
	"context"
	"crypto/rand"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-bench/kafka_bench_exporter/internal/exportertest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/kafkatest"
	"github.com/kafka-bench/kafka_bench_exporter/internal/scrape"
	"github.com/kafka-bench/kafka_bench_exporter/kclient"
	"github.com/kafka-bench/kafka_bench_exporter/probes/probetest"
)

// groupsConfig is an exporter of no probe that exports the groups of this
// file's tests, per partition, every second.
const groupsConfig = `
probes: []
groups: {interval: 1s, granularity: partition, stall_window: 3s, allow: ["it-groups-.*"]}
`

// produceTo writes n records to a partition, stamped now, and returns the
// timestamp of the first.
func produceTo(t *testing.T, cl *kgo.Client, topic string, partition int32, n int) time.Time {
	t.Helper()
	first := time.Now()
	for i := range n {
		r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte("v"), Timestamp: time.Now()}
		if i == 0 {
			r.Timestamp = first
		}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	return first.Truncate(time.Millisecond) // a record's timestamp is in ms
}

func producer(t *testing.T, c *kafkatest.Cluster) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func commitOffsets(t *testing.T, adm *kadm.Client, group, topic string, offsets map[int32]int64) {
	t.Helper()
	os := kadm.Offsets{}
	for p, o := range offsets {
		os.Add(kadm.Offset{Topic: topic, Partition: p, At: o, LeaderEpoch: -1})
	}
	if err := adm.CommitAllOffsets(context.Background(), group, os); err != nil {
		t.Fatalf("committing %s's offsets: %v", group, err)
	}
}

// member joins group with protocol (classic or consumer) and never commits:
// the group has a member and its committed offsets do not move.
func member(t *testing.T, c *kafkatest.Cluster, group, protocol string, topics ...string) *kgo.Client {
	t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers(c.Bootstrap()...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topics...),
		kgo.DisableAutoCommit(), kgo.FetchMaxBytes(1), kgo.MaxConcurrentFetches(1)}
	if protocol == "consumer" { // KIP-848: the broker assigns
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.StickyBalancer()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// toolTable runs one of Kafka's group commands and returns its table's
// rows by column name.
func toolTable(t *testing.T, class string, args ...string) []map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := kafkatest.RunClass(ctx, class, args...)
	if err != nil {
		t.Fatalf("%s: %v\n%s", class, err, out)
	}
	var head []string
	var rows []map[string]string
	for line := range strings.SplitSeq(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "GROUP":
			head = f
		case head != nil && len(f) == len(head):
			row := map[string]string{}
			for i, h := range head {
				row[h] = f[i]
			}
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s printed no table:\n%s", class, out)
	}
	return rows
}

// sameLagAsTool compares every partition kafka-consumer-groups.sh (or
// kafka-share-groups.sh, or kafka-streams-groups.sh, whose column is
// OFFSET-LAG) prints for group with the exporter's series: "-" means no
// series.
func sameLagAsTool(t *testing.T, f scrape.Families, rows []map[string]string, group string) string {
	t.Helper()
	var diffs []string
	for _, r := range rows {
		got, ok := f.Value("kafka_bench_group_lag_records", "group", group, "topic", r["TOPIC"], "partition", r["PARTITION"])
		want, printed := r["LAG"]
		if !printed { // kafka-streams-groups.sh
			want = r["OFFSET-LAG"]
		}
		switch {
		case want == "-" && ok:
			diffs = append(diffs, fmt.Sprintf("%s/%s: the tool prints -, the exporter %v", r["TOPIC"], r["PARTITION"], got))
		case want != "-" && (!ok || strconv.FormatFloat(got, 'f', -1, 64) != want):
			diffs = append(diffs, fmt.Sprintf("%s/%s: the tool prints %s, the exporter %v (present %v)", r["TOPIC"], r["PARTITION"], want, got, ok))
		}
	}
	return strings.Join(diffs, "; ")
}

// Classic and KIP-848 groups with members and a known backlog, a group
// that only commits, a share group: lag in records as Kafka's own tools
// print it, partition by partition; then the classic group's consumers
// stop (stopped), its offsets are reset to an earlier one (counted), and a
// topic is deleted under a group.
func TestGroupsLagAsKafkaToolsPrint(t *testing.T) {
	parallel(t) // waits on polls and on Kafka's tools, computes little
	c := cluster(t, 1)
	ctx := t.Context()
	adm := admin(t, c)
	const topic, gone, shareTopic = "it-groups-a", "it-groups-gone", "it-groups-s"
	createTopic(t, ctx, adm, topic, 3, 1)
	createTopic(t, ctx, adm, gone, 1, 1)
	createTopic(t, ctx, adm, shareTopic, 1, 1)
	p := producer(t, c)
	produceTo(t, p, topic, 0, 30)
	produceTo(t, p, topic, 1, 20)
	produceTo(t, p, topic, 2, 10)
	produceTo(t, p, gone, 0, 5)

	const classic, kip848, commitOnly, share = "it-groups-classic", "it-groups-848", "it-groups-commit", "it-groups-share"
	commitOffsets(t, adm, classic, topic, map[int32]int64{0: 10, 1: 20}) // partition 2: none
	commitOffsets(t, adm, commitOnly, topic, map[int32]int64{2: 3})
	commitOffsets(t, adm, commitOnly, gone, map[int32]int64{0: 1})
	classicMember := member(t, c, classic, "classic", topic)
	// A group made by an admin's commit is a classic one: the KIP-848
	// group is made by its member, which then commits the backlog's
	// offsets itself.
	m848 := member(t, c, kip848, "consumer", topic)
	probetest.Eventually(t, time.Minute, "the KIP-848 member in its group", func() (bool, string) {
		_, gen := m848.GroupMetadata()
		return gen > 0, fmt.Sprintf("member epoch %d", gen)
	})
	commitCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	m848.CommitOffsetsSync(commitCtx, map[string]map[int32]kgo.EpochOffset{topic: {0: {Epoch: -1, Offset: 25}, 1: {Epoch: -1, Offset: 5}, 2: {Epoch: -1, Offset: 10}}},
		func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, _ *kmsg.OffsetCommitResponse, err error) {
			if err != nil {
				t.Errorf("the KIP-848 member's commit: %v", err)
			}
		})
	cancel()

	// A share group that reads from the start: its member takes and
	// accepts some records, then leaves.
	shareCl, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer shareCl.Close()
	if err := kclient.SetShareGroupConfigs(ctx, shareCl, share, map[string]string{kclient.ShareAutoOffsetReset: "earliest"}); err != nil {
		t.Fatal(err)
	}
	produceTo(t, p, shareTopic, 0, 40)
	sm, err := kgo.NewClient(kgo.SeedBrokers(c.Bootstrap()...), kgo.ShareGroup(share), kgo.ConsumeTopics(shareTopic), kgo.FetchMaxBytes(1))
	if err != nil {
		t.Fatal(err)
	}
	probetest.Eventually(t, time.Minute, "the share member reads records", func() (bool, string) {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		n := sm.PollRecords(pctx, 5).NumRecords()
		return n > 0, fmt.Sprintf("%d records", n)
	})
	sm.Close() // acknowledges what it read

	x := exportertest.Start(t, groupsConfig, c.Bootstrap())
	var f scrape.Families
	probetest.Eventually(t, 2*time.Minute, "both groups with a member, of their types", func() (bool, string) {
		f = x.Scrape(t)
		cm, _ := f.Value("kafka_bench_group_members", "group", classic)
		km, _ := f.Value("kafka_bench_group_members", "group", kip848)
		kt := f.Label("kafka_bench_group_info", "type", "group", kip848)
		st := f.Label("kafka_bench_group_info", "type", "group", share)
		return cm == 1 && km == 1 && kt == "consumer" && st == "share", fmt.Sprintf("classic members %v, 848 members %v type %q, share type %q", cm, km, kt, st)
	})
	const cgc = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
	const sgc = "org.apache.kafka.tools.consumer.group.ShareGroupCommand"
	for _, g := range []string{classic, kip848, commitOnly} {
		rows := toolTable(t, cgc, "--bootstrap-server", c.Bootstrap()[0], "--describe", "--group", g)
		probetest.Eventually(t, 10*time.Second, g+"'s lag as kafka-consumer-groups.sh prints it", func() (bool, string) {
			d := sameLagAsTool(t, x.Scrape(t), rows, g)
			return d == "", d
		})
	}
	shareRows := toolTable(t, sgc, "--bootstrap-server", c.Bootstrap()[0], "--describe", "--offsets", "--group", share)
	probetest.Eventually(t, 10*time.Second, "the share group's lag as kafka-share-groups.sh prints it", func() (bool, string) {
		d := sameLagAsTool(t, x.Scrape(t), shareRows, share)
		return d == "", d
	})
	f = x.Scrape(t)
	if got, _ := f.Value("kafka_bench_group_unassigned_partitions", "group", classic); got != 0 {
		t.Errorf("the classic group's member owns every partition, unassigned = %v", got)
	}
	if got, _ := f.Value("kafka_bench_group_poll_success"); got != 1 {
		t.Errorf("poll success %v", got)
	}

	// The classic group's consumer stops: no member, lag, stopped.
	classicMember.Close()
	probetest.Eventually(t, time.Minute, "the classic group stopped", func() (bool, string) {
		f = x.Scrape(t)
		m, _ := f.Value("kafka_bench_group_members", "group", classic)
		s, _ := f.Value("kafka_bench_group_status", "group", classic, "status", "stopped")
		return m == 0 && s == 1, fmt.Sprintf("members %v, stopped %v", m, s)
	})
	// Reset to an earlier offset with Kafka's tool: counted.
	toolTable(t, cgc, "--bootstrap-server", c.Bootstrap()[0], "--reset-offsets", "--to-offset", "2", "--execute", "--group", classic, "--topic", topic)
	probetest.Eventually(t, 30*time.Second, "the reset counted", func() (bool, string) {
		f = x.Scrape(t)
		r, _ := f.Value("kafka_bench_group_offset_resets_total", "group", classic)
		l, _ := f.Value("kafka_bench_group_lag_records", "group", classic, "topic", topic, "partition", "0")
		return r >= 1 && l == 28, fmt.Sprintf("resets %v, lag of partition 0 %v (want 30 - 2)", r, l)
	})

	// A topic deleted under the commit-only group: its series go, the
	// others stay, the polls go on.
	if _, err := adm.DeleteTopics(ctx, gone); err != nil {
		t.Fatal(err)
	}
	probetest.Eventually(t, time.Minute, "the deleted topic's series gone", func() (bool, string) {
		f = x.Scrape(t)
		g := len(f.Find("kafka_bench_group_lag_records", "topic", gone))
		a := len(f.Find("kafka_bench_group_lag_records", "group", commitOnly, "topic", topic))
		s, _ := f.Value("kafka_bench_group_poll_success")
		return g == 0 && a == 1 && s == 1, fmt.Sprintf("%d series of the deleted topic, %d of the other, poll success %v", g, a, s)
	})
}

// Lag in seconds of a group stopped at a record written a known time ago
// is within one poll interval and a second of the truth, read at the poll
// (its success timestamp): by an exporter that ran while the backlog built
// (its samples of end offsets) and by one started afterwards (the record's
// timestamp, read at the committed offset).
func TestGroupsLagSecondsOfAStoppedGroup(t *testing.T) {
	parallel(t) // waits for the backlog to age
	c := cluster(t, 1)
	ctx := t.Context()
	adm := admin(t, c)
	const topic, group = "it-groups-sec", "it-groups-sec"
	createTopic(t, ctx, adm, topic, 1, 1)
	p := producer(t, c)
	produceTo(t, p, topic, 0, 5)
	commitOffsets(t, adm, group, topic, map[int32]int64{0: 5}) // caught up

	running := exportertest.Start(t, groupsConfig, c.Bootstrap())
	probetest.Eventually(t, time.Minute, "the group caught up", func() (bool, string) {
		s, ok := running.Scrape(t).Value("kafka_bench_group_lag_seconds", "group", group)
		return ok && s == 0, fmt.Sprintf("lag seconds %v (present %v)", s, ok)
	})
	written := produceTo(t, p, topic, 0, 1) // the record at offset 5, where the group stopped
	for range 5 {
		produceTo(t, p, topic, 0, 1)
		time.Sleep(500 * time.Millisecond) // a backlog that builds over seconds
	}
	started := exportertest.Start(t, groupsConfig, c.Bootstrap())
	const interval = 1.0
	check := func(x *exportertest.Exporter, who string) {
		t.Helper()
		probetest.Eventually(t, time.Minute, who+": lag seconds within a poll interval and 1 s of the truth", func() (bool, string) {
			f := x.Scrape(t)
			got, ok := f.Value("kafka_bench_group_lag_seconds", "group", group)
			polled, _ := f.Value("kafka_bench_group_poll_last_success_timestamp_seconds")
			truth := polled - float64(written.UnixNano())/1e9
			return ok && truth > 2 && math.Abs(got-truth) <= interval+1, fmt.Sprintf("lag seconds %v (present %v), truth at the poll %.3f", got, ok, truth)
		})
	}
	check(running, "the exporter that ran while the backlog built")
	check(started, "the exporter started afterwards")
}

// On a listener with an authorizer (StandardAuthorizer; the harness's
// PLAINTEXT principal is a super user), the exporter's user may describe a
// group but not one of the topics its member subscribes to: that topic is
// counted as denied and the rest exported; a group the allow list names that the user
// may not describe is reported as not visible.
func TestGroupsUnderAnAuthorizer(t *testing.T) {
	parallel(t) // waits on a broker's start and on polls
	kafkatest.Integration(t)
	c := kafkatest.Start(t, kafkatest.Options{
		BrokerConfig: map[string]string{
			"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
			"super.users":           "User:ANONYMOUS",
		},
		SASLSSL: &kafkatest.SASLSSL{Users: map[string]string{secureUser: securePassword}, ClientAuth: true},
	})
	ctx := t.Context()
	adm := admin(t, c) // PLAINTEXT: the super user
	const seen, denied, group, hidden = "it-groups-acl-seen", "it-groups-acl-denied", "it-groups-acl", "it-groups-acl-hidden"
	createTopic(t, ctx, adm, seen, 2, 1)
	createTopic(t, ctx, adm, denied, 1, 1)
	p := producer(t, c)
	produceTo(t, p, seen, 0, 7)
	produceTo(t, p, denied, 0, 4)
	commitOffsets(t, adm, group, seen, map[int32]int64{0: 2, 1: 0})
	commitOffsets(t, adm, group, denied, map[int32]int64{0: 1})
	commitOffsets(t, adm, hidden, seen, map[int32]int64{0: 0})
	// A member (the super user) subscribes to both topics: Kafka leaves
	// the denied topic's offsets out of OffsetFetch, the subscription
	// names it.
	member(t, c, group, "classic", seen, denied)

	alice := "User:" + secureUser
	acls := kadm.NewACLs().Allow(alice).ResourcePatternType(kadm.ACLPatternLiteral)
	for _, b := range []*kadm.ACLBuilder{
		acls.Groups(group).Operations(kadm.OpDescribe, kadm.OpRead),
		kadm.NewACLs().Allow(alice).ResourcePatternType(kadm.ACLPatternLiteral).Topics(seen).Operations(kadm.OpDescribe, kadm.OpRead),
	} {
		results, err := adm.CreateACLs(ctx, b)
		if err == nil {
			for _, r := range results {
				if r.Err != nil {
					err = r.Err
				}
			}
		}
		if err != nil {
			t.Fatalf("creating ACLs: %v", err)
		}
	}

	x := exportertest.Start(t, kafkaSection(c, "mechanism: SCRAM-SHA-512, username: alice, password: "+securePassword)+`
probes: []
groups: {interval: 1s, granularity: partition, allow: ["it-groups-acl", "it-groups-acl-hidden"]}
`, c.SecureBootstrap())
	probetest.Eventually(t, 2*time.Minute, "the readable topic exported, the denied one counted, the hidden group not visible", func() (bool, string) {
		f := x.Scrape(t)
		lag, ok := f.Value("kafka_bench_group_lag_records", "group", group, "topic", seen, "partition", "0")
		none := len(f.Find("kafka_bench_group_lag_records", "topic", denied))
		parts, _ := f.Value("kafka_bench_group_denied_topics", "group", group)
		topics, _ := f.Value("kafka_bench_group_topics_denied")
		reason := f.Label("kafka_bench_group_not_read_info", "reason", "group", hidden)
		return ok && lag == 5 && none == 0 && parts == 1 && topics == 1 && strings.HasPrefix(reason, "not visible"),
			fmt.Sprintf("lag of %s/0 %v (present %v, want 5), %d series of the denied topic, denied topics of the group %v, topics denied %v, the hidden group's reason %q",
				seen, lag, ok, none, parts, topics, reason)
	})
}

// streamsMember is a member of a Streams group (KIP-1071) made with the
// protocol's own requests, as a Kafka Streams client makes it (Go has no
// Kafka Streams client): one subtopology that reads topic, no internal
// topics.
type streamsMember struct {
	coordinator *kgo.Broker
	group, id   string
	mu          sync.Mutex // heartbeats run in the background
	epoch       int32
	active      []kmsg.TaskIDs // as the coordinator last assigned them
}

// joinStreams joins group with a topology of one subtopology reading topic
// and heartbeats until the coordinator has assigned the member every
// partition of topic as active tasks and the member has reported owning
// them; it then heartbeats every second until the test ends.
func joinStreams(t *testing.T, cl *kgo.Client, adm *kadm.Client, group, topic string, partitions int) *streamsMember {
	t.Helper()
	ctx := t.Context()
	var c kadm.FindCoordinatorResponse
	probetest.Eventually(t, time.Minute, group+"'s coordinator", func() (bool, string) {
		c = adm.FindGroupCoordinators(ctx, group)[group]
		return c.Err == nil, fmt.Sprint(c.Err) // not available while __consumer_offsets is made
	})
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		t.Fatal(err)
	}
	m := &streamsMember{coordinator: cl.Broker(int(c.NodeID)), group: group, id: uuidString(id)}
	joined := false
	heartbeat := func(ctx context.Context) error {
		m.mu.Lock()
		defer m.mu.Unlock()
		req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis = group, m.id, m.epoch, -1
		// The tasks the member owns, all three kinds or none (unchanged).
		req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = append([]kmsg.TaskIDs{}, m.active...), []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
		if !joined {
			process := m.id + "-process"
			sub := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
			sub.SubtopologyID, sub.SourceTopics = "0", []string{topic}
			topology := kmsg.NewStreamsGroupHeartbeatRequestTopology()
			topology.Subtopologies = []kmsg.StreamsGroupHeartbeatRequestTopologySubtopology{sub}
			req.Topology, req.ProcessID, req.RebalanceTimeoutMillis = &topology, &process, 30000
		}
		hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		resp, err := req.RequestWith(hctx, m.coordinator)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
			if err != nil && resp.ErrorMessage != nil {
				err = fmt.Errorf("%w: %s", err, *resp.ErrorMessage)
			}
		}
		if err != nil {
			return err
		}
		joined, m.epoch = true, resp.MemberEpoch
		if resp.ActiveTasks != nil { // null: unchanged
			m.active = resp.ActiveTasks
		}
		return nil
	}
	owned := func() int {
		m.mu.Lock()
		defer m.mu.Unlock()
		n := 0
		for _, task := range m.active {
			n += len(task.Partitions)
		}
		return n
	}
	// The member owns its tasks once a heartbeat has reported them.
	reported := 0
	probetest.Eventually(t, time.Minute, group+"'s member assigned every partition of "+topic, func() (bool, string) {
		err := heartbeat(ctx)
		if err != nil {
			return false, err.Error()
		}
		n := owned()
		if n == partitions {
			reported++
		}
		return reported >= 2, fmt.Sprintf("member epoch %d, %d partitions assigned", m.epoch, n)
	})
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if err := heartbeat(context.Background()); err != nil {
					t.Logf("%s's member heartbeat: %v", group, err)
				}
			}
		}
	}()
	t.Cleanup(func() {
		close(done)
		<-stopped
		m.mu.Lock()
		m.epoch = -1 // leaves
		m.mu.Unlock()
		_ = heartbeat(context.Background())
	})
	return m
}

// commit commits offsets of topic for the member's group, with its member
// id and epoch, as a Streams client commits.
func (m *streamsMember) commit(t *testing.T, cl *kgo.Client, adm *kadm.Client, topic string, offsets map[int32]int64) {
	t.Helper()
	topics, err := adm.ListTopics(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	epoch := m.epoch
	m.mu.Unlock()
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.MemberID, req.Generation = m.group, m.id, epoch
	rt := kmsg.NewOffsetCommitRequestTopic()
	rt.Topic, rt.TopicID = topic, topics[topic].ID // by name up to v9, by id from v10
	for p, o := range offsets {
		rp := kmsg.NewOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset = p, o
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(t.Context(), cl)
	if err != nil {
		t.Fatalf("committing %s's offsets: %v", m.group, err)
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				t.Fatalf("committing %s's offset of partition %d: %v", m.group, rp.Partition, err)
			}
		}
	}
}

func uuidString(b [16]byte) string {
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// A Streams group (KIP-1071) with a member that owns every partition of its
// source topic and committed offsets behind a known backlog: its type,
// state and member as the coordinator describes them, and its lag in
// records partition by partition as kafka-streams-groups.sh prints it.
func TestGroupsStreamsGroup(t *testing.T) {
	parallel(t) // waits on the coordinator's first assignment and on polls
	c := cluster(t, 1)
	ctx := t.Context()
	adm := admin(t, c)
	versions, err := adm.ApiVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		if _, ok := v.KeyMaxVersion(int16(kmsg.StreamsGroupHeartbeat)); !ok {
			t.Fatalf("broker %d does not advertise StreamsGroupHeartbeat", v.NodeID)
		}
	}
	const topic, group = "it-groups-streams-in", "it-groups-streams"
	createTopic(t, ctx, adm, topic, 4, 1)
	p := producer(t, c)
	produceTo(t, p, topic, 0, 12)
	produceTo(t, p, topic, 1, 8)
	produceTo(t, p, topic, 2, 4)
	produceTo(t, p, topic, 3, 2) // no committed offset
	cl := producer(t, c)
	m := joinStreams(t, cl, adm, group, topic, 4)
	m.commit(t, cl, adm, topic, map[int32]int64{0: 5, 1: 8, 2: 1})

	x := exportertest.Start(t, groupsConfig, c.Bootstrap())
	probetest.Eventually(t, time.Minute, "the Streams group, its state and member", func() (bool, string) {
		f := x.Scrape(t)
		state := f.Label("kafka_bench_group_info", "state", "group", group, "type", "streams")
		members, _ := f.Value("kafka_bench_group_members", "group", group)
		unassigned, ok := f.Value("kafka_bench_group_unassigned_partitions", "group", group)
		return state == "Stable" && members == 1 && ok && unassigned == 0,
			fmt.Sprintf("state %q, members %v, unassigned %v (present %v)", state, members, unassigned, ok)
	})
	const sgc = "org.apache.kafka.tools.streams.StreamsGroupCommand"
	rows := toolTable(t, sgc, "--bootstrap-server", c.Bootstrap()[0], "--describe", "--offsets", "--verbose", "--group", group)
	if len(rows) != 4 {
		t.Fatalf("kafka-streams-groups.sh printed %d partitions, want the 4 the member owns: %v", len(rows), rows)
	}
	for _, r := range rows {
		// Without a committed offset the tool prints the log's end minus
		// its start (Kafka Streams' default reset, earliest); an
		// application may reset a source topic to latest instead, which
		// the broker does not know: the exporter leaves it unknown, no
		// series, as for every other group.
		if r["CURRENT-OFFSET"] == "-" {
			r["OFFSET-LAG"] = "-"
		}
	}
	probetest.Eventually(t, 10*time.Second, "the Streams group's lag as kafka-streams-groups.sh prints it", func() (bool, string) {
		d := sameLagAsTool(t, x.Scrape(t), rows, group)
		return d == "", d
	})
}
