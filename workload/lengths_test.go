package workload

import (
	"reflect"
	"strings"
	"testing"
)

// String spells a mix as ParseSequenceDistribution reads it back: an
// unweighted mix was spelled with weights of 1, which read back as
// percentages summing to 2 and were refused.
func TestSequenceDistributionStringReadsBack(t *testing.T) {
	for _, s := range []string{"256,128;1024,512", "64|10,32|8:70;256|40,128|20:30", "100,10"} {
		sd, err := ParseSequenceDistribution(s)
		if err != nil {
			t.Fatal(err)
		}
		if sd.String() != s {
			t.Errorf("%q spelled %q", s, sd.String())
		}
		again, err := ParseSequenceDistribution(sd.String())
		if err != nil || !reflect.DeepEqual(again, sd) || again.Validate() != nil {
			t.Errorf("%q reads back as %+v, %v", sd, again, err)
		}
	}
	bad := SequenceDistribution{Entries: []SequenceEntry{{ISL: 0, OSL: 5, Weight: 1}, {ISL: 5, OSL: 5, ISLStdev: -1, Weight: 0}}}
	err := bad.Validate()
	for _, want := range []string{"entry 1: ISL 0", "entry 2: stdevs -1", "entry 2: weight 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want %s", err, want)
		}
	}
}
