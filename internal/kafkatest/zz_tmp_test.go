package kafkatest

import (
	"testing"
	"time"
)

func TestZZStopAll3(t *testing.T) {
	Integration(t)
	c := Start(t, Options{Nodes: 3})
	for r := 0; r < 2; r++ {
		began := time.Now()
		for i := range 3 {
			if err := c.Stop(i); err != nil {
				t.Fatal(err)
			}
			t.Logf("stop %d at %v", i, time.Since(began))
		}
		t.Logf("StopAll(3 running) took %v", time.Since(began))
		began = time.Now()
		if err := c.StartAll(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Logf("StartAll took %v", time.Since(began))
	}
}
