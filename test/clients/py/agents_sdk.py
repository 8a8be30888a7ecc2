# The OpenAI Agents SDK run against the service as its default client. argv[1]: "readme" (the client is not used
# for tracing, and tracing is off) or "tracing-default" (set_default_openai_client alone); argv[2]: the model, or
# "default" for the SDK's own. Prints one JSON line.
import json
import os
import sys

from agents import Agent, Runner, set_default_openai_client, set_tracing_disabled
from openai import AsyncOpenAI

client = AsyncOpenAI(base_url=os.environ["BASE_URL"], api_key=os.environ["API_KEY"], max_retries=0)
if sys.argv[1] == "readme":
    set_default_openai_client(client, use_for_tracing=False)
    set_tracing_disabled(True)
else:
    set_default_openai_client(client)

model = None if sys.argv[2] == "default" else sys.argv[2]
agent = Agent(name="Memory", instructions="Answer from my documents.", **({"model": model} if model else {}))
result = Runner.run_sync(agent, sys.argv[3])
print(json.dumps({"output": result.final_output}))
