package results

import "encoding/json"

// Settings is a run's effective configuration as run.json records it
// (Run.Settings): each setting's flag long name (the key of a
// configuration file) and its value as JSON text. A switch is a JSON
// boolean (true), a number a JSON number (2.5), a list a JSON array of
// strings (["1","2"]), anything else (a duration included) a JSON string
// in the flag's own spelling ("5m0s"). The values are kept as JSON so that
// run.json is read back byte for byte as written.
type Settings map[string]json.RawMessage

// String returns the setting name as a string: a JSON string's text, or
// the JSON text of any other value (true, 2.5); false when the setting is
// not recorded.
func (s Settings) String(name string) (string, bool) {
	raw, ok := s[name]
	if !ok {
		return "", false
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str, true
	}
	return string(raw), true
}

// SetString records the setting name as a JSON string.
func (s Settings) SetString(name, value string) {
	b, _ := json.Marshal(value) // a string always marshals
	s[name] = b
}
