package results

import (
	"encoding/json"
	"testing"
)

// TestSettingsRoundTrip: run.json's "settings" reads back and writes out
// as it was written, each value's JSON kind kept.
func TestSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	in := `{"settings":{"header":["X-Team=a"],"max-seconds":60,"no-stream":false,"nonce":"r1","request-timeout":"5s"}}`
	var r struct {
		Settings Settings `json:"settings"`
	}
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	r.Settings.SetString("nonce", "r2")
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"settings":{"header":["X-Team=a"],"max-seconds":60,"no-stream":false,"nonce":"r2","request-timeout":"5s"}}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	if v, ok := r.Settings.String("request-timeout"); !ok || v != "5s" {
		t.Errorf("request-timeout %q %v", v, ok)
	}
	if v, ok := r.Settings.String("max-seconds"); !ok || v != "60" {
		t.Errorf("max-seconds %q %v", v, ok)
	}
}
