package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gollm-bench/gollm-bench/loadgen"
)

// TestConversationAndReply: a request carrying a conversation sends it as
// "messages", and the client returns the generated content (not the
// reasoning) in Request.Reply, and the server's cached prompt tokens in
// the record.
func TestConversationAndReply(t *testing.T) {
	usage := `data: {"choices":[],"usage":{"prompt_tokens":30,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":16}}}` + "\n\n"
	url, body := serve(t, script{frames: []string{
		delta("reasoning_content", "hmm"), content(" the"), content(" of é"), usage, "data: [DONE]\n\n",
	}})
	c, err := New(url, WithEndpoint(Chat), WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	clock := loadgen.NewClock(time.Now())
	msgs := []loadgen.Message{
		{Role: loadgen.RoleUser, Content: "hi \"there\""},
		{Role: loadgen.RoleAssistant, Content: " a b"},
		{Role: loadgen.RoleUser, Content: "more"},
	}
	req := &loadgen.Request{Chat: &loadgen.Chat{Messages: msgs}, MaxTokens: 3, KeepReply: true}
	rec := &loadgen.Record{}
	c.Do(context.Background(), clock, req, rec)
	if rec.Status != loadgen.StatusOK {
		t.Fatalf("status %s: %s", rec.Status, rec.ErrorMessage)
	}
	if req.Reply != " the of é" {
		t.Errorf("reply %q, want the content only, %q", req.Reply, " the of é")
	}
	if rec.ServerCachedTokens == nil || *rec.ServerCachedTokens != 16 || rec.UsageRejected != "" {
		t.Errorf("cached %v (rejected %q), want 16", rec.ServerCachedTokens, rec.UsageRejected)
	}
	var sent struct {
		Messages []loadgen.Message `json:"messages"`
		Prompt   *string           `json:"prompt"`
	}
	if err := json.Unmarshal(body(), &sent); err != nil {
		t.Fatal(err)
	}
	if len(sent.Messages) != 3 || sent.Messages[0] != msgs[0] || sent.Messages[1] != msgs[1] || sent.Messages[2] != msgs[2] || sent.Prompt != nil {
		t.Errorf("sent %+v, want the three messages and no prompt", sent)
	}
}

// TestReplyNotKeptUnlessAsked: without KeepReply the reply stays empty.
func TestReplyNotKeptUnlessAsked(t *testing.T) {
	url, _ := serve(t, script{frames: []string{content("x"), "data: [DONE]\n\n"}})
	c, err := New(url, WithEndpoint(Chat))
	if err != nil {
		t.Fatal(err)
	}
	req := &loadgen.Request{Prompt: "hi", MaxTokens: 1}
	c.Do(context.Background(), loadgen.NewClock(time.Now()), req, &loadgen.Record{})
	if req.Reply != "" {
		t.Errorf("reply %q, want none", req.Reply)
	}
}

// TestCachedTokensJudged: an impossible cached count is rejected, named,
// and not stored; an absent one stays nil.
func TestCachedTokensJudged(t *testing.T) {
	for _, tc := range []struct {
		name, usage, rejected string
		want                  int // -1: nil
	}{
		{"above prompt", `"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":11}`, "cached_tokens 11 exceeds usage.prompt_tokens 10", -1},
		{"negative", `"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":-1}`, "cached_tokens -1 is negative", -1},
		{"absent", `"prompt_tokens":10,"completion_tokens":1`, "", -1},
		{"null details", `"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":null`, "", -1},
		{"zero", `"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":0}`, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, _ := serve(t, script{frames: []string{content("x"), `data: {"choices":[],"usage":{` + tc.usage + "}}\n\n", "data: [DONE]\n\n"}})
			c, err := New(url, WithEndpoint(Chat))
			if err != nil {
				t.Fatal(err)
			}
			rec := &loadgen.Record{}
			c.Do(context.Background(), loadgen.NewClock(time.Now()), &loadgen.Request{Prompt: "hi", MaxTokens: 1}, rec)
			if !strings.Contains(rec.UsageRejected, tc.rejected) || (tc.rejected == "") != (rec.UsageRejected == "") {
				t.Errorf("rejected %q, want %q", rec.UsageRejected, tc.rejected)
			}
			switch {
			case tc.want < 0 && rec.ServerCachedTokens != nil:
				t.Errorf("cached %d, want none", *rec.ServerCachedTokens)
			case tc.want >= 0 && (rec.ServerCachedTokens == nil || *rec.ServerCachedTokens != tc.want):
				t.Errorf("cached %v, want %d", rec.ServerCachedTokens, tc.want)
			}
		})
	}
}

// TestConversationNeedsChat: a conversation on the completions endpoint is
// a failed request that says why, not a prompt silently dropped.
func TestConversationNeedsChat(t *testing.T) {
	url, _ := serve(t, script{frames: []string{text("x"), "data: [DONE]\n\n"}})
	c, err := New(url)
	if err != nil {
		t.Fatal(err)
	}
	rec := &loadgen.Record{}
	c.Do(context.Background(), loadgen.NewClock(time.Now()), &loadgen.Request{Chat: &loadgen.Chat{Messages: []loadgen.Message{{Role: "user", Content: "x"}}}, MaxTokens: 1}, rec)
	if rec.Status != loadgen.StatusError || !strings.Contains(rec.ErrorMessage, "chat endpoint") {
		t.Errorf("status %s %q, want an error naming the chat endpoint", rec.Status, rec.ErrorMessage)
	}
}
