"""Renders model chat templates that no fixture tokenizer ships (Mistral
Nemo, DeepSeek-V3.1, gpt-oss) with transformers'
apply_chat_template, the reference renderer, into golden files that
tokenize/chattemplate_test.go compares the Go renderer with byte for byte.

Each template lives in testdata/tokenizers/chat/templates/NAME/
tokenizer_config.json (its chat_template and special tokens, as the
model's repository ships them). A case the reference refuses (a template's
raise_exception) is written with its error instead of a text. A test-time
tool, never a runtime dependency; same pinned versions as render.py:
    /tmp/venv/bin/python bench/chattemplate/render_templates.py
"""
import gzip, json, os, shutil, tempfile

from transformers import PreTrainedTokenizerFast

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
FILES = os.path.join(ROOT, "testdata", "tokenizers", "files")
TEMPLATES = os.path.join(ROOT, "testdata", "tokenizers", "chat", "templates")

CASES = [
    ("user", [{"role": "user", "content": "Hello, how are you?"}], True),
    ("user-no-generation-prompt", [{"role": "user", "content": "Hello"}], False),
    ("system-user", [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Name three colours.\nOne per line."}], True),
    ("multi-turn", [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "second question"},
        {"role": "assistant", "content": "second answer"},
        {"role": "user", "content": "third question"},
    ], True),
    ("empty-user", [{"role": "user", "content": ""}], True),
    ("unicode", [{"role": "user", "content": "日本語  with  spaces\t<|im_start|> literal"}], True),
]


def main():
    # Any fast tokenizer carries the template; the special tokens come from
    # the template's own config.
    with tempfile.TemporaryDirectory() as tmp:
        with gzip.open(os.path.join(FILES, "qwen3", "tokenizer.json.gz")) as src, open(os.path.join(tmp, "tokenizer.json"), "wb") as dst:
            shutil.copyfileobj(src, dst)
        for name in sorted(os.listdir(TEMPLATES)):
            d = os.path.join(TEMPLATES, name)
            if not os.path.isdir(d):
                continue
            cfg = json.load(open(os.path.join(d, "tokenizer_config.json")))
            special = {k: cfg[k] for k in ("bos_token", "eos_token") if k in cfg}
            tok = PreTrainedTokenizerFast(tokenizer_file=os.path.join(tmp, "tokenizer.json"), **special)
            with open(os.path.join(TEMPLATES, name + ".golden.jsonl"), "w") as out:
                for case, msgs, gen in CASES:
                    row = {"case": case, "messages": msgs, "add_generation_prompt": gen}
                    try:
                        row["text"] = tok.apply_chat_template(msgs, chat_template=cfg["chat_template"], tokenize=False, add_generation_prompt=gen)
                    except Exception as e:  # the template's raise_exception
                        row["error"] = str(e)
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
