package jsonstring

import (
	"encoding/json"
	"testing"
)

func TestAppend(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{"q\"b\\n\nr\rt\t", `"q\"b\\n\nr\rt\t"`},
		{"\x00\x1f", `"\u0000\u001f"`},
		{"é€😀", `"é€😀"`},
		{"bad\xffutf8", `"bad\ufffdutf8"`},
		{"<&>", `"<&>"`},
	} {
		if got := string(Append(nil, tt.in)); got != tt.want {
			t.Errorf("Append(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzAppend: the output is valid JSON that decodes to the input (with
// invalid UTF-8 replaced, as encoding/json does).
func FuzzAppend(f *testing.F) {
	f.Add("hello \"world\"\n")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		out := Append([]byte("x"), s)[1:]
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("Append(%q) = %s: not JSON: %v", s, out, err)
		}
		ref, _ := json.Marshal(s)
		var want string
		_ = json.Unmarshal(ref, &want)
		if back != want {
			t.Fatalf("Append(%q) decodes to %q, encoding/json gives %q", s, back, want)
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	s := "The quick brown fox jumps over the lazy dog, \"quoted\"\n"
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		buf = Append(buf[:0], s)
	}
}
