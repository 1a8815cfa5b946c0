// Package payload encodes and decodes the binary header carried by every
// probe record, and pools fixed-size record buffers whose padding is random
// uppercase text so that compression behaves like Kafka's own perf tools.
package payload
