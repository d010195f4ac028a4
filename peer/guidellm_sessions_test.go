package peer

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// guideLLMWith is the GuideLLM 0.7 layout fixture with its data replaced
// by a synthetic_text source of 2 turns and 4 shared prefixes of 16
// tokens, and backend.stream stated, as GuideLLM 0.8 writes them; the
// request format is format. A test input derived from the fixture.
func guideLLMWith(t *testing.T, format string) Result {
	t.Helper()
	data, err := os.ReadFile(dir + "guidellm-v0.7-layout-derived-concurrent4-qwen3-4b-4req.json")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, r := range [][2]string{
		{`"kind": "huggingface", "source": "/root/aime_2024_v2.jsonl"`, `"kind": "synthetic_text", "prompt_tokens": 128, "output_tokens": 64, "turns": 2, "prefix_buckets": [{"bucket_weight": 100, "prefix_count": 4, "prefix_tokens": 16}]`},
		{`"request_format": "/v1/completions"`, `"request_format": "` + format + `", "stream": true`},
	} {
		if !strings.Contains(s, r[0]) {
			t.Fatalf("fixture lacks %q", r[0])
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	res, err := Read(strings.NewReader(s), "guidellm-0.8.json")
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestLikeKeepsSessionsAndPrefixes: what issue 28 saw: "GuideLLM 0.8's
// turns: 2 and shared prefixes (4 × 16 tokens) are ignored with no
// warning; GuideLLM's backend.stream: true is not read". Each part is
// reproduced where gollm-bench can run it, and a note names each part it
// cannot.
func TestLikeKeepsSessionsAndPrefixes(t *testing.T) {
	chat := guideLLMWith(t, "/v1/chat/completions")
	w := chat.Workload
	if !w.Stream.OK || !w.Stream.V || w.Turns.N != 2 || len(w.Prefixes) != 1 || w.Prefixes[0] != (PrefixBucket{Weight: 100, Count: 4, Tokens: 16}) {
		t.Fatalf("workload %+v", w)
	}
	l, bad := chat.Load()
	if len(bad) != 0 {
		t.Fatalf("refused: %v", bad)
	}
	flags := map[string]string{}
	for _, kv := range l.Flags() {
		flags[kv[0]] = kv[1]
	}
	if flags["turns"] != "2" || flags["no-stream"] != "false" || flags["data"] != "prompt_tokens=128,output_tokens=64" {
		t.Errorf("chat: flags %v", flags)
	}
	if !slices.ContainsFunc(l.Notes, func(n string) bool {
		return strings.Contains(n, "not reproduced: config.spec.data[0].prefix_buckets: 4 prefixes of 16 tokens (a shared-prefix workload does not combine with multi-turn sessions)")
	}) {
		t.Errorf("chat: notes %q", l.Notes)
	}

	comp := guideLLMWith(t, "/v1/completions")
	l, _ = comp.Load()
	flags = map[string]string{}
	for _, kv := range l.Flags() {
		flags[kv[0]] = kv[1]
	}
	if flags["shared-prefix"] != "groups=4,prompts=1,prefix=16,question=128,output=64" || flags["data"] != "" || flags["turns"] != "" {
		t.Errorf("completions: flags %v", flags)
	}
	if !slices.ContainsFunc(l.Notes, func(n string) bool {
		return strings.Contains(n, "not reproduced: config.spec.data[0].turns 2 (gollm-bench's multi-turn sessions are chat conversations")
	}) {
		t.Errorf("completions: notes %q", l.Notes)
	}

	// The 0.4-0.6 string spelling.
	var old Workload
	guideLLMData(&old, "args.data", node{v: "prompt_tokens=256,output_tokens=32,turns=3,prefix_tokens=100,prefix_count=2"})
	if old.Data != "prompt_tokens=256,output_tokens=32" || old.Turns.N != 3 || len(old.Prefixes) != 1 || old.Prefixes[0].Count != 2 {
		t.Errorf("string spec: %+v", old)
	}
}
