package hostinfo

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseProcess(t *testing.T) {
	// A command name with a space and a ')' of its own, as the kernel writes it.
	stat := "4242 (kafka) bench) S 1 4242 4242 0 -1 4194560 5000 0 0 0 1234 567 0 0 20 0 12 0 100 1000000 6000 18446744073709551615\n"
	status := "Name:\tkafka\nVmPeak:\t  900000 kB\nVmHWM:\t   30720 kB\nVmRSS:\t   25600 kB\nThreads:\t12\n"
	p, err := ParseProcess(stat, status)
	if err != nil {
		t.Fatal(err)
	}
	want := Process{CPU: (1234 + 567) * 10 * time.Millisecond, RSS: 25600 * 1024, PeakRSS: 30720 * 1024}
	if p != want {
		t.Errorf("ParseProcess = %+v, want %+v", p, want)
	}
	for name, c := range map[string][2]string{
		"no command": {"4242 kafka S 1", status},
		"short":      {"4242 (kafka) S 1 2 3", status},
		"bad ticks":  {strings.Replace(stat, " 1234 ", " x ", 1), status},
		"no VmHWM":   {stat, "VmRSS:\t 1 kB\n"},
		"bad VmRSS":  {stat, "VmHWM:\t 1 kB\nVmRSS:\t lots\n"},
	} {
		if _, err := ParseProcess(c[0], c[1]); err == nil {
			t.Errorf("%s: ParseProcess accepted %q / %q", name, c[0], c[1])
		}
	}
}

func TestReadProcessSelf(t *testing.T) {
	p, err := ReadProcess(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if p.RSS == 0 || p.PeakRSS < p.RSS {
		t.Errorf("ReadProcess(self) = %+v: want an RSS and a peak at least as large", p)
	}
}
