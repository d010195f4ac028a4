package tokenize

// newPatternMatcher returns a matcher for a Split regex: a hand-written
// scanner for the well-known patterns, regexp2 otherwise.
func newPatternMatcher(pattern string) (matcher, error) {
	re, err := compileRegex(pattern)
	if err != nil {
		return nil, err
	}
	return regexMatcher{re}, nil
}
