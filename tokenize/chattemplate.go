package tokenize

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ardanlabs/jinja"
)

// ChatMessage is one message of a conversation given to a chat template.
type ChatMessage struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// ChatTemplate is a model's chat template: the Jinja source in the
// "chat_template" field of its tokenizer_config.json (the one transformers'
// apply_chat_template and vLLM render), with the special tokens that file
// names. It is immutable and safe for concurrent use.
type ChatTemplate struct {
	source   string
	tmpl     *jinja.Template
	bos, eos string
	path     string
}

// ErrNoChatTemplate is returned for a tokenizer_config.json without a
// chat_template (a base model).
var ErrNoChatTemplate = errors.New("tokenizer_config.json has no chat_template")

// LoadChatTemplate reads the chat template of a tokenizer: path is a
// tokenizer_config.json, or a tokenizer.json (the tokenizer_config.json
// beside it is read). Errors name the file; a template the Jinja engine
// cannot compile names the construct it stopped at.
func LoadChatTemplate(path string) (*ChatTemplate, error) {
	if base := filepath.Base(path); strings.HasPrefix(base, "tokenizer.json") {
		path = filepath.Join(filepath.Dir(path), "tokenizer_config.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	c, err := ParseChatTemplate(b)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %s: %w", path, err)
	}
	c.path = path
	return c, nil
}

// ParseChatTemplate reads the chat template from the bytes of a
// tokenizer_config.json. chat_template may be a string or a list of
// {"name", "template"} objects (the one named "default" is used).
func ParseChatTemplate(configJSON []byte) (*ChatTemplate, error) {
	var cfg struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
		BOS          json.RawMessage `json:"bos_token"`
		EOS          json.RawMessage `json:"eos_token"`
	}
	if err := json.Unmarshal(configJSON, &cfg); err != nil {
		return nil, fmt.Errorf("not a tokenizer_config.json: %w", err)
	}
	var source string
	if len(cfg.ChatTemplate) == 0 || string(cfg.ChatTemplate) == "null" {
		return nil, ErrNoChatTemplate
	}
	if err := json.Unmarshal(cfg.ChatTemplate, &source); err != nil {
		var named []struct {
			Name     string `json:"name"`
			Template string `json:"template"`
		}
		if err := json.Unmarshal(cfg.ChatTemplate, &named); err != nil {
			return nil, fmt.Errorf("chat_template is neither a string nor a list of named templates: %w", err)
		}
		for _, n := range named {
			if n.Name == "default" {
				source = n.Template
			}
		}
		if source == "" {
			return nil, errors.New("chat_template lists no template named \"default\"")
		}
	}
	tmpl, err := jinja.Compile(source)
	if err != nil {
		return nil, fmt.Errorf("chat_template: the Jinja engine cannot compile it: %w", err)
	}
	return &ChatTemplate{source: source, tmpl: tmpl, bos: specialContent(cfg.BOS), eos: specialContent(cfg.EOS)}, nil
}

// specialContent reads a special token given as a string or as an
// AddedToken object {"content": ...}.
func specialContent(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.Content
	}
	return ""
}

// Path returns the tokenizer_config.json the template was read from
// (empty for ParseChatTemplate).
func (c *ChatTemplate) Path() string { return c.path }

// Render renders msgs as transformers' apply_chat_template(msgs,
// tokenize=False, add_generation_prompt=addGenerationPrompt) does: the
// template sees messages, add_generation_prompt, bos_token, eos_token and
// raise_exception. The result is the text a server tokenizes, special
// tokens included, without adding any of its own (vLLM's chat endpoint
// encodes it with add_special_tokens=False). A construct the engine does
// not support is an error naming it.
func (c *ChatTemplate) Render(msgs []ChatMessage, addGenerationPrompt bool) (string, error) {
	return c.RenderVars(msgs, addGenerationPrompt, ChatVars{})
}

// ChatVars are further template variables, as keyword arguments to
// apply_chat_template are. They never override messages,
// add_generation_prompt nor the special tokens.
type ChatVars struct {
	Bools   map[string]bool   // e.g. "enable_thinking": false (Qwen3)
	Strings map[string]string // e.g. "reasoning_effort": "low" (gpt-oss)
}

// RenderVars is Render with further template variables.
func (c *ChatTemplate) RenderVars(msgs []ChatMessage, addGenerationPrompt bool, vars ChatVars) (string, error) {
	list := make([]any, len(msgs))
	for i, m := range msgs {
		list[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	data := map[string]any{}
	for k, v := range vars.Bools {
		data[k] = v
	}
	for k, v := range vars.Strings {
		data[k] = v
	}
	data["messages"] = list
	data["add_generation_prompt"] = addGenerationPrompt
	data["bos_token"] = c.bos
	data["eos_token"] = c.eos
	out, err := c.tmpl.Render(data)
	if err != nil {
		return "", fmt.Errorf("tokenize: chat template: %w", err)
	}
	return out, nil
}
