package probes

// BenchOptions are what a one-shot bench run changes about a probe: it
// stops producing after a number of records, or reads a pre-filled topic
// without producing; and in a
// run of several workers, which share the topic and the consumer group, its
// producer's run id and the other workers' are derived from the run's name,
// so that each consumer counts every worker's records as its own.
type BenchOptions struct {
	// NumRecords, when > 0, stops producing after that many records.
	NumRecords uint64
	// ConsumeOnly runs the consumer without the producer, from the
	// group's committed offsets or the start of the topic.
	ConsumeOnly bool
	// RunID, when not 0, is the producer's run id instead of a random one.
	RunID uint64
	// WorkerRuns are the run ids of the other workers' producers: the
	// consumer treats their records as its own (end-to-end latency,
	// event.Consumed.Own).
	WorkerRuns []uint64
}
