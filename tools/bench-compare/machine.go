package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/host"

	"github.com/kafka-bench/kafka_bench_exporter/hostinfo"
)

// machine describes this machine for a report: CPUs, model, RAM, kernel.
func machine(ctx context.Context) string {
	k := hostinfo.Kernel{}
	n, _ := k.CPUCount(ctx)
	model := "unknown CPU"
	if info, err := cpu.InfoWithContext(ctx); err == nil && len(info) > 0 {
		model = info[0].ModelName
	}
	ram := uint64(0)
	if m, err := k.Memory(ctx); err == nil {
		ram = m.Total >> 30
	}
	kernel, _ := host.KernelVersionWithContext(ctx)
	return fmt.Sprintf("%d CPUs, %s, %d GiB RAM, Linux %s", n, model, ram, kernel)
}

// javaVersion is the first line of `java -version`.
func javaVersion(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "java", "-version").CombinedOutput()
	if err != nil {
		return "java: " + err.Error()
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return line
}
