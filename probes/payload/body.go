package payload

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// Body kinds, as config's payload.kind.
const (
	RandomLetters = "random_letters"
	RandomBytes   = "random_bytes"
	File          = "file"
)

// windowSlack is how much longer than one padding the random buffer is: the
// number of distinct windows. 1 MiB keeps windows of the records of one
// batch (16 KiB to 1 MiB) mostly apart, so a compressor finds no more
// repetition across records than in Kafka's perf tool, whose every byte is
// fresh.
const windowSlack = 1 << 20

// Body says what follows the header of each record.
type Body struct {
	Kind string
	// Size is the record size, header included (random kinds).
	Size int
	// Entries are the bodies of kind File; each record takes one at random.
	Entries [][]byte
}

// body makes the bytes after the header: a window at a random offset into
// one random buffer made once per pool (a copy per record, not a random
// value per byte), or a random file entry.
type body struct {
	random  []byte
	pad     int // padding length of the random kinds
	last    int // window offset of the previous record
	entries [][]byte
	maxSize int // longest record, header included
}

func newBody(b Body) *body {
	switch b.Kind {
	case File:
		if len(b.Entries) == 0 {
			panic("payload: kind file without entries")
		}
		bd := &body{entries: b.Entries, last: -1}
		for _, e := range b.Entries {
			bd.maxSize = max(bd.maxSize, HeaderSize+len(e))
		}
		return bd
	case RandomLetters, RandomBytes, "":
	default:
		panic(fmt.Sprintf("payload: unknown kind %q", b.Kind))
	}
	if b.Size < HeaderSize {
		panic(fmt.Sprintf("payload: record size %d smaller than header size %d", b.Size, HeaderSize))
	}
	pad := b.Size - HeaderSize
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], rand.Uint64())
	binary.LittleEndian.PutUint64(seed[8:], rand.Uint64())
	src := rand.NewChaCha8(seed)
	random := make([]byte, pad+windowSlack)
	_, _ = src.Read(random) // never fails
	if b.Kind != RandomBytes {
		for i, c := range random {
			random[i] = 'A' + byte(uint32(c)*26>>8) // uniform enough over A-Z
		}
	}
	return &body{random: random, pad: pad, last: -1, maxSize: b.Size}
}

// next returns the body of the next record: a file entry, or a window of
// the random buffer that is not the previous record's. The caller
// serialises calls; the result is read-only.
func (bd *body) next() []byte {
	if bd.entries != nil {
		return bd.entries[rand.IntN(len(bd.entries))]
	}
	off := rand.IntN(windowSlack)
	if off == bd.last {
		off = (off + 1) % windowSlack
	}
	bd.last = off
	return bd.random[off : off+bd.pad]
}
