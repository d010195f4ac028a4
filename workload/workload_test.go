package workload

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/tokenize"
)

func TestParseData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Data
		wantErr string
	}{
		{in: "prompt_tokens=1024,output_tokens=256", want: Data{PromptTokens: 1024, OutputTokens: 256}},
		{in: " prompt_tokens = 8 , output_tokens=2,prompt_tokens_stdev=3,prompt_tokens_min=4,prompt_tokens_max=12,output_tokens_stdev=1",
			want: Data{PromptTokens: 8, OutputTokens: 2, PromptTokensStdev: 3, PromptTokensMin: 4, PromptTokensMax: 12, OutputTokensStdev: 1}},
		{in: "prompt_tokens=10", wantErr: "output_tokens must be at least 1"},
		{in: "prompt_token=10,output_tokens=1", wantErr: `unknown key "prompt_token"`},
		{in: "prompt_tokens=ten,output_tokens=1", wantErr: `prompt_tokens="ten" is not a whole number`},
		{in: "prompt_tokens=10,output_tokens=1,prompt_tokens=20", wantErr: "prompt_tokens is given twice"},
		{in: "prompt_tokens,output_tokens=1", wantErr: "is not key=value"},
		{in: "prompt_tokens=10,output_tokens=1,prompt_tokens_min=9,prompt_tokens_max=5", wantErr: "prompt_tokens_min (9) is above prompt_tokens_max (5)"},
	}
	for _, tt := range tests {
		got, err := ParseData(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseData(%q) error = %v, want it to contain %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseData(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		if back, err := ParseData(got.String()); err != nil || back != got {
			t.Errorf("ParseData(String()) = %+v, %v; want %+v", back, err, got)
		}
	}
}

// TestSequenceWeights: weights are percentages summing to 100, or absent
// for equal shares.
func TestSequenceWeights(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{
		"64,32:70;128,64:30":       "",
		"64,32:33.33;128,64:66.67": "",
		"64,32;128,64;256,8":       "",
		"64,32:100":                "",
		"64,32:50;128,64:40":       "sum to 90",
		"64,32:70;128,64":          "1 of 2 entries have a weight",
	} {
		_, err := ParseSequenceDistribution(s)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", s, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want %q", s, err, want)
		}
	}
}

func TestParseSequenceDistribution(t *testing.T) {
	t.Parallel()
	sd, err := ParseSequenceDistribution("64|10,32|8:70;256|40,128|20:20;1024|100,512|50:10")
	if err != nil {
		t.Fatal(err)
	}
	want := []SequenceEntry{{64, 10, 32, 8, 70}, {256, 40, 128, 20, 20}, {1024, 100, 512, 50, 10}}
	if len(sd.Entries) != len(want) {
		t.Fatalf("got %d entries, want %d", len(sd.Entries), len(want))
	}
	for i := range want {
		if sd.Entries[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, sd.Entries[i], want[i])
		}
	}
	// Shares follow the weights.
	r := rand.New(rand.NewPCG(1, 2))
	counts := map[int]int{}
	for range 10000 {
		isl, _ := sd.Sample(r)
		switch {
		case isl < 160:
			counts[64]++
		case isl < 640:
			counts[256]++
		default:
			counts[1024]++
		}
	}
	if c := counts[64]; c < 6700 || c > 7300 {
		t.Errorf("64-token share = %d/10000, want about 7000", c)
	}
	for _, bad := range []string{"", "64", "64,x", "64,32:0", "64,32:abc", "-1,32", "64|-2,32", "64,32;;x,1",
		"64,32:50;128,64:40", "64,32:70;128,64", "64,32:99.9"} {
		if _, err := ParseSequenceDistribution(bad); err == nil {
			t.Errorf("ParseSequenceDistribution(%q) accepted bad input", bad)
		}
	}
}

// pairTokenizer is a toy tokenizer whose token boundaries depend on
// context (letters pair up greedily), so decode-then-encode of a slice does
// not always keep its count: the case the exact-ISL search must handle.
type pairTokenizer struct {
	mu    sync.Mutex
	ids   map[string]int
	token []string
}

func (p *pairTokenizer) id(s string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids == nil {
		p.ids = map[string]int{}
	}
	if id, ok := p.ids[s]; ok {
		return id
	}
	p.ids[s] = len(p.token)
	p.token = append(p.token, s)
	return p.ids[s]
}

func (p *pairTokenizer) Encode(text string, _ bool) []int {
	rs := []rune(text)
	var out []int
	for i := 0; i < len(rs); {
		if i+1 < len(rs) && unicode.IsLetter(rs[i]) && unicode.IsLetter(rs[i+1]) {
			out = append(out, p.id(string(rs[i:i+2])))
			i += 2
			continue
		}
		out = append(out, p.id(string(rs[i])))
		i++
	}
	return out
}

func (p *pairTokenizer) Decode(ids []int, _ bool) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(p.token[id])
	}
	return b.String()
}

func TestSyntheticExactISL(t *testing.T) {
	t.Parallel()
	tok := &pairTokenizer{}
	for _, prefix := range []PrefixCache{PrefixCold, PrefixWarm} {
		cfg := SyntheticConfig{
			Lengths:   Data{PromptTokens: 200, PromptTokensStdev: 80, PromptTokensMin: 1, OutputTokens: 16},
			Seed:      7,
			Nonce:     "run-1",
			Tokenizer: tok,
		}
		if prefix == PrefixWarm {
			cfg.PrefixCache, cfg.WarmPrefixTokens = PrefixWarm, 32
		}
		w, err := NewSynthetic(cfg)
		if err != nil {
			t.Fatal(err)
		}
		firsts := map[string]bool{}
		for seq := range int64(300) {
			req, err := w.Request(seq)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(tok.Encode(req.Prompt, false)); got != req.PromptTokens {
				t.Fatalf("%s seq %d: prompt encodes to %d tokens, declared %d", prefix, seq, got, req.PromptTokens)
			}
			if req.PromptTokensSource != loadgen.SourceTokenizer || req.MaxTokens != 16 {
				t.Fatalf("seq %d: source %q, max tokens %d", seq, req.PromptTokensSource, req.MaxTokens)
			}
			ids := tok.Encode(req.Prompt, false)
			if prefix == PrefixWarm && req.PromptTokens > 40 {
				if !strings.HasPrefix(req.Prompt, w.shared) {
					t.Fatalf("seq %d: warm prompt does not start with the shared prefix", seq)
				}
			}
			if prefix == PrefixCold && req.PromptTokens > 20 {
				key := tok.Decode(ids[:8], false)
				if firsts[key] {
					t.Fatalf("seq %d: cold prompt shares its first 8 tokens %q with another request", seq, key)
				}
				firsts[key] = true
			}
		}
	}
}

func TestSyntheticDeterministic(t *testing.T) {
	t.Parallel()
	mk := func(nonce string) *Synthetic {
		w, err := NewSynthetic(SyntheticConfig{Lengths: Data{PromptTokens: 64, PromptTokensStdev: 10, OutputTokens: 8, OutputTokensStdev: 2}, Seed: 42, Nonce: nonce})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	a, b, c := mk("x"), mk("x"), mk("y")
	for _, seq := range []int64{5, 0, 3, 999, 5} {
		ra, _ := a.Request(seq)
		rb, _ := b.Request(seq)
		rc, _ := c.Request(seq)
		if ra != rb {
			t.Fatalf("seq %d differs between two workloads with the same seed", seq)
		}
		if ra.Prompt == rc.Prompt {
			t.Fatalf("seq %d: a different nonce gave the same prompt", seq)
		}
		if n := len(strings.Fields(ra.Prompt)); ra.PromptTokens != 0 || n < 1 {
			t.Fatalf("seq %d: word prompt has %d words and declares %d tokens", seq, n, ra.PromptTokens)
		}
	}
}

func TestSyntheticWordLengths(t *testing.T) {
	t.Parallel()
	w, err := NewSynthetic(SyntheticConfig{Lengths: Data{PromptTokens: 100, OutputTokens: 8}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := w.Request(3)
	if n := len(strings.Fields(req.Prompt)); n != 100 {
		t.Errorf("word prompt has %d words, want 100", n)
	}
}

func TestSyntheticConfigValidate(t *testing.T) {
	t.Parallel()
	err := SyntheticConfig{PrefixCache: PrefixWarm}.Validate()
	if err == nil || !strings.Contains(err.Error(), "SyntheticConfig.Lengths is nil") || !strings.Contains(err.Error(), "SyntheticConfig.PrefixCache warm needs") {
		t.Errorf("Validate() = %v; want both problems reported", err)
	}
}

// TestWarmPrefixBelowISL: a warm prefix as long as the declared ISL would
// make every prompt all shared prefix; Validate refuses it, naming the
// flag, both values and the fix.
func TestWarmPrefixBelowISL(t *testing.T) {
	t.Parallel()
	sd := func(s string) SequenceDistribution {
		t.Helper()
		d, err := ParseSequenceDistribution(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		name    string
		lengths LengthSampler
		warm    int
		want    []string // in the error; none: valid
	}{
		{"below", Data{PromptTokens: 256, OutputTokens: 8}, 255, nil},
		{"equal", Data{PromptTokens: 256, OutputTokens: 8}, 256,
			[]string{"SyntheticConfig.WarmPrefixTokens 256:", "Data prompt_tokens=256,output_tokens=8", "declares 256-token prompts", "at most SyntheticConfig.WarmPrefixTokens 255 (below 256)", "raise prompt_tokens above 256"}},
		{"above", Data{PromptTokens: 64, OutputTokens: 8}, 1000,
			[]string{"SyntheticConfig.WarmPrefixTokens 1000", "declares 64-token prompts", "at most SyntheticConfig.WarmPrefixTokens 63", "raise prompt_tokens above 1000"}},
		{"one-token prompts", Data{PromptTokens: 1, OutputTokens: 8}, 1,
			[]string{"declares 1-token prompts", "use SyntheticConfig.PrefixCache cold"}},
		{"capped by max", Data{PromptTokens: 256, PromptTokensStdev: 20, PromptTokensMax: 100, OutputTokens: 8}, 128,
			[]string{"declares 100-token prompts (capped by prompt_tokens_max)", "at most SyntheticConfig.WarmPrefixTokens 99", "raise prompt_tokens_max above 128"}},
		{"raised by min", Data{PromptTokens: 64, PromptTokensMin: 200, OutputTokens: 8}, 150, nil},
		{"raised by min, too short", Data{PromptTokens: 64, PromptTokensMin: 100, OutputTokens: 8}, 150,
			[]string{"declares 100-token prompts (raised to prompt_tokens_min)", "raise prompt_tokens_min above 150"}},
		// A stdev's tail below the prefix is allowed (those prompts are all
		// shared prefix); the declared ISL is what must exceed it.
		{"stdev tail", Data{PromptTokens: 200, PromptTokensStdev: 80, PromptTokensMin: 1, OutputTokens: 16}, 32, nil},
		{"sequence below minimum", sd("64|10,32|8:70;256|40,128|20:30"), 63, nil},
		{"sequence at minimum", sd("256|40,128|20:30;64|10,32|8:70"), 64,
			[]string{"SyntheticConfig.WarmPrefixTokens 64", "SequenceDistribution", "64-token prompts (entry 2)", "at most SyntheticConfig.WarmPrefixTokens 63", "raise that entry's ISL above 64"}},
		{"sequence above maximum", sd("64,32;256,128"), 300, []string{"SyntheticConfig.WarmPrefixTokens 300", "64-token prompts (entry 1)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := SyntheticConfig{Lengths: tt.lengths, PrefixCache: PrefixWarm, WarmPrefixTokens: tt.warm}.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want an error with %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, nerr := NewSynthetic(SyntheticConfig{Lengths: tt.lengths, PrefixCache: PrefixWarm, WarmPrefixTokens: tt.warm}); nerr == nil {
				t.Error("NewSynthetic accepted the config Validate refuses")
			}
		})
	}
	// Cold takes no length, so there is nothing to compare.
	if err := (SyntheticConfig{Lengths: Data{PromptTokens: 4, OutputTokens: 1}}).Validate(); err != nil {
		t.Errorf("cold: %v", err)
	}
}

func TestReadDataset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	jsonl := write("a.jsonl", "{\"prompt\":\"hello there\",\"output_tokens\":12}\n\n\"a quoted line\"\nplain text line\n{\"text\":\"t\"}\n")
	got, err := ReadDatasetFile(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{"hello there", 12}, {"a quoted line", 0}, {"plain text line", 0}, {"t", 0}}
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	share := write("s.json", `[{"conversations":[{"from":"system","value":"x"},{"from":"human","value":"q1"},{"from":"gpt","value":"a1"}]},{"conversations":[]}]`)
	got, err = ReadDatasetFile(share)
	if err != nil || len(got) != 1 || got[0].Prompt != "q1" {
		t.Fatalf("ShareGPT = %+v, %v", got, err)
	}
	bad := write("b.jsonl", "{\"prompt\":\"ok\"}\n{\"prompt\": 3}\n{\"nope\":1}\n")
	_, err = ReadDatasetFile(bad)
	if err == nil || !strings.Contains(err.Error(), "b.jsonl:2:") || !strings.Contains(err.Error(), "b.jsonl:3:") {
		t.Errorf("bad dataset error = %v; want lines 2 and 3 named", err)
	}
	// A multi-byte rune cut by the end of the sniffed window is fine.
	cut := strings.Repeat("a", sniffLen-1) + "é\n"
	if got, err := ReadDatasetFile(write("cut.txt", cut)); err != nil || len(got) != 1 {
		t.Errorf("a rune across the sniff window: %v", err)
	}
	if _, err := ReadDatasetFile(write("e.jsonl", "\n\n")); err == nil {
		t.Error("empty dataset accepted")
	}
	// Binary files are refused, not sent as "plain text" prompts.
	for name, body := range map[string]string{
		"model.bin":  "\x7fELF\x02\x01\x01\x00\x00\x00\nmore\n",
		"utf16.txt":  "\xff\xfeh\x00i\x00\n\x00",
		"latin1.txt": "caf\xe9\n",
		"late.jsonl": strings.Repeat("fine line\n", 500) + "bad \x00 byte\n",
	} {
		if name == "latin1.txt" {
			body = strings.Repeat("x", 10) + body
		}
		_, err := ReadDatasetFile(write(name, body))
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "not") || !strings.Contains(err.Error(), "text") {
			t.Errorf("%s: %v, want an error naming the file: not text", name, err)
		}
	}
	ds, err := NewDataset(want, 99, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := ds.Request(5)
	if r.Prompt != "a quoted line" || r.MaxTokens != 99 {
		t.Errorf("Request(5) = %+v", r)
	}
}

func FuzzParseData(f *testing.F) {
	f.Add("prompt_tokens=1024,output_tokens=256,prompt_tokens_stdev=3")
	f.Add("=,=")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseData(s)
		if err != nil {
			return
		}
		back, err := ParseData(d.String())
		if err != nil || back != d {
			t.Fatalf("round trip of %q: %+v, %v", s, back, err)
		}
		isl, osl := d.Sample(rand.New(rand.NewPCG(1, 1)))
		if isl < 1 || osl < 1 {
			t.Fatalf("sampled lengths %d, %d", isl, osl)
		}
	})
}

func FuzzParseSequenceDistribution(f *testing.F) {
	f.Add("64|10,32|8:70;256|40,128|20:20")
	f.Add("1,1")
	f.Fuzz(func(t *testing.T, s string) {
		sd, err := ParseSequenceDistribution(s)
		if err != nil {
			return
		}
		if err := sd.Validate(); err != nil {
			t.Fatalf("%q parsed, but Validate refuses it: %v", s, err)
		}
		if back, err := ParseSequenceDistribution(sd.String()); err != nil || !reflect.DeepEqual(back, sd) {
			t.Fatalf("round trip of %q through %q: %+v, %v", s, sd, back, err)
		}
		isl, osl := sd.Sample(rand.New(rand.NewPCG(1, 1)))
		if isl < 1 || osl < 1 {
			t.Fatalf("sampled lengths %d, %d", isl, osl)
		}
	})
}

func FuzzReadDataset(f *testing.F) {
	f.Add([]byte("{\"prompt\":\"a\"}\nplain\n\"q\"\n"))
	f.Add([]byte(`[{"conversations":[{"from":"human","value":"x"}]}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := ReadDataset(strings.NewReader(string(b)), "fuzz")
		if err == nil && len(entries) == 0 {
			t.Fatal("no error and no entries")
		}
	})
}

// TestSyntheticExactISLRealTokenizers checks exact ISL with the shipped
// real vocabularies: byte-level BPE (Qwen3, gpt-oss) and SentencePiece-style
// BPE (Mistral-7B), cold and warm.
func TestSyntheticExactISLRealTokenizers(t *testing.T) {
	skipUnderRace(t)
	t.Parallel()
	for _, name := range []string{"qwen3", "gpt-oss", "mistral-7b"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkExactISL(t, name)
		})
	}
}

// checkExactISL is TestSyntheticExactISLRealTokenizers for one shipped
// tokenizer.
func checkExactISL(t *testing.T, name string) {
	tok, err := tokenize.Load(filepath.Join("..", "testdata", "tokenizers", "files", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, pc := range []PrefixCache{PrefixCold, PrefixWarm} {
		cfg := SyntheticConfig{
			Lengths:   Data{PromptTokens: 512, PromptTokensStdev: 300, PromptTokensMin: 1, PromptTokensMax: 2048, OutputTokens: 8},
			Seed:      3,
			Nonce:     "n",
			Tokenizer: tok,
		}
		if pc == PrefixWarm {
			cfg.PrefixCache, cfg.WarmPrefixTokens = PrefixWarm, 64
		}
		w, err := NewSynthetic(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for seq := range int64(40) {
			req, err := w.Request(seq)
			if err != nil {
				t.Fatalf("%s %s: %v", name, pc, err)
			}
			if got := tok.Count(req.Prompt); got != req.PromptTokens {
				t.Fatalf("%s %s seq %d: prompt is %d tokens, declared %d", name, pc, seq, got, req.PromptTokens)
			}
		}
	}
}
