package payload

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"hash/crc32"

	"github.com/kafka-bench/kafka_bench_exporter/config"
)

// HeaderSize is the encoded header length, config.HeaderSize, which
// validation checks record_size against. Layout, big endian:
//
//	[0:4]   magic "KBX1"
//	[4:12]  run id (uint64)
//	[12:16] partition (int32)
//	[16:24] sequence number (uint64)
//	[24:32] intended send time, unix nanoseconds (int64), of the producer's
//	        steady clock: its wall time at start plus the monotonic time
//	        since, so a wall-clock step after start does not move it
//	[32:36] CRC-32C (Castagnoli) of bytes [0:32]
//
// Castagnoli is used because it is hardware accelerated on amd64 and arm64
// and is the checksum Kafka itself uses for record batches.
const HeaderSize = config.HeaderSize

const (
	magic     = "KBX1"
	crcOffset = 32
)

// The layout fills the header exactly: each constant is negative, so the
// build fails, when HeaderSize and the layout part.
const (
	_ = uint(HeaderSize - (crcOffset + 4))
	_ = uint((crcOffset + 4) - HeaderSize)
)

// castagnoli is read-only after package initialisation.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Decode errors. They say why a value is not a probe record; the probe's
// consumer counts every one of them as foreign, since a corrupted probe
// record cannot be told from another producer's.
var (
	ErrTooShort = errors.New("payload: record shorter than header")
	ErrBadMagic = errors.New("payload: bad magic, not a probe record")
	ErrChecksum = errors.New("payload: header checksum mismatch")
)

// Header identifies one probe record.
type Header struct {
	RunID     uint64
	Partition int32
	Seq       uint64
	Intended  int64 // unix nanoseconds, steady (see the layout)
}

// Encode writes h into dst[:HeaderSize]. It panics if dst is too short, which
// is a programming error: buffers come from a Pool of a validated size.
func Encode(dst []byte, h Header) {
	_ = dst[HeaderSize-1] // one bounds check, panics early on short input
	copy(dst[0:4], magic)
	binary.BigEndian.PutUint64(dst[4:12], h.RunID)
	binary.BigEndian.PutUint32(dst[12:16], uint32(h.Partition))
	binary.BigEndian.PutUint64(dst[16:24], h.Seq)
	binary.BigEndian.PutUint64(dst[24:32], uint64(h.Intended))
	binary.BigEndian.PutUint32(dst[crcOffset:HeaderSize], crc32.Checksum(dst[:crcOffset], castagnoli))
}

// encodeVia is Encode through scratch: the header is made there and copied
// into dst. The checksum reads back the bytes just written; read back from
// dst, a reused buffer whose cache line is still on its way from another
// core (franz-go read it there), each read waited for that line.
func encodeVia(scratch *[HeaderSize]byte, dst []byte, h Header) {
	Encode(scratch[:], h)
	copy(dst[:HeaderSize], scratch[:])
}

// Decode parses the header at the start of b. Bytes past HeaderSize are
// ignored. It never panics.
func Decode(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, ErrTooShort
	}
	if string(b[0:4]) != magic {
		return Header{}, ErrBadMagic
	}
	if crc32.Checksum(b[:crcOffset], castagnoli) != binary.BigEndian.Uint32(b[crcOffset:HeaderSize]) {
		return Header{}, ErrChecksum
	}
	return Header{
		RunID:     binary.BigEndian.Uint64(b[4:12]),
		Partition: int32(binary.BigEndian.Uint32(b[12:16])),
		Seq:       binary.BigEndian.Uint64(b[16:24]),
		Intended:  int64(binary.BigEndian.Uint64(b[24:32])),
	}, nil
}

// NewRunID returns a random, non-zero run id so that records of a previous
// process on the same topic are told apart from ours.
func NewRunID() uint64 {
	var b [8]byte
	for {
		// crypto/rand.Read never returns an error since Go 1.24.
		_, _ = rand.Read(b[:])
		if id := binary.BigEndian.Uint64(b[:]); id != 0 {
			return id
		}
	}
}
