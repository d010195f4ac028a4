package tokenize

import (
	"testing"
	"unicode/utf8"
)

// FuzzEncode checks that encoding never panics, that Count agrees with
// Encode, and that decode(encode(x)) is x, normalized by the tokenizer's
// normalizer, for byte-level models on valid UTF-8.
func FuzzEncode(f *testing.F) {
	skipUnderRace(f)
	for _, s := range []string{"", "Hello world", "  \n\t x", "<|im_start|>hi<|im_end|>", "\xff\xfe bad", "日本語 🤖‍🔧", "'s 'LL 1234567"} {
		f.Add(s)
	}
	var toks []*Tokenizer
	for _, d := range []string{"qwen3", "gpt-oss", "mistral-7b"} {
		toks = append(toks, shipped(f, d))
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, tok := range toks {
			ids := tok.Encode(s, true)
			plain := tok.Encode(s, false)
			if n := tok.Count(s); n != len(plain) {
				t.Fatalf("%s: Count %d != len(Encode) %d", tok.Name(), n, len(plain))
			}
			_ = ids
			if i < 2 && utf8.ValidString(s) {
				// The model sees the normalized text (Qwen3 normalizes to
				// NFC: the compatibility ideograph U+FA9E becomes U+7235),
				// so that is what decoding gives back.
				want := s
				if tok.normalizer != nil {
					want = tok.normalizer.normalize(s)
				}
				if got := tok.Decode(plain, false); got != want {
					t.Fatalf("%s: decode(encode(%q)) = %q, want %q", tok.Name(), s, got, want)
				}
			}
		}
	})
}

// FuzzParse checks that parsing arbitrary tokenizer.json bytes never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]},"added_tokens":[{"id":3,"content":"<s>","special":true}],"post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>"}},{"Sequence":{"id":"A"}}],"special_tokens":{"<s>":{"id":"<s>","ids":[3]}}}}`))
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{"a":-5},"merges":[["a","a"]]},"pre_tokenizer":{"type":"Split","pattern":{"Regex":"(?=a)"},"behavior":"Contiguous"}}`))
	f.Add([]byte(`{"model":{"type":"Unigram"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := Parse(data, WithCacheSize(16))
		if err != nil {
			return
		}
		tok.Encode("ab a<s>b", true)
		tok.Decode([]int{0, 1, 2, 3, -1, 99}, true)
	})
}
