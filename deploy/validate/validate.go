package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// scheme knows every kind the project's manifests may hold; any other
// apiVersion/kind is an error, so a misspelt kind cannot pass.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, monitoringv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// Object is one decoded document.
type Object struct {
	Doc  int // 1-based position in its stream
	Kind string
	Name string
	Obj  runtime.Object
}

// Validate decodes every YAML document of r strictly into its Kubernetes
// type and checks what the API server would reject; it returns the objects
// and one error per problem, each naming the document and the field.
func Validate(r io.Reader) ([]Object, []error) {
	var objs []Object
	var errs []error
	rd := utilyaml.NewYAMLReader(bufio.NewReader(r))
	for doc := 1; ; doc++ {
		b, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return objs, append(errs, fmt.Errorf("document %d: %w", doc, err))
		}
		if len(bytes.TrimSpace(stripComments(b))) == 0 {
			doc--
			continue
		}
		o, problems := validateDoc(b)
		o.Doc = doc
		for _, p := range problems {
			msg := strings.Join(strings.Fields(p.Error()), " ")
			errs = append(errs, fmt.Errorf("document %d (%s %s): %s", doc, o.Kind, o.Name, msg))
		}
		if o.Obj != nil {
			objs = append(objs, o)
		}
	}
	return objs, errs
}

var commentLine = regexp.MustCompile(`(?m)^\s*#.*$`)

func stripComments(b []byte) []byte { return commentLine.ReplaceAll(b, nil) }

func validateDoc(b []byte) (Object, []error) {
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		return Object{}, []error{err}
	}
	var tm struct {
		metav1.TypeMeta
		Metadata struct{ Name string }
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(j, &tm); err != nil {
		return Object{}, []error{err}
	}
	o := Object{Kind: tm.Kind, Name: tm.Metadata.Name}
	// YAMLToJSONStrict rejects duplicate keys.
	if j, err = yaml.YAMLToJSONStrict(b); err != nil {
		return o, []error{err}
	}
	gv, err := schema.ParseGroupVersion(tm.APIVersion)
	if err != nil {
		return o, []error{fmt.Errorf("apiVersion %q: %w", tm.APIVersion, err)}
	}
	obj, err := scheme.New(gv.WithKind(tm.Kind))
	if err != nil {
		return o, []error{fmt.Errorf("apiVersion %q kind %q: not a known Kubernetes or Prometheus Operator type", tm.APIVersion, tm.Kind)}
	}
	// Unknown fields, duplicate fields, wrong types and case mismatches
	// ("Replicas") are all errors, as with kubectl's strict field validation.
	strict, err := kjson.UnmarshalStrict(j, obj)
	if err != nil {
		return o, []error{err}
	}
	errs := append([]error(nil), strict...)
	o.Obj = obj
	if m, ok := obj.(metav1.Object); ok {
		o.Name = m.GetName()
	}
	for _, e := range check(obj) {
		errs = append(errs, e)
	}
	return o, errs
}

// check is the subset of the API server's validation that manifests written
// by hand or by a template get wrong: names, labels, references between
// fields, selectors.
func check(obj runtime.Object) field.ErrorList {
	meta := field.NewPath("metadata")
	var errs field.ErrorList
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		errs = append(errs, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain)...)
		size := 0
		for k, v := range o.Data {
			for _, msg := range validation.IsConfigMapKey(k) {
				errs = append(errs, field.Invalid(field.NewPath("data").Key(k), k, msg))
			}
			size += len(k) + len(v)
		}
		if size > corev1.MaxSecretSize {
			errs = append(errs, field.TooLong(field.NewPath("data"), "", corev1.MaxSecretSize))
		}
	case *corev1.Service:
		errs = append(errs, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNS1035Label)...)
		spec := field.NewPath("spec")
		if len(o.Spec.Ports) == 0 {
			errs = append(errs, field.Required(spec.Child("ports"), ""))
		}
		for i, p := range o.Spec.Ports {
			pp := spec.Child("ports").Index(i)
			errs = append(errs, portName(pp.Child("name"), p.Name, len(o.Spec.Ports) > 1)...)
			errs = append(errs, portNumber(pp.Child("port"), p.Port)...)
		}
		errs = append(errs, labelMap(spec.Child("selector"), o.Spec.Selector)...)
	case *appsv1.Deployment:
		errs = append(errs, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain)...)
		errs = append(errs, workload(field.NewPath("spec"), o.Spec.Selector, &o.Spec.Template)...)
	case *appsv1.DaemonSet:
		errs = append(errs, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain)...)
		errs = append(errs, workload(field.NewPath("spec"), o.Spec.Selector, &o.Spec.Template)...)
	case *batchv1.Job:
		errs = append(errs, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain)...)
		errs = append(errs, job(field.NewPath("spec"), &o.Spec)...)
	case *monitoringv1.ServiceMonitor:
		errs = append(errs, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain)...)
		errs = append(errs, monitor(&o.Spec.Selector, field.NewPath("spec", "endpoints"), o.Spec.Endpoints,
			func(ep monitoringv1.Endpoint) [2]monitoringv1.Duration {
				return [2]monitoringv1.Duration{ep.Interval, ep.ScrapeTimeout}
			})...)
	case *monitoringv1.PodMonitor:
		errs = append(errs, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain)...)
		errs = append(errs, monitor(&o.Spec.Selector, field.NewPath("spec", "podMetricsEndpoints"), o.Spec.PodMetricsEndpoints,
			func(ep monitoringv1.PodMetricsEndpoint) [2]monitoringv1.Duration {
				return [2]monitoringv1.Duration{ep.Interval, ep.ScrapeTimeout}
			})...)
	case *monitoringv1.PrometheusRule:
		errs = append(errs, objectMeta(&o.ObjectMeta, apivalidation.NameIsDNSSubdomain)...)
		groups := field.NewPath("spec", "groups")
		for i, g := range o.Spec.Groups {
			if g.Name == "" {
				errs = append(errs, field.Required(groups.Index(i).Child("name"), ""))
			}
			for j, r := range g.Rules {
				rp := groups.Index(i).Child("rules").Index(j)
				if (r.Alert == "") == (r.Record == "") {
					errs = append(errs, field.Invalid(rp, r.Alert+r.Record, "exactly one of alert and record"))
				}
				if r.Expr.String() == "" {
					errs = append(errs, field.Required(rp.Child("expr"), ""))
				}
			}
		}
	default:
		if m, ok := obj.(metav1.Object); ok && m.GetName() == "" {
			errs = append(errs, field.Required(meta.Child("name"), ""))
		}
	}
	return errs
}

// objectMeta checks the name, labels and annotations. Every kind here is
// namespaced; a manifest may leave the namespace to kubectl -n.
func objectMeta(m *metav1.ObjectMeta, name apivalidation.ValidateNameFunc) field.ErrorList {
	return apivalidation.ValidateObjectMeta(m, m.Namespace != "", name, field.NewPath("metadata"))
}

// workload checks a Deployment's or DaemonSet's selector against its pod
// template, and the pod spec.
func workload(spec *field.Path, sel *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec) field.ErrorList {
	var errs field.ErrorList
	if sel == nil {
		return append(errs, field.Required(spec.Child("selector"), ""))
	}
	errs = append(errs, selector(spec.Child("selector"), sel)...)
	errs = append(errs, labelMap(spec.Child("template", "metadata", "labels"), tmpl.Labels)...)
	if s, err := metav1.LabelSelectorAsSelector(sel); err == nil && !s.Matches(labels.Set(tmpl.Labels)) {
		errs = append(errs, field.Invalid(spec.Child("template", "metadata", "labels"), tmpl.Labels, "`selector` does not match template `labels`"))
	}
	return append(errs, podSpec(spec.Child("template", "spec"), &tmpl.Spec)...)
}

// job checks what the API server requires of a Job the manifests use: a
// pod template without a selector of its own (the Job controller makes it),
// a restart policy of Never or OnFailure, and for an Indexed Job the
// completions that number its indexes; backoffLimitPerIndex needs both
// Indexed and Never.
func job(spec *field.Path, s *batchv1.JobSpec) field.ErrorList {
	var errs field.ErrorList
	if s.Selector != nil && (s.ManualSelector == nil || !*s.ManualSelector) {
		errs = append(errs, field.Invalid(spec.Child("selector"), s.Selector, "set by the Job controller unless manualSelector is true"))
	}
	errs = append(errs, labelMap(spec.Child("template", "metadata", "labels"), s.Template.Labels)...)
	rp := s.Template.Spec.RestartPolicy
	if rp != corev1.RestartPolicyNever && rp != corev1.RestartPolicyOnFailure {
		errs = append(errs, field.NotSupported(spec.Child("template", "spec", "restartPolicy"), rp, []string{string(corev1.RestartPolicyNever), string(corev1.RestartPolicyOnFailure)}))
	}
	for name, n := range map[string]*int32{"completions": s.Completions, "parallelism": s.Parallelism, "backoffLimit": s.BackoffLimit, "backoffLimitPerIndex": s.BackoffLimitPerIndex} {
		if n != nil && *n < 0 {
			errs = append(errs, field.Invalid(spec.Child(name), *n, "must be greater than or equal to 0"))
		}
	}
	indexed := s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion
	if s.CompletionMode != nil && !indexed && *s.CompletionMode != batchv1.NonIndexedCompletion {
		errs = append(errs, field.NotSupported(spec.Child("completionMode"), *s.CompletionMode, []string{string(batchv1.NonIndexedCompletion), string(batchv1.IndexedCompletion)}))
	}
	if indexed && s.Completions == nil {
		errs = append(errs, field.Required(spec.Child("completions"), "when completionMode is Indexed"))
	}
	if s.BackoffLimitPerIndex != nil {
		if !indexed {
			errs = append(errs, field.Forbidden(spec.Child("backoffLimitPerIndex"), "requires completionMode Indexed"))
		}
		if rp != corev1.RestartPolicyNever {
			errs = append(errs, field.Forbidden(spec.Child("backoffLimitPerIndex"), "requires restartPolicy Never"))
		}
	}
	return append(errs, podSpec(spec.Child("template", "spec"), &s.Template.Spec)...)
}

func podSpec(p *field.Path, spec *corev1.PodSpec) field.ErrorList {
	var errs field.ErrorList
	volumes := map[string]bool{}
	for i, v := range spec.Volumes {
		vp := p.Child("volumes").Index(i)
		errs = append(errs, dnsLabel(vp.Child("name"), v.Name)...)
		if volumes[v.Name] {
			errs = append(errs, field.Duplicate(vp.Child("name"), v.Name))
		}
		volumes[v.Name] = true
		if v.ConfigMap != nil && v.ConfigMap.Name == "" {
			errs = append(errs, field.Required(vp.Child("configMap", "name"), ""))
		}
		if v.Secret != nil && v.Secret.SecretName == "" {
			errs = append(errs, field.Required(vp.Child("secret", "secretName"), ""))
		}
	}
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(p.Child("containers"), ""))
	}
	for i, c := range spec.Containers {
		cp := p.Child("containers").Index(i)
		errs = append(errs, dnsLabel(cp.Child("name"), c.Name)...)
		if strings.TrimSpace(c.Image) == "" {
			errs = append(errs, field.Required(cp.Child("image"), ""))
		}
		ports := map[string]bool{}
		for j, port := range c.Ports {
			pp := cp.Child("ports").Index(j)
			errs = append(errs, portNumber(pp.Child("containerPort"), port.ContainerPort)...)
			if port.Name != "" {
				errs = append(errs, portName(pp.Child("name"), port.Name, true)...)
				ports[port.Name] = true
			}
			if spec.HostNetwork && port.HostPort != 0 && port.HostPort != port.ContainerPort {
				errs = append(errs, field.Invalid(pp.Child("hostPort"), port.HostPort, "must match containerPort when hostNetwork is true"))
			}
		}
		for _, pr := range []struct {
			name  string
			probe *corev1.Probe
		}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}} {
			if pr.probe == nil {
				continue
			}
			var port *intOrName
			switch {
			case pr.probe.HTTPGet != nil:
				port = &intOrName{pr.probe.HTTPGet.Port.StrVal, pr.probe.HTTPGet.Port.IntVal}
			case pr.probe.TCPSocket != nil:
				port = &intOrName{pr.probe.TCPSocket.Port.StrVal, pr.probe.TCPSocket.Port.IntVal}
			default:
				if pr.probe.Exec == nil && pr.probe.GRPC == nil {
					errs = append(errs, field.Required(cp.Child(pr.name), "must specify a handler type"))
				}
			}
			if port != nil && port.name != "" && !ports[port.name] {
				errs = append(errs, field.NotFound(cp.Child(pr.name, "port"), port.name))
			}
			if port != nil && port.name == "" {
				errs = append(errs, portNumber(cp.Child(pr.name, "port"), port.num)...)
			}
		}
		for j, vm := range c.VolumeMounts {
			if !volumes[vm.Name] {
				errs = append(errs, field.NotFound(cp.Child("volumeMounts").Index(j).Child("name"), vm.Name))
			}
			if !strings.HasPrefix(vm.MountPath, "/") {
				errs = append(errs, field.Invalid(cp.Child("volumeMounts").Index(j).Child("mountPath"), vm.MountPath, "must be absolute"))
			}
		}
		for j, e := range c.Env {
			for _, msg := range validation.IsEnvVarName(e.Name) {
				errs = append(errs, field.Invalid(cp.Child("env").Index(j).Child("name"), e.Name, msg))
			}
		}
		for j, e := range c.EnvFrom {
			if e.ConfigMapRef != nil && e.ConfigMapRef.Name == "" {
				errs = append(errs, field.Required(cp.Child("envFrom").Index(j).Child("configMapRef", "name"), ""))
			}
			if e.SecretRef != nil && e.SecretRef.Name == "" {
				errs = append(errs, field.Required(cp.Child("envFrom").Index(j).Child("secretRef", "name"), ""))
			}
		}
		for name, req := range c.Resources.Requests {
			if lim, ok := c.Resources.Limits[name]; ok && req.Cmp(lim) > 0 {
				errs = append(errs, field.Invalid(cp.Child("resources", "requests").Key(string(name)), req.String(), "must be less than or equal to the limit "+lim.String()))
			}
		}
	}
	return errs
}

type intOrName struct {
	name string
	num  int32
}

func selector(p *field.Path, sel *metav1.LabelSelector) field.ErrorList {
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return field.ErrorList{field.Required(p, "an empty selector selects everything")}
	}
	errs := labelMap(p.Child("matchLabels"), sel.MatchLabels)
	if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
		errs = append(errs, field.Invalid(p, sel, err.Error()))
	}
	return errs
}

func labelMap(p *field.Path, m map[string]string) field.ErrorList {
	var errs field.ErrorList
	for k, v := range m {
		for _, msg := range validation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(p.Key(k), v, msg))
		}
	}
	return errs
}

func dnsLabel(p *field.Path, s string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(s) {
		errs = append(errs, field.Invalid(p, s, msg))
	}
	return errs
}

func portName(p *field.Path, s string, required bool) field.ErrorList {
	if s == "" && !required {
		return nil
	}
	var errs field.ErrorList
	for _, msg := range validation.IsValidPortName(s) {
		errs = append(errs, field.Invalid(p, s, msg))
	}
	return errs
}

func portNumber(p *field.Path, n int32) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidPortNum(int(n)) {
		errs = append(errs, field.Invalid(p, n, msg))
	}
	return errs
}

// monitor checks a ServiceMonitor's or PodMonitor's selector and the
// interval and scrape timeout (timing) of each of its endpoints.
func monitor[E any](sel *metav1.LabelSelector, path *field.Path, eps []E, timing func(E) [2]monitoringv1.Duration) field.ErrorList {
	errs := selector(field.NewPath("spec", "selector"), sel)
	if len(eps) == 0 {
		errs = append(errs, field.Required(path, ""))
	}
	for i, ep := range eps {
		tm := timing(ep)
		errs = append(errs, scrapeTiming(path.Index(i), tm[0], tm[1])...)
	}
	return errs
}

// durationRE is the Operator's Duration pattern (its CRDs' OpenAPI schema).
var durationRE = regexp.MustCompile(`^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$`)

func scrapeTiming(p *field.Path, interval, timeout monitoringv1.Duration) field.ErrorList {
	var errs field.ErrorList
	for name, d := range map[string]monitoringv1.Duration{"interval": interval, "scrapeTimeout": timeout} {
		if d != "" && !durationRE.MatchString(string(d)) {
			errs = append(errs, field.Invalid(p.Child(name), d, "not a Prometheus duration"))
		}
	}
	return errs
}
