// Command gen writes every file rendered from the monitoring mixin into the
// module: the dashboards, the rule files, the bucket boundaries the mixin
// checks its thresholds against, and the manifests of package deploy. Run
// it from anywhere in the module:
//
//	go generate ./mixin
//	go run ./mixin/gen
package main

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"github.com/kafka-bench/kafka_bench_exporter/deploy"
	"github.com/kafka-bench/kafka_bench_exporter/mixin"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mixin/gen:", err)
		os.Exit(1)
	}
}

// Generated returns the content of every generated file by its path
// relative to the module root.
func Generated() (map[string][]byte, error) {
	o, err := mixin.Render("")
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{"mixin/" + mixin.BucketsFile: mixin.Buckets()}
	for name, b := range o.Dashboards {
		files["dashboards/"+name] = b
	}
	for name, b := range o.ImportDashboards {
		files["dashboards/import/"+name] = b
	}
	for name, b := range o.Rules {
		files["alerts/"+name] = b
	}
	d, err := deploy.Generate()
	if err != nil {
		return nil, err
	}
	maps.Copy(files, d)
	return files, nil
}

func run() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	files, err := Generated()
	if err != nil {
		return err
	}
	for _, p := range mixin.Names(files) {
		dst := filepath.Join(root, filepath.FromSlash(p))
		if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, files[p]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, files[p], 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", p)
	}
	return nil
}

// moduleRoot is the nearest directory at or above the working directory
// that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}
