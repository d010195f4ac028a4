package tokenize

import (
	"path/filepath"
	"strings"
	"testing"
)

// chunkText cuts text into pieces of at most n bytes at newlines, like the
// reference harness's oracle.js --chunk (one piece per request;
// docs/perf-tokenize.md#the-reference-harness).
func chunkText(text string, n int) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if cur.Len() > 0 && cur.Len()+len(line) > n {
			out = append(out, cur.String())
			cur.Reset()
		}
		cur.WriteString(line)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func naturalText(b *testing.B) string {
	var sb strings.Builder
	for _, l := range readJSONL(b, filepath.Join(fixtures, "corpora", "natural.jsonl.gz")) {
		sb.WriteString(l.Text)
	}
	return sb.String()
}

// BenchmarkEncode encodes about 1 MB of prose in 4 KiB requests, per
// tokenizer family, with a cold word cache at the start of the run.
func BenchmarkEncode(b *testing.B) {
	text := naturalText(b)
	chunks := chunkText(text, 4096)
	for _, fam := range []struct{ name, dir string }{
		{"bytelevel-qwen3", "qwen3"},
		{"sentencepiece-mistral", "mistral-7b"},
		{"o200k-gptoss", "gpt-oss"},
	} {
		tok, err := Load(filepath.Join(fixtures, "files", fam.dir))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fam.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			ntok := 0
			for b.Loop() {
				ntok = 0
				for _, c := range chunks {
					ntok += len(tok.Encode(c, false))
				}
			}
			b.ReportMetric(float64(ntok)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
		b.Run(fam.name+"/count", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				for _, c := range chunks {
					tok.Count(c)
				}
			}
		})
	}
}
