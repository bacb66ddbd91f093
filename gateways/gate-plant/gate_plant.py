"""The regression gate's planted slowdown for LiteLLM's proxy
(results/gate/README.md): a custom callback, loaded by the proxy's
`litellm_settings.callbacks` as LiteLLM's docs describe, whose pre-call hook
runs GATEWAYBENCH_PLANT_WORK rounds of a 32-bit linear congruential step on
every request, on the event loop as the proxy's own code runs. 0 (the A/A
arms): the same hook, no work. LiteLLM's code is not changed."""

import os

from litellm.integrations.custom_logger import CustomLogger

ROUNDS = int(os.environ.get("GATEWAYBENCH_PLANT_WORK", "0"))


class Plant(CustomLogger):
    sink = 1

    async def async_pre_call_hook(self, user_api_key_dict, cache, data, call_type):
        x = self.sink
        for _ in range(ROUNDS):
            x = (x * 1664525 + 1013904223) & 0xFFFFFFFF
        self.sink = x | 1
        return data


plant = Plant()
