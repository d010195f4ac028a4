package mockserver

import (
	"strings"
	"testing"
	"time"
)

func TestParseFault(t *testing.T) {
	tests := []struct {
		spec string
		want Fault
		err  string
	}{
		{"", Fault{}, ""},
		{" HTTP-429 ", Fault{HTTPStatus: 429}, ""},
		{"http-500-text", Fault{HTTPStatus: 500, HTTPText: true}, ""},
		{"error-in-stream", Fault{ErrorInStream: true, ErrorAfter: 1}, ""},
		{"error-in-stream=0", Fault{ErrorInStream: true}, ""},
		{"disconnect-after=3", Fault{Disconnect: true, DisconnectAfter: 3}, ""},
		{"slow-headers=2s,stall=1.5s", Fault{SlowHeaders: 2 * time.Second, Stall: 1500 * time.Millisecond, StallAfter: 1}, ""},
		{"stall=10ms@4", Fault{Stall: 10 * time.Millisecond, StallAfter: 4}, ""},
		{"tokens-per-chunk=3,role-early,role-only", Fault{TokensPerChunk: 3, RoleEarly: true, RoleOnly: 1}, ""},
		{"usage-only,no-usage,usage-in-finish,no-done,no-space,crlf,comments",
			Fault{UsageOnly: true, NoUsage: true, UsageInFinish: true, NoDone: true, NoSpace: true, CRLF: true, Comments: true}, ""},
		{"body=html", Fault{Body: BodyHTML}, ""},
		{"BODY=Empty, data-null", Fault{Body: BodyEmpty, Event: EventNull}, ""},
		{"choices-null", Fault{Event: EventChoicesNull}, ""},
		{"error-null", Fault{Event: EventErrorNull}, ""},
		{"usage-completion=-7", Fault{UsageCompletion: -7, UsageCompletionSet: true}, ""},
		{"usage-completion=0", Fault{UsageCompletionSet: true}, ""},
		{"body", Fault{}, "needs one of html, json, text, empty"},
		{"body=xml", Fault{}, "needs one of"},
		{"data-null=1", Fault{}, "takes no value"},
		{"usage-completion", Fault{}, "needs an integer"},
		{"usage-completion=1.5", Fault{}, "needs an integer"},
		{"http-200", Fault{}, `column 1: "http-200": status "200"`},
		{"crlf,,bogus", Fault{}, `column 7: "bogus": unknown fault`},
		{"crlf=1", Fault{}, "takes no value"},
		{"disconnect-after", Fault{}, "needs a token-chunk count"},
		{"stall=x", Fault{}, "not a non-negative duration"},
		{"stall=1s@-1", Fault{}, "after @"},
		{"tokens-per-chunk=0", Fault{}, "at least 1"},
		{"slow-headers=-1s", Fault{}, "non-negative duration"},
		{"bogus, http-99", Fault{}, "column 8"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ParseFault(tt.spec)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	// Every bad item is reported.
	_, err := ParseFault("a,b,c")
	if err == nil || strings.Count(err.Error(), "unknown fault") != 3 {
		t.Errorf("want three errors, got %v", err)
	}
	// The message points at the user's documentation, not at Go code.
	if _, err := ParseFault("bogus"); err == nil || strings.Contains(err.Error(), "ParseFault") || !strings.Contains(err.Error(), "docs/mock-server.md") {
		t.Errorf("unknown fault: %v, want a pointer to docs/mock-server.md", err)
	}
}

func FuzzParseFault(f *testing.F) {
	for _, s := range []string{"http-429", "stall=1s@2,crlf", "tokens-per-chunk=4", "disconnect-after=0", ",,", "role-only=3", "body=json", "usage-completion=-7", "data-null"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		got, err := ParseFault(spec)
		if err != nil {
			return
		}
		if got.HTTPStatus != 0 && (got.HTTPStatus < 400 || got.HTTPStatus > 599) {
			t.Errorf("%q: status %d accepted", spec, got.HTTPStatus)
		}
		if got.Stall < 0 || got.SlowHeaders < 0 || got.TokensPerChunk < 0 || got.DisconnectAfter < 0 || got.ErrorAfter < 0 || got.StallAfter < 0 || got.RoleOnly < 0 {
			t.Errorf("%q: negative value accepted: %+v", spec, got)
		}
		// Parsing is a pure function of the spec.
		if again, _ := ParseFault(spec); again != got {
			t.Errorf("%q parsed twice differently", spec)
		}
	})
}
