package bench

import (
	"os"
	"path/filepath"
	"testing"
)

// Load reads the bench file once: the Source shows the text it ran, even
// when the file has changed since.
func TestLoadKeepsText(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bench.yml")
	const text = "num_records: 100\nmatrix: {record_size: [100, 200]}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	b, src, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if got := src.Text(); got == nil || got.Name != file || got.Text != text || len(b.Scenarios) != 2 {
		t.Errorf("source %+v, %d scenarios; want %s's text and 2 scenarios", got, len(b.Scenarios), file)
	}
	if _, _, err := Load(file); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}
