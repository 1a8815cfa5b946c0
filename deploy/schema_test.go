package deploy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var validatorBinary madeOnce

// validator is the offline schema validator of the nested module
// deploy/validate, built once.
func validator(t testing.TB) string {
	t.Helper()
	return validatorBinary.get(t, func() (string, error) {
		out := filepath.Join(buildDir, "validate")
		cmd := exec.Command("go", "build", "-C", repoPath(t, "deploy/validate"), "-o", out, ".")
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build -C deploy/validate: %w\n%s", err, b)
		}
		return out, nil
	})
}

// validateManifests runs the validator on YAML documents and fails the test
// with its messages unless every document is a valid Kubernetes or
// Prometheus Operator object.
func validateManifests(t testing.TB, what string, yamlDocs []byte) {
	t.Helper()
	cmd := exec.Command(validator(t), "-")
	cmd.Stdin = bytes.NewReader(yamlDocs)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("%s fails schema validation (deploy/validate): %v\n%s", what, err, stderr.String())
		return
	}
	t.Logf("%s: %s", what, strings.TrimSpace(string(out)))
}

// The kustomize manifests, every resource of the kustomization, are valid
// objects of their kinds.
func TestKubernetesSchemas(t *testing.T) {
	kust := yamlDocs(t, repoPath(t, k8sDir+"/kustomization.yaml"))[0]
	for _, r := range stringList(getList(kust, "resources")) {
		validateManifests(t, k8sDir+"/"+r, readFile(t, repoPath(t, k8sDir+"/"+r)))
	}
}
