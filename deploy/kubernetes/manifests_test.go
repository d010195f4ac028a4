package kubernetes

import (
	"bytes"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gollm-bench/gollm-bench/harness"
	"github.com/gollm-bench/gollm-bench/scorecard"
)

// The subset of the Kubernetes API the manifests use. Decoding is strict
// (KnownFields), so a misspelt field fails the test as `kubectl apply
// --validate=strict` would.

type objectMeta struct {
	Name        string            `yaml:"name"`
	Namespace   string            `yaml:"namespace"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

type header struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
}

type configMap struct {
	header `yaml:",inline"`
	Data   map[string]string `yaml:"data"`
}

type pvc struct {
	header `yaml:",inline"`
	Spec   struct {
		AccessModes      []string `yaml:"accessModes"`
		StorageClassName *string  `yaml:"storageClassName"`
		Resources        struct {
			Requests map[string]string `yaml:"requests"`
		} `yaml:"resources"`
	} `yaml:"spec"`
}

type keyRef struct {
	Name     string `yaml:"name"`
	Key      string `yaml:"key"`
	Optional *bool  `yaml:"optional"`
}

type envVar struct {
	Name      string  `yaml:"name"`
	Value     *string `yaml:"value"`
	ValueFrom *struct {
		ConfigMapKeyRef *keyRef `yaml:"configMapKeyRef"`
		SecretKeyRef    *keyRef `yaml:"secretKeyRef"`
		FieldRef        *struct {
			FieldPath string `yaml:"fieldPath"`
		} `yaml:"fieldRef"`
	} `yaml:"valueFrom"`
}

type container struct {
	Name            string         `yaml:"name"`
	Image           string         `yaml:"image"`
	ImagePullPolicy string         `yaml:"imagePullPolicy"`
	Command         []string       `yaml:"command"`
	Args            []string       `yaml:"args"`
	Env             []envVar       `yaml:"env"`
	Resources       map[string]any `yaml:"resources"`
	SecurityContext map[string]any `yaml:"securityContext"`
	VolumeMounts    []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"volumeMounts"`
}

type job struct {
	header `yaml:",inline"`
	Spec   struct {
		CompletionMode          string `yaml:"completionMode"`
		Completions             *int   `yaml:"completions"`
		Parallelism             *int   `yaml:"parallelism"`
		BackoffLimit            *int   `yaml:"backoffLimit"`
		TTLSecondsAfterFinished *int   `yaml:"ttlSecondsAfterFinished"`
		Template                struct {
			Metadata objectMeta `yaml:"metadata"`
			Spec     struct {
				RestartPolicy   string         `yaml:"restartPolicy"`
				Affinity        map[string]any `yaml:"affinity"`
				SecurityContext map[string]any `yaml:"securityContext"`
				Containers      []container    `yaml:"containers"`
				InitContainers  []container    `yaml:"initContainers"`
				Volumes         []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
					EmptyDir map[string]any `yaml:"emptyDir"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type kustomization struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Namespace  string   `yaml:"namespace"`
	Resources  []string `yaml:"resources"`
}

// manifests are the parsed documents of every *.yaml file here.
type manifests struct {
	files         []string
	kustomization kustomization
	configMap     configMap
	pvc           pvc
	job           job
}

// strict decodes one YAML document into v, refusing unknown fields.
func strict(doc *yaml.Node, v any) error {
	b, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	err = dec.Decode(v)
	var te *yaml.TypeError
	if errors.As(err, &te) {
		// Drop yaml's " in type struct {...}" tails: the line and field suffice.
		msgs := make([]string, len(te.Errors))
		for i, e := range te.Errors {
			msgs[i], _, _ = strings.Cut(e, " in type ")
		}
		return errors.New(strings.Join(msgs, "; "))
	}
	return err
}

var (
	dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	labelValue       = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	labelName        = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	varRef           = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
)

func load(t *testing.T) manifests {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := manifests{files: files}
	kinds := map[string]int{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for i := 0; ; i++ {
			var doc yaml.Node
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: document %d: %v", file, i, err)
			}
			var h header
			if err := doc.Decode(&h); err != nil {
				t.Fatalf("%s: document %d: %v", file, i, err)
			}
			kinds[h.Kind]++
			var target any
			switch h.Kind {
			case "Kustomization":
				target = &m.kustomization
			case "ConfigMap":
				target = &m.configMap
			case "PersistentVolumeClaim":
				target = &m.pvc
			case "Job":
				target = &m.job
			default:
				t.Errorf("%s: document %d: unexpected kind %q", file, i, h.Kind)
				continue
			}
			if err := strict(&doc, target); err != nil {
				t.Fatalf("%s: %s: %v (a misspelt or unsupported field)", file, h.Kind, err)
			}
			if h.Kind == "Kustomization" {
				continue
			}
			if h.APIVersion == "" || h.Metadata.Name == "" {
				t.Errorf("%s: %s: apiVersion %q, metadata.name %q: both required", file, h.Kind, h.APIVersion, h.Metadata.Name)
			}
			if len(h.Metadata.Name) > 63 || !dns1123Subdomain.MatchString(h.Metadata.Name) {
				t.Errorf("%s: %s name %q is not a DNS-1123 name (lowercase, [-a-z0-9.], at most 63 for a Job)", file, h.Kind, h.Metadata.Name)
			}
		}
	}
	for _, k := range []string{"Kustomization", "ConfigMap", "PersistentVolumeClaim", "Job"} {
		if kinds[k] != 1 {
			t.Errorf("%d documents of kind %s, want 1", kinds[k], k)
		}
	}
	return m
}

func TestAPIVersions(t *testing.T) {
	m := load(t)
	for _, c := range []struct{ kind, got, want string }{
		{"Kustomization", m.kustomization.APIVersion, "kustomize.config.k8s.io/v1beta1"},
		{"ConfigMap", m.configMap.APIVersion, "v1"},
		{"PersistentVolumeClaim", m.pvc.APIVersion, "v1"},
		{"Job", m.job.APIVersion, "batch/v1"},
	} {
		if c.got != c.want {
			t.Errorf("%s apiVersion %q, want %q", c.kind, c.got, c.want)
		}
	}
}

func TestKustomizationListsEveryManifest(t *testing.T) {
	m := load(t)
	var want []string
	for _, f := range m.files {
		if f != "kustomization.yaml" {
			want = append(want, f)
		}
	}
	got := slices.Sorted(slices.Values(m.kustomization.Resources))
	if !slices.Equal(got, want) {
		t.Errorf("kustomization resources %v, want %v", got, want)
	}
}

func TestJobShape(t *testing.T) {
	j := load(t).job
	s := j.Spec
	if s.CompletionMode != "Indexed" {
		t.Errorf("completionMode %q, want Indexed (shards, docs/cli.md#distributed-runs)", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != 1 || *s.Parallelism != 1 {
		t.Errorf("completions/parallelism must be 1 by default")
	}
	if s.BackoffLimit == nil || *s.BackoffLimit != 0 {
		t.Errorf("backoffLimit must be 0: a retry would reuse the run id")
	}
	if got := s.Template.Spec.RestartPolicy; got != "Never" {
		t.Errorf("restartPolicy %q, want Never", got)
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "sweep" {
		t.Errorf("args %v: want the sweep subcommand first", c.Args)
	}
	// Image tag is the tool version label.
	if tag := c.Image[strings.LastIndex(c.Image, ":")+1:]; tag != j.Metadata.Labels["app.kubernetes.io/version"] {
		t.Errorf("image tag %q differs from app.kubernetes.io/version %q", tag, j.Metadata.Labels["app.kubernetes.io/version"])
	}
	if cpu, ok := c.Resources["limits"].(map[string]any)["cpu"]; ok {
		t.Errorf("cpu limit %v: CFS throttling would read as client lag; request CPU, do not limit it", cpu)
	}
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

// TestJobArgsCarryMandatoryMetadata: every mandatory scorecard field that a
// flag declares is passed, from a ConfigMap key that holds a value.
func TestJobArgsCarryMandatoryMetadata(t *testing.T) {
	m := load(t)
	c := m.job.Spec.Template.Spec.Containers[0]
	env := map[string]envVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	resolve := func(v string) string {
		return varRef.ReplaceAllStringFunc(v, func(ref string) string {
			e := env[varRef.FindStringSubmatch(ref)[1]]
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				return m.configMap.Data[e.ValueFrom.ConfigMapKeyRef.Key]
			}
			if e.Value != nil {
				return *e.Value
			}
			return ""
		})
	}
	for _, f := range scorecard.MandatoryFields() {
		if f.Setting == "" {
			continue // filled in by the tool
		}
		flag := "--" + f.Setting
		v, ok := flagValue(c.Args, flag)
		if !ok {
			t.Errorf("mandatory %s: args lack %s=...", f.Key, flag)
			continue
		}
		if resolve(v) == "" {
			t.Errorf("mandatory %s: %s=%s resolves to an empty value: the scorecard would be an anecdote", f.Key, flag, v)
		}
	}
	for _, flag := range []string{"--target", "--output-dir", "--run-id"} {
		if _, ok := flagValue(c.Args, flag); !ok {
			t.Errorf("args lack %s", flag)
		}
	}
	target, _ := flagValue(c.Args, "--target")
	if u, err := url.Parse(resolve(target)); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		t.Errorf("--target %q: want an http(s) base URL without credentials", resolve(target))
	}
}

// TestEnvReferences: every $(VAR) in args is defined by env, and every env
// ConfigMap reference names the ConfigMap and one of its keys.
func TestEnvReferences(t *testing.T) {
	m := load(t)
	c := m.job.Spec.Template.Spec.Containers[0]
	defined := map[string]bool{"JOB_COMPLETION_INDEX": true} // set by Kubernetes in Indexed mode
	for _, e := range c.Env {
		if defined[e.Name] {
			t.Errorf("env %s defined twice", e.Name)
		}
		defined[e.Name] = true
		if e.ValueFrom == nil {
			continue
		}
		if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
			if r.Name != m.configMap.Metadata.Name {
				t.Errorf("env %s: configMapKeyRef %q, want %q", e.Name, r.Name, m.configMap.Metadata.Name)
			}
			if _, ok := m.configMap.Data[r.Key]; !ok {
				t.Errorf("env %s: ConfigMap has no key %q", e.Name, r.Key)
			}
		}
		if r := e.ValueFrom.SecretKeyRef; r != nil && (r.Optional == nil || !*r.Optional) {
			t.Errorf("env %s: the Secret %s must be optional (a run without an API key is valid)", e.Name, r.Name)
		}
	}
	for _, a := range c.Args {
		for _, ref := range varRef.FindAllStringSubmatch(a, -1) {
			if !defined[ref[1]] {
				t.Errorf("arg %q references $(%s), which env does not define", a, ref[1])
			}
		}
	}
	for _, a := range c.Args {
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

func TestLabels(t *testing.T) {
	m := load(t)
	objects := map[string]objectMeta{
		"ConfigMap":    m.configMap.Metadata,
		"PVC":          m.pvc.Metadata,
		"Job":          m.job.Metadata,
		"Job template": m.job.Spec.Template.Metadata,
	}
	for what, meta := range objects {
		for k, v := range meta.Labels {
			name := k[strings.LastIndex(k, "/")+1:]
			if len(name) > 63 || !labelName.MatchString(name) {
				t.Errorf("%s label key %q is invalid", what, k)
			}
			if len(v) > 63 || !labelValue.MatchString(v) {
				t.Errorf("%s label %s=%q: values are at most 63 of [A-Za-z0-9-_.], alphanumeric at both ends", what, k, v)
			}
		}
	}
	job, tmpl := m.job.Metadata, m.job.Spec.Template.Metadata
	if !mapsEqual(job.Labels, tmpl.Labels) || !mapsEqual(job.Annotations, tmpl.Annotations) {
		t.Errorf("Job and pod template labels/annotations differ:\njob  %v %v\npod  %v %v", job.Labels, job.Annotations, tmpl.Labels, tmpl.Annotations)
	}

	// The mandatory metadata as labels, agreeing with the ConfigMap.
	data := m.configMap.Data
	isl, osl := dataLengths(t, data["DATA"])
	want := map[string]string{
		"gollm-bench.io/run-id":          sanitize(data["RUN_ID"]),
		"gollm-bench.io/engine":          sanitize(data["ENGINE"]),
		"gollm-bench.io/model-revision":  sanitize(data["MODEL_REVISION"]),
		"gollm-bench.io/precision":       sanitize(data["PRECISION"]),
		"gollm-bench.io/tokenizer":       sanitize(data["TOKENIZER"]),
		"gollm-bench.io/isl":             isl,
		"gollm-bench.io/osl":             osl,
		"gollm-bench.io/hardware":        sanitize(data["HARDWARE"]),
		"gollm-bench.io/max-concurrency": sanitize(data["MAX_CONCURRENCY"]),
		"gollm-bench.io/slo":             sanitize(data["SLO"]),
		"gollm-bench.io/warmup":          sanitize(data["WARMUP"]),
		"app.kubernetes.io/version":      job.Labels["app.kubernetes.io/version"],
	}
	if len(want) != 12 {
		t.Fatalf("%d metadata labels, want the twelve mandatory metadata of docs/outputs.md", len(want))
	}
	for k, v := range want {
		if v == "" {
			t.Errorf("label %s: empty", k)
		}
		if got := job.Labels[k]; got != v {
			t.Errorf("label %s=%q, want %q (from configmap.yaml)", k, got, v)
		}
	}
	for _, k := range []string{"SLO", "TOKENIZER"} {
		ann := "gollm-bench.io/" + strings.ToLower(k)
		if job.Annotations[ann] != data[k] {
			t.Errorf("annotation %s=%q, want the raw %q", ann, job.Annotations[ann], data[k])
		}
	}
	// The Job name carries the run id, lowercased.
	if !strings.HasSuffix(m.job.Metadata.Name, strings.ToLower(data["RUN_ID"])) {
		t.Errorf("Job name %q does not end in the run id %q", m.job.Metadata.Name, data["RUN_ID"])
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
		t.Errorf("DATA %q lacks prompt_tokens or output_tokens (ISL and OSL are mandatory)", spec)
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
	m := load(t)
	spec := m.job.Spec.Template.Spec
	volumes := map[string]string{} // name -> claim ("" for emptyDir)
	for _, v := range spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			volumes[v.Name] = v.PersistentVolumeClaim.ClaimName
		case v.EmptyDir != nil:
			volumes[v.Name] = ""
		default:
			t.Errorf("volume %s: neither a PVC nor an emptyDir", v.Name)
		}
	}
	c := spec.Containers[0]
	out, _ := flagValue(c.Args, "--output-dir")
	var resultsMounted bool
	for _, vm := range c.VolumeMounts {
		claim, ok := volumes[vm.Name]
		if !ok {
			t.Errorf("volumeMount %s references no volume", vm.Name)
		}
		if vm.MountPath == out {
			resultsMounted = true
			if claim != m.pvc.Metadata.Name {
				t.Errorf("--output-dir %s is on volume %s (claim %q), want the PVC %q", out, vm.Name, claim, m.pvc.Metadata.Name)
			}
			if vm.ReadOnly {
				t.Errorf("results mount is read-only")
			}
		}
	}
	if !resultsMounted {
		t.Errorf("--output-dir %q is not a volume mount", out)
	}
	if tok := m.configMap.Data["TOKENIZER"]; !strings.HasPrefix(tok, out+"/") {
		t.Errorf("TOKENIZER %q is not on the results volume %s", tok, out)
	}
	if len(m.pvc.Spec.AccessModes) == 0 || m.pvc.Spec.Resources.Requests["storage"] == "" {
		t.Errorf("PVC needs accessModes and a storage request: %+v", m.pvc.Spec)
	}
}

// TestJobWarmsUpWithThePhase: the Job warms the server up with the sweep's
// own run-level phase, held until GPU power settles, not with a separate
// container sending load before it; the ConfigMap's values parse.
func TestJobWarmsUpWithThePhase(t *testing.T) {
	m := load(t)
	spec := m.job.Spec.Template.Spec
	if len(spec.InitContainers) != 0 {
		t.Errorf("%d init containers: the sweep's --warmup-phase warms the server up", len(spec.InitContainers))
	}
	args := spec.Containers[0].Args
	for flag, key := range map[string]string{"--warmup-phase": "WARMUP_PHASE", "--stabilize": "STABILIZE"} {
		if v, ok := flagValue(args, flag); !ok || v != "$("+key+")" {
			t.Errorf("args: %s=%q, want %s=$(%s)", flag, v, flag, key)
		}
	}
	ph, err := harness.ParseWarmupPhase(m.configMap.Data["WARMUP_PHASE"])
	if err != nil {
		t.Errorf("WARMUP_PHASE: %v", err)
	} else if ph.Profile.Concurrency != 4 || ph.Duration != time.Minute {
		t.Errorf("WARMUP_PHASE %q: want the seed's 60 s at concurrency 4", m.configMap.Data["WARMUP_PHASE"])
	}
	if m.configMap.Data["STABILIZE"] == "" || m.configMap.Data["ENERGY"] == "" {
		t.Errorf("STABILIZE %q needs ENERGY %q", m.configMap.Data["STABILIZE"], m.configMap.Data["ENERGY"])
	}
}
