package configwatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Bounds of one poll: a broker listed in metadata but not answering must
// not stall polling for good.
const (
	pollTimeout    = 20 * time.Second
	quorumTimeout  = 5 * time.Second
	clusterMetaLog = "__cluster_metadata"
)

// facts are the cluster facts of one poll.
type facts struct {
	clusterID  string
	controller int32 // -1: unknown
	fromQuorum bool  // controller is the KRaft quorum leader
	kraft      bool  // a broker finalized metadata.version
	quorumAPI  bool  // a broker offers DescribeQuorum (kfake does not)
	version    string
	// versions are each answering broker's release (brokerVersion);
	// finalized is the cluster's finalized level of each feature of
	// finalizedFeatures ("" when none is).
	versions  map[int32]string
	finalized map[string]string
	brokers   []int32 // sorted
	racks     map[int32]string
}

// snapshot is what one poll read. Maps hold only what was described.
type snapshot struct {
	facts         *facts // nil: metadata failed
	brokers       map[int32]Configs
	topics        map[string]Configs
	missingTopics bool         // a probe topic does not exist (yet)
	denied        bool         // DescribeConfigs (or Metadata) was not authorized
	err           error        // nil: everything asked for was described
	failed        map[Kind]int // failed requests or resources, by kind
}

// poll reads the cluster facts, every broker's configuration and each
// probe topic's configuration.
func poll(ctx context.Context, cl *kgo.Client, topics []string, releases map[int16]string) snapshot {
	ctx, cancel := context.WithTimeout(ctx, pollTimeout)
	defer cancel()
	s := snapshot{brokers: map[int32]Configs{}, topics: map[string]Configs{}, failed: map[Kind]int{}}
	var errs []error
	fail := func(kind Kind, what string, err error) {
		s.denied = s.denied || denied(err)
		s.failed[kind]++
		errs = append(errs, fmt.Errorf("%s: %w", what, err))
	}

	// A real Metadata request: kadm's answers come from kgo's cache, whose
	// broker list can stay stale.
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	meta, err := req.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(meta.ErrorCode)
	}
	if err != nil {
		fail(KindCluster, "metadata", err)
		s.err = errors.Join(errs...)
		return s
	}
	f := &facts{controller: meta.ControllerID, racks: map[int32]string{}}
	if meta.ClusterID != nil {
		f.clusterID = *meta.ClusterID
	}
	for _, b := range meta.Brokers {
		f.brokers = append(f.brokers, b.NodeID)
		if b.Rack != nil {
			f.racks[b.NodeID] = *b.Rack
		}
	}
	slices.Sort(f.brokers)
	f.versions, f.finalized, f.kraft, f.quorumAPI = versions(ctx, cl, f.brokers, releases)
	f.version = joinVersions(f.versions)
	// Without DescribeQuorum (kfake, the embedded cluster) Metadata's
	// controller is the only one there is.
	if f.quorumAPI {
		if leader, ok := quorumLeader(ctx, cl); ok {
			f.controller, f.fromQuorum = leader, true
		}
	}
	s.facts = f

	adm := kadm.NewClient(cl)
	if len(f.brokers) > 0 {
		rcs, err := adm.DescribeBrokerConfigs(ctx, f.brokers...)
		if err != nil {
			fail(KindBroker, "describe broker configs", err)
		}
		for _, rc := range rcs {
			id, perr := strconv.ParseInt(rc.Name, 10, 32)
			switch {
			case rc.Err != nil:
				fail(KindBroker, "describe configs of broker "+rc.Name, rc.Err)
			case perr == nil:
				s.brokers[int32(id)] = fromDescribe(rc)
			}
		}
	}
	if len(topics) > 0 {
		rcs, err := adm.DescribeTopicConfigs(ctx, topics...)
		if err != nil {
			fail(KindTopic, "describe topic configs", err)
		}
		// Only a topic that does not exist is retried soon (the probe is
		// creating it); a denied one waits for the interval like the rest.
		answered := map[string]bool{}
		for _, rc := range rcs {
			answered[rc.Name] = true
			switch {
			case errors.Is(rc.Err, kerr.UnknownTopicOrPartition):
				s.missingTopics = true
			case rc.Err != nil:
				fail(KindTopic, "describe configs of topic "+rc.Name, rc.Err)
			default:
				s.topics[rc.Name] = fromDescribe(rc)
			}
		}
		for _, t := range topics {
			if !answered[t] && err == nil {
				s.missingTopics = true
			}
		}
	}
	s.err = errors.Join(errs...)
	return s
}

// denied reports an authorization failure: ACLs, or a managed cluster that
// does not let clients describe broker configurations.
func denied(err error) bool {
	if _, ok := errors.AsType[*kadm.AuthError](err); ok {
		return true
	}
	return errors.Is(err, kerr.ClusterAuthorizationFailed) || errors.Is(err, kerr.TopicAuthorizationFailed)
}

// finalizedFeatures are the features whose finalized level
// kafka_bench_cluster_info shows: the KRaft metadata version, and the
// transaction (KIP-890) and share-group (KIP-932) versions that change what
// transactional and share probes measure.
var finalizedFeatures = []string{metadataVersion, "transaction.version", "share.version"}

// versions asks every broker for its ApiVersions and names each one's
// release (absent: it did not answer). finalized is the highest finalized
// level a broker reports of each of finalizedFeatures, kraft whether
// metadata.version is finalized, quorumAPI whether a broker offers
// DescribeQuorum.
func versions(ctx context.Context, cl *kgo.Client, brokers []int32, releases map[int16]string) (found map[int32]string, finalized map[string]string, kraft, quorumAPI bool) {
	var (
		mu     sync.Mutex
		wg     sync.WaitGroup
		levels = map[string]int16{}
	)
	found = map[int32]string{}
	for _, id := range brokers {
		wg.Go(func() {
			req := kmsg.NewPtrApiVersionsRequest()
			// v3+ requires both, as [a-zA-Z0-9.-]+.
			req.ClientSoftwareName = "kafka-bench-exporter"
			req.ClientSoftwareVersion = "1"
			resp, err := req.RequestWith(ctx, cl.Broker(int(id)))
			if err != nil || resp.ErrorCode != 0 {
				return
			}
			v := brokerVersion(resp, releases)
			mu.Lock()
			defer mu.Unlock()
			found[id] = v
			for _, ff := range resp.FinalizedFeatures {
				if resp.FinalizedFeaturesEpoch < 0 || !slices.Contains(finalizedFeatures, ff.Name) {
					continue
				}
				kraft = kraft || ff.Name == metadataVersion
				if l, ok := levels[ff.Name]; !ok || ff.MaxVersionLevel > l {
					levels[ff.Name] = ff.MaxVersionLevel
				}
			}
			for _, k := range resp.ApiKeys {
				quorumAPI = quorumAPI || k.ApiKey == kmsg.DescribeQuorum.Int16()
			}
		})
	}
	wg.Wait()
	finalized = map[string]string{}
	for name, l := range levels {
		finalized[name] = strconv.Itoa(int(l))
	}
	return found, finalized, kraft, quorumAPI
}

// joinVersions names the releases found, comma-separated while they differ
// (a rolling upgrade); "" when no broker answered.
func joinVersions(vs map[int32]string) string {
	found := make([]string, 0, len(vs))
	for _, v := range vs {
		found = append(found, v)
	}
	slices.Sort(found)
	return strings.Join(slices.Compact(found), ",")
}

// quorumLeader returns the active KRaft controller. Metadata's controller
// id cannot be used for KRaft: brokers answer it with a random live broker.
func quorumLeader(ctx context.Context, cl *kgo.Client) (int32, bool) {
	ctx, cancel := context.WithTimeout(ctx, quorumTimeout)
	defer cancel()
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = clusterMetaLog
	p := kmsg.NewDescribeQuorumRequestTopicPartition()
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return -1, false
	}
	rp := resp.Topics[0].Partitions[0]
	if rp.ErrorCode != 0 || rp.LeaderID < 0 {
		return -1, false
	}
	return rp.LeaderID, true
}
