package workload

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
	"github.com/gollm-bench/gollm-bench/tokenize"
)

func TestParseTurnCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want TurnCount
		err  string
	}{
		{"3", TurnCount{3, 3}, ""},
		{" uniform:2:6 ", TurnCount{2, 6}, ""},
		{"UNIFORM:1:1", TurnCount{1, 1}, ""},
		{"0", TurnCount{}, "at least 1 turn"},
		{"-2", TurnCount{}, "at least 1 turn"},
		{"uniform:6:2", TurnCount{}, "maximum 2 is below the minimum 6"},
		{"uniform:2", TurnCount{}, "write uniform:MIN:MAX"},
		{"normal:3:1", TurnCount{}, `unknown distribution "normal"`},
		{"three", TurnCount{}, "not a number of turns"},
		{"20000", TurnCount{}, "at most 10000"},
	} {
		got, err := ParseTurnCount(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseTurnCount(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseTurnCount(%q) error %v, want one containing %q", tc.in, err, tc.err)
		}
		if err == nil {
			if back, err := ParseTurnCount(got.String()); err != nil || back != got {
				t.Errorf("%v does not round-trip: %v, %v", got, back, err)
			}
		}
	}
}

func TestParseThinkTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ThinkTime
		err  string
	}{
		{"2s", ThinkTime{Dist: ThinkFixed, Mean: 2 * time.Second}, ""},
		{"1.5", ThinkTime{Dist: ThinkFixed, Mean: 1500 * time.Millisecond}, ""},
		{"0", ThinkTime{Dist: ThinkFixed}, ""},
		{"fixed:250ms", ThinkTime{Dist: ThinkFixed, Mean: 250 * time.Millisecond}, ""},
		{"uniform:1s:3s", ThinkTime{Dist: ThinkUniform, Min: time.Second, Max: 3 * time.Second}, ""},
		{"exponential:2s", ThinkTime{Dist: ThinkExponential, Mean: 2 * time.Second}, ""},
		{"exp:2", ThinkTime{Dist: ThinkExponential, Mean: 2 * time.Second}, ""},
		{"-1s", ThinkTime{}, "cannot be negative"},
		{"uniform:-1s:2s", ThinkTime{}, "cannot be negative"},
		{"uniform:3s:1s", ThinkTime{}, "below the minimum"},
		{"exponential:-2s", ThinkTime{}, "cannot be negative"},
		{"uniform:1s", ThinkTime{}, "write uniform:MIN:MAX"},
		{"soon", ThinkTime{}, "not a duration"},
		{"gamma:2s", ThinkTime{}, `unknown distribution "gamma"`},
		{"NaN", ThinkTime{}, "not a duration"},
	} {
		got, err := ParseThinkTime(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseThinkTime(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseThinkTime(%q) error %v, want one containing %q", tc.in, err, tc.err)
		}
		if err == nil {
			if back, err := ParseThinkTime(got.String()); err != nil || back != got {
				t.Errorf("%+v does not round-trip: %+v, %v", got, back, err)
			}
		}
	}
}

// TestThinkTimeSample: the draws have the declared mean and range.
func TestThinkTimeSample(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []ThinkTime{
		{Dist: ThinkFixed, Mean: time.Second},
		{Dist: ThinkUniform, Min: time.Second, Max: 3 * time.Second},
		{Dist: ThinkExponential, Mean: 2 * time.Second},
	} {
		var sum time.Duration
		const n = 20000
		for range n {
			d := tt.Sample(r)
			if d < 0 || tt.Dist == ThinkUniform && (d < tt.Min || d > tt.Max) {
				t.Fatalf("%v drew %v", tt, d)
			}
			sum += d
		}
		want := tt.Mean
		if tt.Dist == ThinkUniform {
			want = (tt.Min + tt.Max) / 2
		}
		if got := sum / n; math.Abs(float64(got-want)) > 0.05*float64(want) {
			t.Errorf("%v: mean %v, want %v", tt, got, want)
		}
	}
}

func FuzzParseTurnCount(f *testing.F) {
	for _, s := range []string{"3", "uniform:2:6", "uniform:6:2", "x", "uniform::", "-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseTurnCount(s)
		if err != nil {
			return
		}
		if c.Min < 1 || c.Max < c.Min || c.Max > MaxTurns {
			t.Fatalf("%q parsed to invalid %+v", s, c)
		}
		if back, err := ParseTurnCount(c.String()); err != nil || back != c {
			t.Fatalf("%q: %+v does not round-trip (%+v, %v)", s, c, back, err)
		}
	})
}

func FuzzParseThinkTime(f *testing.F) {
	for _, s := range []string{"2s", "1.5", "uniform:1s:3s", "exp:2s", "-1s", "uniform:3s:1s", "fixed:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tt, err := ParseThinkTime(s)
		if err != nil {
			return
		}
		if tt.Validate() != nil {
			t.Fatalf("%q parsed to invalid %+v", s, tt)
		}
		r := rand.New(rand.NewPCG(1, 1))
		if d := tt.Sample(r); d < 0 {
			t.Fatalf("%q drew a negative pause %v", s, d)
		}
	})
}

func qwen3(t testing.TB) *tokenize.Tokenizer {
	t.Helper()
	tok, err := tokenize.Load(filepath.Join("..", "testdata", "tokenizers", "files", "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestSessionsGrowExactly: with the served tokenizer, each new user
// message is exactly the declared length, and a turn's prompt count is
// the previous turn's plus the reply plus the new message; the request
// carries the whole conversation with the server's reply in it.
func TestSessionsGrowExactly(t *testing.T) {
	skipUnderRace(t)
	tok := qwen3(t)
	w, err := NewSessions(SessionConfig{
		Turns:     TurnCount{3, 3},
		ThinkTime: ThinkTime{Dist: ThinkFixed, Mean: time.Second},
		Synthetic: SyntheticConfig{Lengths: Data{PromptTokens: 100, OutputTokens: 20}, Seed: 7, Nonce: "n", Tokenizer: tok},
	})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := w.Session(4)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Turns() != 3 {
		t.Fatalf("turns %d, want 3", sess.Turns())
	}
	replies := []string{"", " the of and to in", " is that for"}
	prev := 0
	for turn, reply := range replies {
		req, think, err := sess.Next(turn, reply)
		if err != nil {
			t.Fatal(err)
		}
		msgs := req.Chat.Messages
		if len(msgs) != 2*turn+1 || msgs[len(msgs)-1].Role != loadgen.RoleUser {
			t.Fatalf("turn %d: %d messages, want %d ending with the user's", turn, len(msgs), 2*turn+1)
		}
		if turn > 0 && (msgs[len(msgs)-2].Role != loadgen.RoleAssistant || msgs[len(msgs)-2].Content != reply) {
			t.Fatalf("turn %d: the reply is not in the history: %+v", turn, msgs[len(msgs)-2])
		}
		if n := tok.Count(msgs[len(msgs)-1].Content); n != 100 {
			t.Errorf("turn %d: new message is %d tokens, want 100", turn, n)
		}
		want := prev + 100
		if turn > 0 {
			want += tok.Count(reply)
		}
		if req.PromptTokens != want || req.PromptTokensSource != loadgen.SourceTokenizer || req.MaxTokens != 20 {
			t.Errorf("turn %d: prompt %d (%s), max %d; want %d tokens from the tokenizer, max 20", turn, req.PromptTokens, req.PromptTokensSource, req.MaxTokens, want)
		}
		if wantThink := min(time.Duration(turn)*time.Second, time.Second); think != wantThink {
			t.Errorf("turn %d: think %v, want %v", turn, think, wantThink)
		}
		prev = req.PromptTokens
	}
	if _, _, err := sess.Next(3, "x"); err == nil {
		t.Error("a 4th turn of a 3-turn session was built")
	}
}

// TestSessionsDeterministic: the same seed plans the same sessions and
// messages, whatever order they are asked in; the first message is the
// Synthetic workload's request of the same seq; messages are unique.
func TestSessionsDeterministic(t *testing.T) {
	cfg := SessionConfig{
		Turns:     TurnCount{2, 6},
		ThinkTime: ThinkTime{Dist: ThinkExponential, Mean: 2 * time.Second},
		Synthetic: SyntheticConfig{Lengths: Data{PromptTokens: 30, PromptTokensStdev: 5, OutputTokens: 8}, Seed: 11, Nonce: "run"},
	}
	a, err := NewSessions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSessions(cfg)
	syn, _ := NewSynthetic(cfg.Synthetic)
	plan := func(w *Sessions, seq int64) (msgs []string, thinks []time.Duration) {
		s, err := w.Session(seq)
		if err != nil {
			t.Fatal(err)
		}
		for turn := range s.Turns() {
			req, think, err := s.Next(turn, "reply")
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, req.Chat.Messages[len(req.Chat.Messages)-1].Content)
			thinks = append(thinks, think)
		}
		return msgs, thinks
	}
	seen := map[string]bool{}
	turns := map[int]bool{}
	for _, seq := range []int64{9, 0, 3, 9} {
		ma, ta := plan(a, seq)
		plan(b, 12-seq) // another session in between changes nothing
		mb, tb := plan(b, seq)
		if strings.Join(ma, "|") != strings.Join(mb, "|") || len(ta) != len(tb) {
			t.Fatalf("seq %d differs between two workloads with the same seed", seq)
		}
		for i := range ta {
			if ta[i] != tb[i] {
				t.Fatalf("seq %d: think times differ", seq)
			}
		}
		first, _ := syn.Request(seq)
		if ma[0] != first.Prompt {
			t.Errorf("seq %d: first message is not the Synthetic prompt of seq %d", seq, seq)
		}
		turns[len(ma)] = true
		if seen[ma[0]] {
			continue // seq 9 again
		}
		for _, m := range ma {
			if seen[m] {
				t.Errorf("seq %d: message repeated: %.40q", seq, m)
			}
			seen[m] = true
		}
	}
	if len(turns) < 2 {
		t.Errorf("uniform:2:6 drew the same number of turns for every session: %v", turns)
	}
}

// TestSessionsContextCheck: more turns than the declared context allows
// are refused before anything is sent, naming the fields and what fits.
func TestSessionsContextCheck(t *testing.T) {
	skipUnderRace(t)
	cfg := SessionConfig{
		Turns:            TurnCount{2, 40},
		Synthetic:        SyntheticConfig{Lengths: Data{PromptTokens: 256, OutputTokens: 64}},
		MaxContextTokens: 8192,
	}
	err := cfg.Validate()
	if err == nil {
		t.Fatal("40 turns of 320 tokens fitted in 8192 tokens")
	}
	for _, want := range []string{"SessionConfig.Turns uniform:2:40", "12800 tokens", "SessionConfig.MaxContextTokens 8192", "at most 25 turns fit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	cfg.Turns = TurnCount{25, 25}
	if err := cfg.Validate(); err != nil {
		t.Errorf("25 turns: %v", err)
	}
	tok := qwen3(t)
	conv := SessionConfig{
		Synthetic:        SyntheticConfig{Lengths: Data{PromptTokens: 1, OutputTokens: 100}, Tokenizer: tok},
		Conversations:    []Conversation{{Index: 1, User: []string{"hi"}}, {Index: 2, User: []string{"a", "b", "c"}}},
		MaxContextTokens: 250,
	}
	if err := conv.Validate(); err == nil || !strings.Contains(err.Error(), "conversation 2 plays 3 turns") {
		t.Errorf("conversation check: %v, want conversation 2 refused", err)
	}
	conv.Turns = TurnCount{2, 2}
	if err := conv.Validate(); err != nil {
		t.Errorf("capped at 2 turns: %v", err)
	}
}

// TestSessionsFromConversations: a session replays its conversation's
// user turns, with the server's replies between them; --turns caps them.
func TestSessionsFromConversations(t *testing.T) {
	convs, err := ReadConversations(strings.NewReader(`[
		{"conversations":[{"from":"system","value":"be brief"},{"from":"human","value":"first?"},{"from":"gpt","value":"recorded"},{"from":"human","value":"second?"}]},
		{"conversations":[{"from":"gpt","value":"no user"}]},
		{"conversations":[{"from":"user","value":"only"}]}
	]`), "chat.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 2 || convs[0].Index != 1 || convs[1].Index != 3 || strings.Join(convs[0].User, "|") != "first?|second?" {
		t.Fatalf("conversations %+v", convs)
	}
	w, err := NewSessions(SessionConfig{Conversations: convs, Synthetic: SyntheticConfig{Lengths: Data{PromptTokens: 1, OutputTokens: 16}}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := w.Session(0)
	if s.Turns() != 2 {
		t.Fatalf("turns %d, want the conversation's 2", s.Turns())
	}
	s.Next(0, "")
	req, _, err := s.Next(1, "live reply")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range req.Chat.Messages {
		got = append(got, m.Role+":"+m.Content)
	}
	if strings.Join(got, " ") != "user:first? assistant:live reply user:second?" || req.MaxTokens != 16 {
		t.Errorf("turn 1 sent %q (max %d)", got, req.MaxTokens)
	}
	capped, _ := NewSessions(SessionConfig{Turns: TurnCount{1, 1}, Conversations: convs, Synthetic: SyntheticConfig{Lengths: Data{PromptTokens: 1, OutputTokens: 16}}})
	if s, _ := capped.Session(0); s.Turns() != 1 {
		t.Errorf("--turns 1: %d turns", s.Turns())
	}
	if _, err := ReadConversations(strings.NewReader(`{"prompt":"x"}`+"\n"), "p.jsonl"); err == nil || !strings.Contains(err.Error(), "p.jsonl: not a ShareGPT JSON array") {
		t.Errorf("JSONL: %v", err)
	}
}

func FuzzReadConversations(f *testing.F) {
	f.Add([]byte(`[{"conversations":[{"from":"human","value":"x"},{"from":"gpt","value":"y"},{"from":"human","value":"z"}]}]`))
	f.Add([]byte(`{"prompt":"a"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		convs, err := ReadConversations(strings.NewReader(string(b)), "fuzz")
		if err != nil {
			return
		}
		if len(convs) == 0 {
			t.Fatal("no error and no conversations")
		}
		for _, c := range convs {
			if len(c.User) == 0 || c.Index < 1 {
				t.Fatalf("conversation %+v", c)
			}
			for _, m := range c.User {
				if strings.TrimSpace(m) == "" {
					t.Fatal("blank user turn kept")
				}
			}
		}
	})
}
