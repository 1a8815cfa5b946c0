package probes

import "github.com/kafka-bench/kafka_bench_exporter/probes/event"

// RecordID names one probe record (event.RecordID).
type RecordID = event.RecordID

// Failure reasons of a record given up on (event.FailureReasons).
const (
	ReasonTimeout           = event.ReasonTimeout
	ReasonRetriesExhausted  = event.ReasonRetriesExhausted
	ReasonNotLeader         = event.ReasonNotLeader
	ReasonNotEnoughReplicas = event.ReasonNotEnoughReplicas
	ReasonTopicMissing      = event.ReasonTopicMissing
	ReasonAuth              = event.ReasonAuth
	ReasonMessageTooLarge   = event.ReasonMessageTooLarge
	ReasonBehindSchedule    = event.ReasonBehindSchedule
	ReasonClientClosed      = event.ReasonClientClosed
	ReasonTransaction       = event.ReasonTransaction
	ReasonOther             = event.ReasonOther
)

// FailureReasons lists every reason, in exposition order.
var FailureReasons = event.FailureReasons
