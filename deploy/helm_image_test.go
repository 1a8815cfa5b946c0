package deploy

import (
	"strings"
	"testing"
)

// image.digest pins the image by content: every container of the chart
// that runs the exporter (its Deployment, the host agent's DaemonSet) gets
// repository@digest; without a digest, repository:tag.
func TestHelmImageDigest(t *testing.T) {
	const repo = "registry.example/kafka_bench_exporter"
	digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	for _, c := range []struct {
		what  string
		flags []string
		want  string
	}{
		{"digest", []string{"--set", "image.digest=" + digest}, repo + "@" + digest},
		{"tag", nil, repo + ":v9.9.9"},
	} {
		t.Run(c.what, func(t *testing.T) {
			flags := append([]string{"--set", "image.repository=" + repo, "--set", "image.tag=v9.9.9", "--set", "hostAgent.enabled=true"}, c.flags...)
			ms := helmTemplate(t, "image "+c.what, flags...)
			for _, kind := range []string{"Deployment", "DaemonSet"} {
				if img := getString(one(t, ms, kind, "").doc, "spec", "template", "spec", "containers", 0, "image"); img != c.want {
					t.Errorf("%s image %q, want %q", kind, img, c.want)
				}
			}
		})
	}
}
