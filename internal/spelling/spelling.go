// Package spelling finds the word a misspelled name most likely meant, for
// the "did you mean" of the command line's and the library's errors.
package spelling

import "strings"

// Nearest returns the candidate closest to name by edit distance, if it
// is close enough to be what was meant (at most a third of name's length
// apart, and at most 3 edits), or one that starts or ends with name; ""
// for none.
func Nearest(name string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := distance(name, c); d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	if best != "" && bestD <= min(3, max(1, len(name)/3)) {
		return best
	}
	if len(name) >= 4 {
		for _, c := range candidates {
			if strings.HasPrefix(c, name) || strings.HasSuffix(c, name) {
				return c
			}
		}
	}
	return ""
}

// distance is the Levenshtein distance of a and b, with a swap of two
// adjacent characters counted as one edit.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
