// Package payload encodes and decodes the binary header carried by every
// probe record, and pools record buffers whose body after the header differs
// from record to record (random A-Z, random bytes, or entries of a file), so
// that compression behaves as with Kafka's own perf tools.
package payload
