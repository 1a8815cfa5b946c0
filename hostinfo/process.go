package hostinfo

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Process is one running process's CPU time and memory, from /proc on Linux:
// what the benchmarks measure of the programs they run.
type Process struct {
	// CPU is user plus system time since the process started.
	CPU time.Duration
	// RSS is the resident set now, PeakRSS its high-water mark, in bytes.
	RSS, PeakRSS uint64
}

// userHZ is the unit of the times in /proc/PID/stat (USER_HZ, 100 on Linux).
const userHZ = 100

// ReadProcess reads the counters of process pid.
func ReadProcess(pid int) (Process, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Process{}, err
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Process{}, err
	}
	return ParseProcess(string(stat), string(status))
}

// ParseProcess reads the texts of /proc/PID/stat and /proc/PID/status.
func ParseProcess(stat, status string) (Process, error) {
	var p Process
	// The command name (field 2) is in parentheses and may hold spaces or
	// parentheses itself: the fields that follow start after the last ')'.
	i := strings.LastIndexByte(stat, ')')
	if i < 0 || i+2 > len(stat) {
		return p, fmt.Errorf("/proc/PID/stat: no command name in %q", stat)
	}
	f := strings.Fields(stat[i+2:])
	if len(f) < 13 { // state is field 3, utime 14, stime 15
		return p, fmt.Errorf("/proc/PID/stat: %d fields after the command name, want 13 or more", len(f))
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return p, fmt.Errorf("/proc/PID/stat: utime %q, stime %q are not tick counts", f[11], f[12])
	}
	p.CPU = time.Duration(ut+st) * time.Second / userHZ
	found := 0
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kib, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return p, fmt.Errorf("/proc/PID/status: %s: %q is not a size in kB", k, strings.TrimSpace(v))
		}
		if k == "VmRSS" {
			p.RSS = kib * 1024
		} else {
			p.PeakRSS = kib * 1024
		}
		found++
	}
	if found != 2 {
		return p, fmt.Errorf("/proc/PID/status: no VmRSS and VmHWM lines")
	}
	return p, nil
}
