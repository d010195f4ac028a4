// node synth.js PATCH BASE_TOKENIZER_JSON_GZ OUT_JSON
const fs = require('fs'), zlib = require('zlib');
const [patchPath, basePath, out] = process.argv.slice(2);
const p = JSON.parse(fs.readFileSync(patchPath, 'utf8'));
const t = JSON.parse(zlib.gunzipSync(fs.readFileSync(basePath)).toString('utf8'));
for (const k of ['normalizer', 'pre_tokenizer', 'post_processor', 'decoder']) if (k in p) t[k] = p[k];
if (p.extra_added_tokens) t.added_tokens = t.added_tokens.concat(p.extra_added_tokens);
fs.writeFileSync(out, JSON.stringify(t));
