"""Renders the chat templates of the fixture tokenizers with transformers'
apply_chat_template, the reference renderer, into golden files that
tokenize/chattemplate_test.go compares the Go renderer with byte for byte.

A test-time tool, never a runtime dependency. Pinned versions:
    python3 -m venv /tmp/venv
    /tmp/venv/bin/pip install transformers==4.57.1 jinja2==3.1.6 tokenizers==0.22.2
    /tmp/venv/bin/python bench/chattemplate/render.py
"""
import gzip, json, os, shutil, tempfile

from transformers import PreTrainedTokenizerFast

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
FILES = os.path.join(ROOT, "testdata", "tokenizers", "files")
OUT = os.path.join(ROOT, "testdata", "tokenizers", "chat")

CASES = [
    ("user", [{"role": "user", "content": "Hello, how are you?"}], True, {}),
    ("user-no-generation-prompt", [{"role": "user", "content": "Hello"}], False, {}),
    ("system-user", [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Name three colours.\nOne per line."}], True, {}),
    ("multi-turn", [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "second question"},
        {"role": "assistant", "content": "second answer"},
        {"role": "user", "content": "third question"},
    ], True, {}),
    ("user-no-thinking", [{"role": "user", "content": "Hello, how are you?"}], True, {"enable_thinking": False}),
    ("multi-turn-no-thinking", [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"},
    ], True, {"enable_thinking": False}),
    ("empty-user", [{"role": "user", "content": ""}], True, {}),
    ("unicode", [{"role": "user", "content": "日本語  with  spaces\t<|im_start|> literal"}], True, {}),
]


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in sorted(os.listdir(FILES)):
        cfg = json.load(open(os.path.join(FILES, name, "tokenizer_config.json")))
        if not cfg.get("chat_template"):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            with gzip.open(os.path.join(FILES, name, "tokenizer.json.gz")) as src, open(os.path.join(tmp, "tokenizer.json"), "wb") as dst:
                shutil.copyfileobj(src, dst)
            shutil.copy(os.path.join(FILES, name, "tokenizer_config.json"), tmp)
            tok = PreTrainedTokenizerFast.from_pretrained(tmp)
            with open(os.path.join(OUT, name + ".golden.jsonl"), "w") as out:
                for case, msgs, gen, extra in CASES:
                    text = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=gen, **extra)
                    ids = tok.apply_chat_template(msgs, tokenize=True, add_generation_prompt=gen, **extra)
                    out.write(json.dumps({"case": case, "messages": msgs, "add_generation_prompt": gen, "vars": extra, "text": text, "tokens": len(ids)}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
