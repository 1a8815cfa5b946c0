package main

import (
	"strings"
	"testing"
)

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: kbe
  labels: {app: kbe}
spec:
  replicas: 1
  selector:
    matchLabels: {app: kbe}
  template:
    metadata:
      labels: {app: kbe}
    spec:
      containers:
        - name: exporter
          image: example/kbe:1
          ports: [{name: http-metrics, containerPort: 10092}]
          readinessProbe: {httpGet: {path: /-/ready, port: http-metrics}}
          resources: {requests: {memory: 128Mi}, limits: {memory: 256Mi}}
          volumeMounts: [{name: config, mountPath: /etc/kbe}]
      volumes:
        - name: config
          configMap: {name: kbe-config}
`

func TestValid(t *testing.T) {
	in := "# a comment\n---\n" + deployment + `---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: kbe}
spec:
  selector: {matchLabels: {app: kbe}}
  endpoints: [{port: http-metrics, interval: 15s}]
`
	objs, errs := Validate(strings.NewReader(in))
	if len(errs) > 0 {
		t.Fatalf("valid manifests rejected: %v", errs)
	}
	if len(objs) != 2 || objs[0].Kind != "Deployment" || objs[1].Kind != "ServiceMonitor" || objs[1].Doc != 2 {
		t.Errorf("objects %+v, want the Deployment and the ServiceMonitor as documents 1 and 2", objs)
	}
}

// Each edit of the valid Deployment makes one error that names the field.
func TestInvalid(t *testing.T) {
	checkEdits(t, deployment, []edit{
		{"unknown field", "  replicas: 1\n", "  replicas: 1\n  replica: 1\n", `unknown field "spec.replica"`},
		{"wrong type", "replicas: 1", "replicas: one", "spec.replicas"},
		{"case mismatch", "replicas: 1", "Replicas: 1", `unknown field "spec.Replicas"`},
		{"duplicate key", "  replicas: 1\n", "  replicas: 1\n  replicas: 2\n", `"replicas" already set`},
		{"unknown kind", "kind: Deployment", "kind: Deploymnet", `kind "Deploymnet": not a known`},
		{"selector mismatch", "labels: {app: kbe}\n    spec:", "labels: {app: other}\n    spec:", "`selector` does not match template `labels`"},
		{"missing volume", "mountPath: /etc/kbe", "mountPath: /etc/kbe}, {name: cfg, mountPath: /x", `volumeMounts[1].name: Not found: "cfg"`},
		{"probe port", "port: http-metrics}", "port: metrics}", `readinessProbe.port: Not found: "metrics"`},
		{"request above limit", "memory: 128Mi}", "memory: 512Mi}", "requests[memory]"},
		{"bad name", "name: kbe\n", "name: KBE_x\n", "metadata.name"},
		{"no image", "image: example/kbe:1", `image: ""`, "image: Required value"},
		{"port name", "name: http-metrics,", "name: http-metrics-too-long,", "ports[0].name"},
	})
}

// edit is one change of a valid manifest and the error it must cause.
type edit struct{ name, old, new, want string }

// checkEdits validates base with each edit applied and wants an error that
// contains want and names the document.
func checkEdits(t *testing.T, base string, edits []edit) {
	t.Helper()
	for _, c := range edits {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Replace(base, c.old, c.new, 1)
			if in == base {
				t.Fatalf("%q is not in the manifest", c.old)
			}
			_, errs := Validate(strings.NewReader(in))
			if len(errs) == 0 {
				t.Fatalf("accepted:\n%s", in)
			}
			var found bool
			for _, e := range errs {
				found = found || strings.Contains(e.Error(), c.want)
			}
			if !found {
				t.Errorf("errors %v, want one containing %q", errs, c.want)
			}
			if !strings.HasPrefix(errs[0].Error(), "document 1 (") {
				t.Errorf("error %q does not name the document", errs[0])
			}
		})
	}
}

func TestInvalidMonitoring(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: kbe}\nspec:\n  selector: {matchLabels: {app: kbe}}\n  endpoints: [{port: m, intervall: 15s}]\n", `unknown field "spec.endpoints[0].intervall"`},
		{"apiVersion: monitoring.coreos.com/v1\nkind: PodMonitor\nmetadata: {name: kbe}\nspec:\n  selector: {}\n  podMetricsEndpoints: [{port: m}]\n", "spec.selector: Required value"},
		{"apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata: {name: kbe}\nspec:\n  groups: [{name: g, rules: [{alert: A, record: b, expr: up}]}]\n", "exactly one of alert and record"},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kbe}\ndata: {\"a/b\": x}\n", "data[a/b]"},
	} {
		_, errs := Validate(strings.NewReader(c.in))
		var found bool
		for _, e := range errs {
			found = found || strings.Contains(e.Error(), c.want)
		}
		if !found {
			t.Errorf("errors %v, want one containing %q, for:\n%s", errs, c.want, c.in)
		}
	}
}

func TestNamespace(t *testing.T) {
	for _, ns := range []string{"", "  namespace: monitoring\n"} {
		in := strings.Replace(deployment, "  name: kbe\n", "  name: kbe\n"+ns, 1)
		if _, errs := Validate(strings.NewReader(in)); len(errs) > 0 {
			t.Errorf("namespace %q: %v", ns, errs)
		}
	}
	in := strings.Replace(deployment, "  name: kbe\n", "  name: kbe\n  namespace: Monitoring_1\n", 1)
	if _, errs := Validate(strings.NewReader(in)); len(errs) != 1 || !strings.Contains(errs[0].Error(), "metadata.namespace") {
		t.Errorf("invalid namespace: errors %v, want one naming metadata.namespace", errs)
	}
}

const indexedJob = `apiVersion: batch/v1
kind: Job
metadata: {name: kbe-workers}
spec:
  completionMode: Indexed
  completions: 3
  parallelism: 3
  backoffLimitPerIndex: 0
  template:
    metadata:
      labels: {app: kbe}
    spec:
      restartPolicy: Never
      containers:
        - name: worker
          image: example/kbe:1
          envFrom: [{configMapRef: {name: kbe-run}}]
`

// Each edit of the valid Indexed Job makes an error that names the field.
func TestJob(t *testing.T) {
	if _, errs := Validate(strings.NewReader(indexedJob)); len(errs) > 0 {
		t.Fatalf("valid Job rejected: %v", errs)
	}
	checkEdits(t, indexedJob, []edit{
		{"unknown field", "  parallelism: 3\n", "  parallelism: 3\n  paralelism: 3\n", `unknown field "spec.paralelism"`},
		{"restart policy", "restartPolicy: Never", "restartPolicy: Always", "spec.template.spec.restartPolicy: Unsupported value"},
		{"indexed without completions", "  completions: 3\n", "", "spec.completions: Required value"},
		{"per-index backoff without Indexed", "completionMode: Indexed", "completionMode: NonIndexed", "spec.backoffLimitPerIndex: Forbidden: requires completionMode Indexed"},
		{"per-index backoff with OnFailure", "restartPolicy: Never", "restartPolicy: OnFailure", "spec.backoffLimitPerIndex: Forbidden: requires restartPolicy Never"},
		{"completion mode", "completionMode: Indexed", "completionMode: Indexd", "spec.completionMode: Unsupported value"},
		{"negative parallelism", "parallelism: 3", "parallelism: -1", "spec.parallelism"},
		{"selector", "  template:\n", "  selector: {matchLabels: {app: kbe}}\n  template:\n", "spec.selector: Invalid value"},
		{"envFrom without a name", "configMapRef: {name: kbe-run}", "configMapRef: {}", "envFrom[0].configMapRef.name: Required value"},
	})
}
