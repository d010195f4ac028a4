// Package tokenize is a pure-Go encoder and decoder for Hugging Face
// tokenizer.json files that gives the same token ids as the official Rust
// `tokenizers` library, id for id, so gollm-bench can count prompt tokens
// and build exact-ISL prompts without cgo.
//
// Load accepts a tokenizer.json path (plain or .json.gz), a directory that
// holds one, or a model id already in the local Hugging Face cache
// ($HF_HOME/hub/models--ORG--NAME/snapshots/*/tokenizer.json; nothing is
// downloaded). LoadContext with WithHub, or Download, fetches a model id's
// tokenizer.json and tokenizer_config.json from the Hub (or a mirror) into
// that cache in huggingface_hub's layout. SHA256 identifies the exact file
// for run metadata; Source and Commit say where it came from.
//
// ChatTemplate renders the chat_template of a tokenizer_config.json (Jinja,
// through github.com/ardanlabs/jinja) as transformers' apply_chat_template
// does, so that a chat prompt's tokens can be counted as a server counts
// them.
//
// Supported: the BPE model (byte-level as in GPT-2, Llama-3, Qwen,
// DeepSeek, GPT-4o and gpt-oss; SentencePiece-style with byte_fallback and
// fuse_unk as in Llama-2, Mistral and Gemma; ignore_merges; both merges
// formats); normalizers NFC, NFD, NFKC, NFKD, Lowercase, Prepend, Replace,
// Strip and Sequence; pre-tokenizers Split, ByteLevel, Metaspace, Digits,
// Whitespace, WhitespaceSplit, Punctuation and Sequence; added tokens with
// lstrip, rstrip, single_word and normalized; post-processors
// TemplateProcessing, ByteLevel, RobertaProcessing, BertProcessing and
// Sequence; decoders ByteLevel, Metaspace, ByteFallback, Fuse, Strip,
// Replace and Sequence. WordPiece, Unigram and WordLevel models are
// rejected with an error naming the type and the file.
//
// Conformance: the tests compare every id against reference ids from the
// Rust library (tokenizers 0.23.2) for three corpora (hand-written edge
// cases, 2,000 fuzz texts, 1 MB of Project Gutenberg prose), with and
// without special tokens, for the Apache-2.0 Qwen3, Mistral-7B and gpt-oss
// vocabularies shipped in testdata. Eight more vocabularies (Llama-3,
// Llama-3.1, Gemma-3, Gemma-1, DeepSeek-V3, GPT-4o, GPT-3.5, Claude) are
// checked when their files are present in $GOLLM_TOKENIZERS_DIR/NAME/
// (their licences keep them out of the repository; README.md, Development,
// says where to get them):
//
//	GOLLM_TOKENIZERS_DIR=/tmp/tok go test ./tokenize -run TestConformanceAll -v
//
// Speed: the Split regexes of the cl100k, Qwen, o200k and GPT-2 families
// run on hand-written scanners proven equal to regexp2 by tests and a fuzz
// target; other regexes run on github.com/dlclark/regexp2. Pre-token ids
// are kept in a bounded, sharded cache (WithCacheSize).
//
// A cgo backend on github.com/daulet/tokenizers is available behind the
// build tag hftokenizers (see NewHF).
package tokenize
