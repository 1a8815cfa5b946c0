package config

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// KeyDoc is what the docs say about a key beyond its type and default.
type KeyDoc struct {
	// Default replaces the printed default where that is a rule
	// (kafka-bench-<name>) or where empty means something.
	Default string
	Values  string // accepted range or values
	Doc     string // what the key does
}

// KeyRef is one row of the configuration reference.
type KeyRef struct {
	Key
	KeyDoc
	Documented bool // keyDocs has a row for it
}

// Reference lists the keys of the configuration file that the reference
// documents: every value, and the blocks whose presence means something
// (lists and optional blocks). Default is what --config.check prints for a
// file with one probe (named <name>), a capacity block and a replica block,
// secrets as <secret>, unless keyDocs gives a rule instead.
func Reference() ([]KeyRef, error) {
	c := Config{}
	c.SetDefaults()
	p := NewProbe("<name>")
	p.Capacity = &Capacity{}
	p.Capacity.SetDefaults()
	p.Replica = &Replica{}
	p.Replica.SetDefaults()
	p.Consumer.Churn = &Churn{}
	p.Consumer.Churn.SetDefaults()
	p.Resolve()
	c.Probes = []Probe{p}
	out, err := c.Marshal()
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(out, &doc); err != nil {
		return nil, err
	}
	var refs []KeyRef
	Walk(reflect.TypeFor[Config](), func(k Key) bool {
		if k.Block && !k.List && k.Field.Type.Kind() != reflect.Pointer {
			return true
		}
		d, ok := keyDocs[k.Path]
		r := KeyRef{Key: k, KeyDoc: d, Documented: ok}
		if r.Default == "" {
			r.Default = shownDefault(lookup(doc.Content[0], k.Parts))
		}
		refs = append(refs, r)
		return true
	})
	return refs, nil
}

// lookup finds a key's value in a printed configuration; a list stands for
// its first item.
func lookup(n *yaml.Node, parts []string) *yaml.Node {
	for _, part := range parts {
		if n != nil && n.Kind == yaml.SequenceNode {
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		}
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// shownDefault writes a printed value as code; nothing for unset.
func shownDefault(n *yaml.Node) string {
	switch {
	case n == nil || n.Tag == "!!null":
		return ""
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0 && n.Content[0].Kind == yaml.MappingNode:
		return ""
	case n.Kind == yaml.SequenceNode:
		items := make([]string, len(n.Content))
		for i, it := range n.Content {
			items[i] = it.Value
		}
		return "`[" + strings.Join(items, ", ") + "]`"
	case n.Kind == yaml.MappingNode && len(n.Content) == 0:
		return "`{}`"
	case n.Kind == yaml.MappingNode:
		return ""
	case n.Value == "":
		return ""
	}
	if q := strconv.Quote(n.Value); q[1:len(q)-1] != n.Value {
		return "`" + q + "`" // a delimiter such as "\n"
	}
	return "`" + n.Value + "`"
}

// TypeName is a key's type in the words of the docs.
func (k Key) TypeName() string {
	t := k.Type
	switch {
	case k.Secret():
		return "secret"
	case t == reflect.TypeFor[model.Duration]():
		return "duration"
	case k.List:
		return "list of blocks"
	case k.Block:
		return "block"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice:
		return "list of " + Key{Type: t.Elem()}.TypeName() + "s"
	case reflect.Map:
		return "mapping of names to " + Key{Type: t.Elem()}.TypeName() + "s"
	}
	return t.String()
}

// keyDocs say for each key of the file what its type and its default (both
// read from the code by Reference) do not: the values it accepts and what it
// does. Paths are Key.Path. docs/reference/config.md is generated from this
// table, and a key without a row fails TestKeyDocsCoverEveryKey.
var keyDocs = map[string]KeyDoc{
	"kafka.brokers":   {Doc: "bootstrap list; empty starts the embedded cluster"},
	"kafka.client_id": {Values: "at most 256 characters, including the `-capacity-<probe>` suffix of capacity clients (franz-go)", Doc: "client.id of every client"},

	"kafka.tls.enabled":              {Doc: "TLS to the brokers; needs `kafka.brokers`; see Security"},
	"kafka.tls.ca_file":              {Default: "(system roots)", Doc: "PEM CA certificate(s) that verify the brokers; a relative path is relative to the configuration file"},
	"kafka.tls.cert_file":            {Values: "set with `kafka.tls.key_file`: both or neither", Doc: "PEM client certificate (mTLS)"},
	"kafka.tls.key_file":             {Values: "set with `kafka.tls.cert_file`: both or neither", Doc: "PEM client key (mTLS)"},
	"kafka.tls.server_name":          {Default: "(the broker's host)", Doc: "name the broker certificates are checked against"},
	"kafka.tls.insecure_skip_verify": {Doc: "do not verify broker certificates (tests only; logged as WARN)"},

	"kafka.sasl.mechanism":     {Default: "(off)", Values: "`PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512`, `OAUTHBEARER`, `GSSAPI`, `AWS_MSK_IAM`", Doc: "SASL authentication; needs `kafka.brokers`"},
	"kafka.sasl.username":      {Values: "required with a mechanism"},
	"kafka.sasl.password":      {Values: "exactly one of `password`, `password_file`, `password_env`", Doc: "the password inline; never printed (`<secret>`)"},
	"kafka.sasl.password_file": {Values: "exactly one of `password`, `password_file`, `password_env`", Doc: "a file whose content is the password (trailing newline dropped)"},
	"kafka.sasl.password_env":  {Values: "exactly one of `password`, `password_file`, `password_env`", Doc: "an environment variable that holds the password"},

	"kafka.sasl.oauth.token_endpoint":     {Values: "exactly one of it and `token_file`", Doc: "OAUTHBEARER: token URL (client-credentials grant)"},
	"kafka.sasl.oauth.client_id":          {Doc: "client of the token endpoint (HTTP Basic)"},
	"kafka.sasl.oauth.client_secret_file": {Doc: "the token endpoint client's secret, from a file re-read when it changes"},
	"kafka.sasl.oauth.scope":              {Doc: "scope of the token request (not sent when empty)"},
	"kafka.sasl.oauth.extensions":         {Values: "names of letters only", Doc: "SASL extensions sent with the token (KIP-342)"},
	"kafka.sasl.oauth.token_file":         {Values: "exactly one of it and `token_endpoint`", Doc: "OAUTHBEARER: a token (JWT) another process keeps fresh; re-read when it changes"},
	"kafka.sasl.kerberos.keytab_file":     {Values: "or a `kafka.sasl` password (`password_file`, ...) instead", Doc: "GSSAPI: the keytab of `kafka.sasl.username`"},
	"kafka.sasl.kerberos.realm":           {Default: "(krb5.conf's `default_realm`)", Doc: "the principal's realm"},
	"kafka.sasl.kerberos.service_name":    {Default: "(`kafka`)", Doc: "first part of the brokers' principals (Kafka's `sasl.kerberos.service.name`); the host part is each broker's host"},
	"kafka.sasl.kerberos.config_file":     {Default: "(`/etc/krb5.conf`)", Doc: "the krb5.conf naming the realm's KDCs"},
	"kafka.sasl.aws.region":               {Default: "(the AWS chain's)", Doc: "AWS_MSK_IAM: region of STS and of the signature when the broker host names none"},
	"kafka.sasl.aws.profile":              {Default: "(`AWS_PROFILE`, else `default`)", Doc: "profile of the shared AWS config and credentials files"},
	"kafka.sasl.aws.role_arn":             {Doc: "an IAM role assumed with the chain's credentials"},
	"kafka.sasl.aws.session_name":         {Doc: "the session name of the assumed role"},

	"probes":         {Default: "(absent: the `default` probe of the `--probe.*` flags)", Values: "`[]`: no probe, host-agent mode", Doc: "the probes, each a steady producer/consumer pair"},
	"probes[].name":  {Default: "(required)", Values: "`[a-z0-9_-]+`, at most 64 characters, unique", Doc: "becomes the `probe` label"},
	"probes[].topic": {Default: "`kafka-bench-<name>`", Doc: "one topic per probe (sequence numbers are per probe)"},

	"probes[].create_topic.enabled":                {Doc: "create the topic when missing; an existing topic that differs is logged (WARN) and shown in `kafka_bench_probe_info`, never altered"},
	"probes[].create_topic.partitions":             {Values: "≥ 1", Doc: "partitions of a created topic"},
	"probes[].create_topic.replication_factor":     {Values: "≥ 1, or -1 for the broker default", Doc: "replication factor of a created topic"},
	"probes[].create_topic.configs":                {Doc: "topic configs of a created topic, e.g. `min.insync.replicas`, `retention.ms`"},
	"probes[].create_topic.leader_on_every_broker": {Values: "needs `create_topic.enabled`", Doc: "add partitions up to the broker count and move replicas so every broker leads one; see Broker coverage"},

	"probes[].rate":        {Values: "0, or 1e-9 … 10000000 (1e7), a finite number (NaN and Inf are refused)", Doc: "records/s; 0 = as fast as `buffer.memory` allows"},
	"probes[].record_size": {Values: "36 … 104856576 (100 MiB − 1 KiB: a record's batch in a produce request must fit franz-go's 100 MiB request limit, Kafka's default `socket.request.max.bytes`; the topic's `max.message.bytes` and `buffer.memory` must be raised to match)", Doc: "record value bytes, at least the 36-byte probe header; with `payload.kind: file` it is set from the file (header + longest entry)"},

	"probes[].payload.kind":      {Values: "`random_letters`, `random_bytes`, `file`", Doc: "what follows the 36-byte header: `random_letters` (A–Z, as ProducerPerformance), `random_bytes` (incompressible), `file` (entries of `payload.file`); see How it measures"},
	"probes[].payload.file":      {Values: "with kind `file` only; must hold at least one entry", Doc: "entries drawn at random, one per record (as ProducerPerformance's `--payload-file`); a relative path is relative to the configuration file"},
	"probes[].payload.delimiter": {Values: "not empty", Doc: "splits `payload.file` into entries; taken literally (not a regex, unlike Java's); empty entries are skipped"},

	"probes[].loss_grace_period": {Values: "> 0", Doc: "an acknowledged record the consumer read past and that is still missing this long after its acknowledgement counts as lost; runs from the acknowledgement, so it needs no relation to `delivery.timeout.ms`"},
	"probes[].lag_interval":      {Values: "> 0", Doc: "how often lag, loss and `probe_up` are updated"},
	"probes[].round_interval":    {Values: "0 … 10s", Doc: "records are sent in rounds this far apart, all of a round sharing its intended time (at most one `batch.size` per partition per round); `0` = one record at a time; see How it measures"},

	"probes[].producer.acks":                                  {Values: "`0`, `1`, `all` (`-1`)", Doc: "with `0` the lag-in-seconds gauges are absent (see How it measures)"},
	"probes[].producer.linger.ms":                             {Values: "0 … 60000 (franz-go)"},
	"probes[].producer.batch.size":                            {Values: "> 0, at most 104857600 (franz-go's request limit)", Doc: "franz-go always batches; Kafka's 0 (one record per batch) is refused; the batch limit is max(batch.size, record_size + 128), which franz-go needs ≥ 512"},
	"probes[].producer.buffer.memory":                         {Values: "≥ record_size"},
	"probes[].producer.compression.type":                      {Values: "`none`, `gzip`, `snappy`, `lz4`, `zstd`"},
	"probes[].producer.enable.idempotence":                    {Default: "true with acks=all, else false", Values: "true requires acks=all"},
	"probes[].producer.max.in.flight.requests.per.connection": {Values: "≥ 1; ≤ 5 with idempotence"},
	"probes[].producer.request.timeout.ms":                    {Values: "100 … 2147483647 (franz-go)"},
	"probes[].producer.delivery.timeout.ms":                   {Values: "≥ linger.ms + request.timeout.ms, and ≥ 1000 (franz-go)"},
	"probes[].producer.retries":                               {Values: "≥ 0"},
	"probes[].producer.max.request.size":                      {Default: "unset: franz-go's 104857600", Values: "≥ record_size + 128; 1024 … 1073741824 (franz-go)", Doc: "the largest request sent to a broker (`kgo.BrokerMaxWriteBytes`)"},
	"probes[].producer.compression.gzip.level":                {Default: "unset: gzip's default", Values: "-1, 1 … 9", Doc: "applies with `compression.type: gzip`"},
	"probes[].producer.compression.lz4.level":                 {Default: "unset: franz-go's fastest", Values: "1 … 9 (franz-go's lz4; Kafka's go to 17)", Doc: "applies with `compression.type: lz4`"},
	"probes[].producer.compression.zstd.level":                {Default: "unset: zstd's default", Values: "-131072 … 22", Doc: "applies with `compression.type: zstd`; franz-go's zstd has four speeds, a level picks the nearest"},
	"probes[].producer.metadata.max.age.ms":                   {Values: "250 … 3600000 (franz-go)", Doc: "the longest time between two metadata refreshes"},
	"probes[].producer.connections.max.idle.ms":               {Default: "unset: franz-go's 30000", Values: "100 … 900000 (franz-go)", Doc: "an idle connection is closed after this"},
	"probes[].producer.enable.metrics.push":                   {Doc: "false: the client does not send its metrics to the broker (KIP-714)"},

	"probes[].consumer.enabled":                       {Doc: "false: produce only"},
	"probes[].consumer.group.id":                      {Default: "`kafka-bench-<name>`", Values: "not empty"},
	"probes[].consumer.fetch.min.bytes":               {Values: "≥ 1"},
	"probes[].consumer.fetch.max.bytes":               {Values: "1 … 104857600 (franz-go's response limit)"},
	"probes[].consumer.max.partition.fetch.bytes":     {Values: "≥ 1"},
	"probes[].consumer.fetch.max.wait.ms":             {Values: "≥ 10 (franz-go)"},
	"probes[].consumer.max.poll.records":              {Values: "≥ 1"},
	"probes[].consumer.auto.commit.interval.ms":       {Values: "≥ 1", Doc: "how often the probe commits (synchronously, to time the commits)"},
	"probes[].consumer.session.timeout.ms":            {Values: "100 … 2147483647 (franz-go)"},
	"probes[].consumer.heartbeat.interval.ms":         {Values: "≥ 1, below session.timeout.ms"},
	"probes[].consumer.auto.offset.reset":             {Values: "`earliest`, `latest`", Doc: "applies to a committed offset out of range: partitions found at start begin at their end, partitions added later at their start (see How it measures)"},
	"probes[].consumer.consumers":                     {Values: "1 … 256", Doc: "group members, each its own client (the seeds' consumer threads)"},
	"probes[].consumer.group.protocol":                {Values: "`classic`, `consumer`", Doc: "`consumer`: the KIP-848 protocol, where the broker assigns (Kafka 4.0+; franz-go falls back to classic when the broker lacks it: `kafka_bench_consumer_group_protocol_info` shows the one in use)"},
	"probes[].consumer.group.remote.assignor":         {Default: "unset: `uniform`", Values: "`uniform`, `range`; with `group.protocol: consumer` only", Doc: "the broker's assignor of the group"},
	"probes[].consumer.partition.assignment.strategy": {Default: "unset: `cooperative-sticky`", Values: "comma-separated `range`, `roundrobin`, `sticky`, `cooperative-sticky` (or Java class names); with `group.protocol: classic` only", Doc: "the client-side assignors, in order of preference; Java's default is `range, cooperative-sticky`"},
	"probes[].consumer.group.instance.id":             {Default: "unset: dynamic membership", Values: "not blank", Doc: "static membership (KIP-345): a restarted member gets its partitions back without a rebalance; with several consumers, member i's id ends in `-i`"},
	"probes[].consumer.isolation.level":               {Values: "`read_uncommitted`, `read_committed`"},
	"probes[].consumer.check.crcs":                    {Doc: "false: fetched batches' CRCs are not checked"},
	"probes[].consumer.client.rack":                   {Default: "unset: no rack", Doc: "the consumer's rack: fetches from a replica in it where the brokers' replica selector allows (KIP-392), and rack-aware assignment with the classic range and sticky assignors (KIP-881)"},
	"probes[].consumer.max.poll.interval.ms":          {Default: "unset: franz-go's 60000", Values: "100 … 2147483647 (franz-go)", Doc: "the rebalance timeout the member sends when it joins"},
	"probes[].consumer.allow.auto.create.topics":      {Doc: "true: a missing topic is created by the broker when the consumer asks for it (with the broker's `auto.create.topics.enable`); Java's default is true, the probe's false, as it creates its topic itself"},
	"probes[].consumer.metadata.max.age.ms":           {Values: "250 … 3600000 (franz-go)", Doc: "the longest time between two metadata refreshes"},
	"probes[].consumer.connections.max.idle.ms":       {Default: "unset: franz-go's 30000", Values: "100 … 900000 (franz-go)", Doc: "an idle connection is closed after this"},
	"probes[].consumer.enable.metrics.push":           {Doc: "false: the client does not send its metrics to the broker (KIP-714)"},
	"probes[].consumer.churn":                         {Default: "(off)", Values: "present = on", Doc: "one more member joins the probe's group every `interval` and leaves after `duration`, reading and committing as the probe's own members do: two rebalances per interval, measured as any other (`cause` `churn` at the other members)"},
	"probes[].consumer.churn.interval":                {Values: "> 0", Doc: "time from one join of the extra member to the next"},
	"probes[].consumer.churn.duration":                {Values: "> 0, below `interval`", Doc: "how long the extra member stays in the group"},
	"probes[].consumer.kind":                          {Values: "`group`, `share`", Doc: "`group`: a consumer group; `share`: a share group (KIP-932, Kafka 4.2+), whose members share every partition and acknowledge each record (see How it measures); the other consumer keys but group.id, auto.commit.interval.ms and the session and heartbeat keys apply to both"},
	"probes[].consumer.share.group.id":                {Default: "`kafka-bench-<name>-share`", Values: "not empty", Doc: "the share group (`consumer.kind: share`); its `share.auto.offset.reset` is set to earliest at start"},
	"probes[].consumer.share.record.lock.duration.ms": {Default: "0 (the group's)", Values: "0, or within the broker's `group.share.min.record.lock.duration.ms` … `group.share.max.record.lock.duration.ms`", Doc: "set as the group's `share.record.lock.duration.ms` at start"},
	"probes[].consumer.share.delivery.count.limit":    {Default: "0 (the group's)", Values: "0, or 2 … 10 (within the broker's bounds)", Doc: "set as the group's `share.delivery.count.limit` at start: the delivery attempts before the broker archives a record"},
	"probes[].consumer.share.faults.release_fraction": {Values: "0 … 1", Doc: "records released on their first delivery, chosen by sequence number: redeliveries by release"},
	"probes[].consumer.share.faults.reject_fraction":  {Values: "0 … 1 − `release_fraction`", Doc: "records rejected on their first delivery, chosen likewise: archived"},
	"probes[].consumer.share.faults.hold":             {Default: "0s (off)", Values: "≥ 0", Doc: "member 0 keeps one poll's records this long before accepting them; past the record lock they go to another member (redeliveries by lock expiry) and the late accept fails"},
	"probes[].consumer.share.faults.hold_interval":    {Values: "> `hold`", Doc: "time between two holds"},

	"probes[].capacity":                      {Default: "(off)", Values: "present = on", Doc: "the capacity canary"},
	"probes[].capacity.interval":             {Values: "> 0; must exceed the longest run (warm-up + steps × `step_duration`) by 10 %", Doc: "time from the end of one run to the start of the next, ±10 % jitter"},
	"probes[].capacity.step_duration":        {Values: "≥ 1s", Doc: "length of each step, so each step has records enough for a p99; shorter than the brokers' quota window (`quota.window.num` × `quota.window.size.seconds`, 11 s by default, read with DescribeConfigs at each run's start), a step can pass before Kafka throttles: the run then warns at its start and holds the best step for the quota window before reporting it"},
	"probes[].capacity.start_rate":           {Values: "≥ 1e-9, at most the ceiling and 1e7", Doc: "records/s of the warm-up and the first step"},
	"probes[].capacity.growth":               {Values: "> 1; at most 100 steps to the ceiling", Doc: "each step's rate is the last one's times this"},
	"probes[].capacity.max_rate":             {Default: "0 (off)", Values: "0, or 1e-9 … 1e7; this or `max_bytes_per_second` required", Doc: "hard ceiling in records/s"},
	"probes[].capacity.max_bytes_per_second": {Default: "0 (off)", Values: "≥ 0; this or `max_rate` required", Doc: "hard ceiling in value bytes/s"},
	"probes[].capacity.latency_slo":          {Values: "> 0", Doc: "a step fails when its produce p99 exceeds it"},
	"probes[].capacity.end_to_end_slo":       {Default: "0 (off)", Values: "≥ 0", Doc: "when > 0 a step also fails when its end-to-end p99 exceeds it"},
	"probes[].capacity.topic":                {Default: "`<topic>-capacity`", Values: "differs from every probe topic", Doc: "the runs' own topic, created like the probe's (`create_topic`, plus `retention.ms` and `segment.ms` of 10 min unless `configs` set them)"},

	"probes[].replica":                   {Default: "(off)", Values: "present = on", Doc: "the cross-cluster canary: also read the probe's records from the cluster a replicator (MirrorMaker 2, a cluster link) copies the topic to; see Cross-cluster"},
	"probes[].replica.kafka.brokers":     {Default: "(required)", Doc: "bootstrap list of the target cluster"},
	"probes[].replica.kafka.client_id":   {Doc: "client.id of the replica reader"},
	"probes[].replica.source_alias":      {Values: "letters, digits, `.`, `_`, `-`", Doc: "the replicator's name for the probe's cluster: the copy is `<source_alias>.<topic>` under MirrorMaker 2's default replication policy"},
	"probes[].replica.target_alias":      {Values: "letters, digits, `.`, `_`, `-`", Doc: "names the target in the `link` label (`<source_alias>-><target_alias>`)"},
	"probes[].replica.topic_policy":      {Values: "`default`, `identity`", Doc: "how the copy is named: `default` (`<source_alias>.<topic>`, MirrorMaker 2's DefaultReplicationPolicy) or `identity` (the same name: IdentityReplicationPolicy, most cluster links)"},
	"probes[].replica.topic":             {Default: "(from the policy)", Doc: "the copy's name, whatever the policy (a custom separator or policy)"},
	"probes[].replica.loss_grace_period": {Values: "> 0", Doc: "a record the source acknowledged and the replica has not shown this long after its acknowledgement counts as lost across the link"},

	"host.enabled":    {Doc: "host CPU, memory, disk and network metrics"},
	"host.disks":      {Values: "regex", Doc: "block devices to report; the default matches whole disks only (`sda`, `nvme0n1`), not partitions (`sda1`, `nvme0n1p1`), whose IO is also their disk's and would count twice"},
	"host.interfaces": {Values: "regex", Doc: "network interfaces to report, by name"},

	"config_poll_interval": {Values: "≥ 0 (a negative value: `must not be negative`)", Doc: "how often broker and probe topic configurations are read (Configuration changes); 0 = off"},
}

// The replica block's kafka keys follow the kafka block's rules, for the
// target cluster: their rows are the kafka rows, named for the replica.
func init() {
	const replica = "probes[].replica."
	for path, d := range keyDocs {
		rest, ok := strings.CutPrefix(path, "kafka.")
		if !ok || rest == "brokers" || rest == "client_id" {
			continue
		}
		d.Values = strings.ReplaceAll(d.Values, "`kafka.", "`replica.kafka.")
		doc := "to the target cluster, as `kafka." + rest + "`"
		if d.Doc != "" {
			doc += ": " + strings.ReplaceAll(d.Doc, "`kafka.", "`replica.kafka.")
		}
		d.Doc = doc
		keyDocs[replica+path] = d
	}
}
