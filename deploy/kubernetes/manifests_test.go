package kubernetes

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// rendered is what `kubectl kustomize deploy/kubernetes` renders, each
// object decoded strictly into the Kubernetes API's own Go types, and the
// configuration file the ConfigMap carries.
type rendered struct {
	configMap corev1.ConfigMap
	pvc       corev1.PersistentVolumeClaim
	job       batchv1.Job
	// config is config.yaml's settings, by key.
	config map[string]any
}

// render runs kustomize (the library kubectl embeds) on this folder, with
// no network and no cluster, and decodes every object it renders into
// k8s.io/api's types with unknown fields refused and every field's type
// checked, as `kubectl apply --validate=strict` would. Names and labels are
// checked with the API server's own validation functions.
func render(t *testing.T) rendered {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize: %v", err)
	}
	var r rendered
	kinds := map[string]int{}
	for _, obj := range res.Resources() {
		b, err := obj.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		kind := obj.GetKind()
		kinds[kind]++
		var target any
		var want string
		switch kind {
		case "ConfigMap":
			target, want = &r.configMap, "v1"
		case "PersistentVolumeClaim":
			target, want = &r.pvc, "v1"
		case "Job":
			target, want = &r.job, "batch/v1"
		default:
			t.Errorf("unexpected kind %s", kind)
			continue
		}
		if got := obj.GetApiVersion(); got != want {
			t.Errorf("%s apiVersion %q, want %q", kind, got, want)
		}
		if err := k8syaml.UnmarshalStrict(b, target); err != nil {
			t.Fatalf("%s does not validate against the Kubernetes API: %v\n%s", kind, err, b)
		}
	}
	for _, k := range []string{"ConfigMap", "PersistentVolumeClaim", "Job"} {
		if kinds[k] != 1 {
			t.Errorf("%d objects of kind %s rendered, want 1", kinds[k], k)
		}
	}
	for _, m := range []struct {
		what string
		meta interface {
			GetName() string
			GetLabels() map[string]string
			GetAnnotations() map[string]string
		}
	}{{"ConfigMap", &r.configMap}, {"PVC", &r.pvc}, {"Job", &r.job}, {"Job template", &r.job.Spec.Template}} {
		name := m.meta.GetName()
		if m.what != "Job template" {
			if errs := validation.IsDNS1123Subdomain(name); name == "" || len(errs) > 0 {
				t.Errorf("%s name %q: %v", m.what, name, errs)
			}
		}
		for k, v := range m.meta.GetLabels() {
			if errs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(errs) > 0 {
				t.Errorf("%s label %s=%q: %v", m.what, k, v, errs)
			}
		}
		for k := range m.meta.GetAnnotations() {
			if errs := validation.IsQualifiedName(k); len(errs) > 0 {
				t.Errorf("%s annotation %s: %v", m.what, k, errs)
			}
		}
	}
	if len(r.job.Name) > 63 {
		t.Errorf("Job name %q is longer than 63 characters (its pods' job-name label)", r.job.Name)
	}
	text, ok := r.configMap.Data["config.yaml"]
	if !ok || len(r.configMap.Data) != 1 {
		t.Fatalf("ConfigMap keys %v: want one, config.yaml", slices.Sorted(mapKeys(r.configMap.Data)))
	}
	if err := yaml.Unmarshal([]byte(text), &r.config); err != nil {
		t.Fatalf("config.yaml: %v", err)
	}
	return r
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// setting is config.yaml's value of key as text ("" when absent).
func (r rendered) setting(key string) string {
	v, ok := r.config[key]
	if !ok || v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// container is the Job's one container.
func (r rendered) container(t *testing.T) corev1.Container {
	t.Helper()
	cs := r.job.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("%d containers, want 1", len(cs))
	}
	return cs[0]
}

// flagValue returns the value of --name=value in args.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestJobShape(t *testing.T) {
	r := render(t)
	s := r.job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed (shards, docs/cli.md#distributed-runs)", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != 1 || *s.Parallelism != 1 {
		t.Errorf("completions/parallelism must be 1 by default")
	}
	if s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Errorf("backoffLimit must be 0: a retry would reuse the run id")
	}
	if got := s.Template.Spec.RestartPolicy; got != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never", got)
	}
	c := r.container(t)
	if len(c.Args) == 0 || c.Args[0] != "sweep" {
		t.Errorf("args %v: want the sweep subcommand first", c.Args)
	}
	if c.Name == "" || c.Image == "" {
		t.Errorf("container name %q, image %q: both required", c.Name, c.Image)
	}
	if tag := c.Image[strings.LastIndex(c.Image, ":")+1:]; tag != r.job.Labels["app.kubernetes.io/version"] {
		t.Errorf("image tag %q differs from app.kubernetes.io/version %q", tag, r.job.Labels["app.kubernetes.io/version"])
	}
	if _, ok := c.Resources.Limits[corev1.ResourceCPU]; ok {
		t.Errorf("cpu limit: CFS throttling would read as client lag; request CPU, do not limit it")
	}
	if len(s.Template.Spec.InitContainers) != 0 {
		t.Errorf("%d init containers: the sweep's warmup-phase warms the server up", len(s.Template.Spec.InitContainers))
	}
}

// TestOneConfigFile: the sweep's settings are one configuration file, read
// with --config from the mounted ConfigMap; args hold nothing else but the
// run id and the Job's name.
func TestOneConfigFile(t *testing.T) {
	r := render(t)
	c := r.container(t)
	cfg, ok := flagValue(c.Args, "--config")
	if !ok {
		t.Fatalf("args %v lack --config", c.Args)
	}
	var mounted bool
	for _, vm := range c.VolumeMounts {
		if vm.MountPath == path.Dir(cfg) {
			mounted = true
			for _, v := range r.job.Spec.Template.Spec.Volumes {
				if v.Name == vm.Name && (v.ConfigMap == nil || v.ConfigMap.Name != r.configMap.Name) {
					t.Errorf("%s is mounted from volume %s, not the ConfigMap %s", path.Dir(cfg), v.Name, r.configMap.Name)
				}
			}
		}
	}
	if !mounted || path.Base(cfg) != "config.yaml" {
		t.Errorf("--config=%s: want config.yaml in a mount of the ConfigMap", cfg)
	}
	for _, a := range c.Args[1:] {
		name, _, _ := strings.Cut(a, "=")
		if !slices.Contains([]string{"--config", "--run-id", "--label"}, name) {
			t.Errorf("arg %q: settings belong in config.yaml", a)
		}
	}
	if _, ok := r.config["run-id"]; ok {
		t.Errorf("config.yaml sets run-id: the run id is written once, in job.yaml's label")
	}
}

// TestRunIDWrittenOnce: the run id appears once in the manifests (the
// Job's label); the Job's name, its pods' label and --run-id come from it.
func TestRunIDWrittenOnce(t *testing.T) {
	r := render(t)
	id := r.job.Labels["gollm-bench.io/run-id"]
	if id == "" {
		t.Fatal("the Job has no gollm-bench.io/run-id label")
	}
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n += strings.Count(strings.ToLower(string(b)), strings.ToLower(id))
	}
	if n != 1 {
		t.Errorf("the run id %s is written %d times in the manifests, want once", id, n)
	}
	if want := "gollm-bench-" + id; r.job.Name != want {
		t.Errorf("Job name %q, want %q", r.job.Name, want)
	}
	if got := r.job.Spec.Template.Labels["gollm-bench.io/run-id"]; got != id {
		t.Errorf("pod label run-id %q, want %q", got, id)
	}
	c := r.container(t)
	if v, _ := flagValue(c.Args, "--run-id"); v != "$(RUN_ID)" {
		t.Errorf("--run-id=%s, want $(RUN_ID)", v)
	}
	for _, e := range c.Env {
		if e.Name == "RUN_ID" && (e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "metadata.labels['gollm-bench.io/run-id']") {
			t.Errorf("RUN_ID is not read from the pod's run-id label: %+v", e)
		}
	}
}

// TestConfigCarriesMandatoryMetadata: every mandatory scorecard field that
// a setting declares is set, in config.yaml or (the run id) in args.
func TestConfigCarriesMandatoryMetadata(t *testing.T) {
	r := render(t)
	c := r.container(t)
	for _, f := range scorecard.MandatoryFields() {
		if f.Setting == "" {
			continue // filled in by the tool
		}
		if _, ok := flagValue(c.Args, "--"+f.Setting); ok {
			continue
		}
		if r.setting(f.Setting) == "" {
			t.Errorf("mandatory %s: config.yaml's %s is empty or missing: the scorecard would be an anecdote", f.Key, f.Setting)
		}
	}
	if u, err := url.Parse(r.setting("target")); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		t.Errorf("target %q: want an http(s) base URL without credentials", r.setting("target"))
	}
	if _, ok := r.config["api-key"]; ok {
		t.Error("config.yaml holds api-key: the API key comes from the Secret, as OPENAI_API_KEY")
	}
}

// TestEnvReferences: every $(VAR) in args is defined by env; a field
// reference reads a label the pod has; the API key's Secret is optional.
func TestEnvReferences(t *testing.T) {
	r := render(t)
	c := r.container(t)
	defined := map[string]bool{"JOB_COMPLETION_INDEX": true}     // set by Kubernetes in Indexed mode
	set := map[string]bool{"batch.kubernetes.io/job-name": true} // set by the Job controller
	for k := range r.job.Spec.Template.Labels {
		set[k] = true
	}
	label := regexp.MustCompile(`^metadata\.labels\['([^']+)'\]$`)
	for _, e := range c.Env {
		if defined[e.Name] {
			t.Errorf("env %s defined twice", e.Name)
		}
		defined[e.Name] = true
		if e.ValueFrom == nil {
			continue
		}
		if f := e.ValueFrom.FieldRef; f != nil {
			if m := label.FindStringSubmatch(f.FieldPath); m == nil || !set[m[1]] {
				t.Errorf("env %s: fieldRef %q reads no label of the pod", e.Name, f.FieldPath)
			}
		}
		if s := e.ValueFrom.SecretKeyRef; s != nil && (s.Optional == nil || !*s.Optional) {
			t.Errorf("env %s: the Secret %s must be optional (a run without an API key is valid)", e.Name, s.Name)
		}
	}
	ref := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
	for _, a := range c.Args {
		for _, m := range ref.FindAllStringSubmatch(a, -1) {
			if !defined[m[1]] {
				t.Errorf("arg %q references $(%s), which env does not define", a, m[1])
			}
		}
		if strings.Contains(strings.ToLower(a), "api-key") {
			t.Errorf("arg %q: the API key must come from the environment, never from args", a)
		}
	}
}

// sanitize turns a metadata value into a label value the way the manifests
// do: comparison operators and separators spelt out, other characters
// outside [A-Za-z0-9-_.] replaced by '-', ends trimmed to alphanumerics.
func sanitize(v string) string {
	v = strings.NewReplacer("<=", "-le-", ">=", "-ge-", "<", "-lt-", ">", "-gt-", "%", "pct", ",", ".").Replace(v)
	v = regexp.MustCompile(`[^A-Za-z0-9_.-]`).ReplaceAllString(v, "-")
	if len(v) > 63 {
		v = v[:63]
	}
	return strings.TrimFunc(v, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

// TestLabels: the Job's labels carry the twelve mandatory metadata,
// agreeing with config.yaml, and the pods carry the Job's labels.
func TestLabels(t *testing.T) {
	r := render(t)
	job, tmpl := r.job.ObjectMeta, r.job.Spec.Template.ObjectMeta
	if !mapsEqual(job.Labels, tmpl.Labels) || !mapsEqual(job.Annotations, tmpl.Annotations) {
		t.Errorf("Job and pod template labels/annotations differ:\njob  %v %v\npod  %v %v", job.Labels, job.Annotations, tmpl.Labels, tmpl.Annotations)
	}
	isl, osl := dataLengths(t, r.setting("data"))
	want := map[string]string{
		"gollm-bench.io/run-id":          job.Labels["gollm-bench.io/run-id"],
		"gollm-bench.io/engine":          sanitize(r.setting("engine")),
		"gollm-bench.io/model-revision":  sanitize(r.setting("model-revision")),
		"gollm-bench.io/precision":       sanitize(r.setting("model-precision")),
		"gollm-bench.io/tokenizer":       sanitize(r.setting("tokenizer")),
		"gollm-bench.io/isl":             isl,
		"gollm-bench.io/osl":             osl,
		"gollm-bench.io/hardware":        sanitize(r.setting("hardware")),
		"gollm-bench.io/max-concurrency": sanitize(r.setting("max-concurrency")),
		"gollm-bench.io/slo":             sanitize(r.setting("slo")),
		"gollm-bench.io/warmup":          sanitize(r.setting("warmup")),
		"app.kubernetes.io/version":      job.Labels["app.kubernetes.io/version"],
	}
	for k, v := range want {
		if v == "" {
			t.Errorf("label %s: empty", k)
		}
		if got := job.Labels[k]; got != v {
			t.Errorf("label %s=%q, want %q (from config.yaml)", k, got, v)
		}
	}
	for _, k := range []string{"slo", "tokenizer"} {
		ann := "gollm-bench.io/" + k
		if job.Annotations[ann] != r.setting(k) {
			t.Errorf("annotation %s=%q, want config.yaml's raw %q", ann, job.Annotations[ann], r.setting(k))
		}
	}
}

// dataLengths reads prompt_tokens and output_tokens from a --data spec.
func dataLengths(t *testing.T, spec string) (isl, osl string) {
	t.Helper()
	for kv := range strings.SplitSeq(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "prompt_tokens":
			isl = v
		case "output_tokens":
			osl = v
		}
	}
	if isl == "" || osl == "" {
		t.Errorf("data %q lacks prompt_tokens or output_tokens (ISL and OSL are mandatory)", spec)
	}
	return isl, osl
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestVolumesReachThePVC(t *testing.T) {
	r := render(t)
	spec := r.job.Spec.Template.Spec
	claims := map[string]string{} // volume name -> claim ("" for others)
	for _, v := range spec.Volumes {
		claims[v.Name] = ""
		if v.PersistentVolumeClaim != nil {
			claims[v.Name] = v.PersistentVolumeClaim.ClaimName
		}
	}
	out := r.setting("output-dir")
	var resultsMounted bool
	for _, vm := range r.container(t).VolumeMounts {
		claim, ok := claims[vm.Name]
		if !ok {
			t.Errorf("volumeMount %s references no volume", vm.Name)
		}
		if vm.MountPath == out {
			resultsMounted = true
			if claim != r.pvc.Name || vm.ReadOnly {
				t.Errorf("output-dir %s is on volume %s (claim %q, read-only %v), want the PVC %q read-write", out, vm.Name, claim, vm.ReadOnly, r.pvc.Name)
			}
		}
	}
	if !resultsMounted {
		t.Errorf("output-dir %q is not a volume mount", out)
	}
	if tok := r.setting("tokenizer"); !strings.HasPrefix(tok, out+"/") {
		t.Errorf("tokenizer %q is not on the results volume %s", tok, out)
	}
	if len(r.pvc.Spec.AccessModes) == 0 || r.pvc.Spec.Resources.Requests.Storage().IsZero() {
		t.Errorf("PVC needs accessModes and a storage request: %+v", r.pvc.Spec)
	}
}

// TestJobWarmsUpWithThePhase: the Job warms the server up with the sweep's
// own run-level phase, held until GPU power settles.
func TestJobWarmsUpWithThePhase(t *testing.T) {
	r := render(t)
	ph, err := harness.ParseWarmupPhase(r.setting("warmup-phase"))
	if err != nil {
		t.Errorf("warmup-phase: %v", err)
	} else if ph.Profile.Concurrency != 4 || ph.Duration != time.Minute {
		t.Errorf("warmup-phase %q: want 60 s at concurrency 4", r.setting("warmup-phase"))
	}
	if r.setting("stabilize") == "" || r.setting("energy") == "" {
		t.Errorf("stabilize %q needs energy %q", r.setting("stabilize"), r.setting("energy"))
	}
}
