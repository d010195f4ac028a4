package peer

import (
	"slices"
	"testing"
)

// A Load's flags fill in what the user did not give; a group given in
// part (--rate alone) keeps the whole group the user's.
func TestLoadApplyKeepsGivenGroups(t *testing.T) {
	l := Load{Profile: "constant", Rates: []float64{2, 4}, Data: "prompt_tokens=8,output_tokens=4", Endpoint: "chat"}
	set := map[string]string{}
	given := map[string]bool{"rate": true}
	applied, err := l.Apply(func(n string) bool { return given[n] }, func(n, v string) error { set[n] = v; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := set["profile"]; ok {
		t.Errorf("--profile set although --rate, of its group, was given: %v", set)
	}
	if set["data"] != l.Data || set["endpoint"] != "chat" {
		t.Errorf("set %v, want data and endpoint", set)
	}
	if !slices.Contains(applied, "--endpoint chat") {
		t.Errorf("applied %v", applied)
	}
}
