package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Conversation is one multi-turn conversation of a dataset: its user
// turns, in order. A session replays them with the server's own replies
// between them (SessionConfig.Conversations).
type Conversation struct {
	// Index is the conversation's 1-based position in its file, for
	// messages.
	Index int
	// User holds the user turns' texts, none empty.
	User []string
}

// ReadConversationsFile reads the conversations of a ShareGPT JSON file
// (see ReadConversations).
func ReadConversationsFile(path string) ([]Conversation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ReadConversations(bytes.NewReader(data), path)
}

// ReadConversations reads a ShareGPT JSON array, [{"conversations":
// [{"from": "human", "value": ...}, {"from": "gpt", "value": ...}, ...]},
// ...], keeping each conversation's user turns ("from" human or user,
// non-blank "value"), in order; the other turns (the recorded replies, a
// system prompt) are left out, since a session puts the server's own
// replies between the user turns. A conversation without a user turn is
// skipped; a file without any is an error, as is a file that is not a
// ShareGPT array (a JSONL file of single prompts has no conversations).
// name labels errors.
func ReadConversations(r io.Reader, name string) ([]Conversation, error) {
	br := bufio.NewReader(r)
	if err := sniffText(br, name); err != nil {
		return nil, err
	}
	first, err := firstNonSpace(br)
	if err != nil {
		return nil, &DatasetError{File: name, Msg: "empty dataset: multi-turn sessions need a ShareGPT JSON array of conversations"}
	}
	if first != '[' {
		return nil, &DatasetError{File: name, Msg: "not a ShareGPT JSON array: multi-turn sessions need conversations ([{\"conversations\": [{\"from\": \"human\", \"value\": ...}, ...]}]); a JSONL dataset holds single prompts"}
	}
	var convs []shareGPTConversation
	if err := json.NewDecoder(br).Decode(&convs); err != nil {
		return nil, &DatasetError{File: name, Msg: fmt.Sprintf("not a ShareGPT JSON array: %v", err)}
	}
	var out []Conversation
	for i, c := range convs {
		conv := Conversation{Index: i + 1}
		for _, turn := range c.Conversations {
			if (turn.From == "human" || turn.From == "user") && strings.TrimSpace(turn.Value) != "" {
				conv.User = append(conv.User, turn.Value)
			}
		}
		if len(conv.User) > 0 {
			out = append(out, conv)
		}
	}
	if len(out) == 0 {
		return nil, &DatasetError{File: name, Msg: `no conversation has a "human" turn`}
	}
	return out, nil
}
