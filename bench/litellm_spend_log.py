"""The LiteLLM proxy's own spend, one JSON line per request it logged.

Loaded by the proxy from bench/cross-check.sh's config.yaml
(litellm_settings.callbacks: litellm_spend_log.handler). Without a
database the proxy keeps no spend log it can serve (/spend/logs and
/global/spend answer "No db connected"); this callback writes what the
proxy itself computed for each request: its standard logging payload's
response_cost and token counts, to $LITELLM_SPEND_LOG (JSON lines).
"""

import json
import os

from litellm.integrations.custom_logger import CustomLogger


class SpendLog(CustomLogger):
    def __init__(self):
        super().__init__()
        self.path = os.environ.get("LITELLM_SPEND_LOG", "litellm-spend.jsonl")

    def _write(self, kwargs, status):
        p = kwargs.get("standard_logging_object") or {}
        u = (p.get("metadata") or {}).get("usage_object") or {}
        details = u.get("prompt_tokens_details") or {}
        row = {
            "status": status,
            "id": p.get("id"),
            "model_group": p.get("model_group"),
            "stream": p.get("stream"),
            "response_cost": p.get("response_cost"),
            "prompt_tokens": p.get("prompt_tokens"),
            "completion_tokens": p.get("completion_tokens"),
            "cached_tokens": details.get("cached_tokens"),
            "start_time": p.get("startTime"),
            "end_time": p.get("endTime"),
        }
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")

    async def async_log_success_event(self, kwargs, response_obj, start_time, end_time):
        self._write(kwargs, "success")

    async def async_log_failure_event(self, kwargs, response_obj, start_time, end_time):
        self._write(kwargs, "failure")


handler = SpendLog()
