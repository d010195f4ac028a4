package results

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/gollm-bench/gollm-bench/metrics"
)

// Check reports every problem of run that reading its JSON cannot see,
// at once (errors.Join): each histogram held by a distribution of a
// level's summary must decode, with as many values as the distribution's
// count (metrics.DecodeHistogram), since reports draw and merges add
// them. A distribution without a histogram (files from older versions
// omit some) is not checked. Errors name the level and the distribution's
// JSON key. A run must also have its run_id, and levels unless it is
// partial (a run stopped before its first level ends): every run.json
// gollm-bench writes does, so a file without them is damaged or another
// tool's.
func (r Run) Check() error {
	var errs []error
	if r.RunID == "" {
		errs = append(errs, errors.New("run_id is empty: every run.json gollm-bench writes names its run"))
	}
	if len(r.Result.Levels) == 0 && !r.Partial {
		errs = append(errs, errors.New("result.levels is empty, and the run is not marked partial: a complete run has at least one level"))
	}
	for i, lv := range r.Result.Levels {
		for key, d := range distributions(lv.Summary) {
			if d.Histogram == "" {
				continue
			}
			if _, err := metrics.DecodeHistogram(d); err != nil {
				errs = append(errs, fmt.Errorf("result.levels[%d] (level %d) %s: %w", i, lv.Index, key, err))
			}
		}
	}
	return errors.Join(errs...)
}

// distributions yields the metrics.Distribution fields of s with their
// JSON keys, in field order; found by reflection, so that a distribution
// added to Summary is checked too.
func distributions(s metrics.Summary) func(yield func(string, metrics.Distribution) bool) {
	return func(yield func(string, metrics.Distribution) bool) {
		v := reflect.ValueOf(s)
		t := v.Type()
		dt := reflect.TypeFor[metrics.Distribution]()
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Type != dt || !f.IsExported() {
				continue
			}
			key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if key == "" {
				key = f.Name
			}
			if !yield(key, v.Field(i).Interface().(metrics.Distribution)) {
				return
			}
		}
	}
}
