# LlamaIndex's OpenAILike (its default is_chat_model=False: /v1/completions; or is_chat_model=True) and
# OpenAIEmbedding(model_name=...) pointed at the service. Prints one JSON line.
import json
import os
import sys

from llama_index.embeddings.openai import OpenAIEmbedding
from llama_index.llms.openai_like import OpenAILike

base_url, api_key = os.environ["BASE_URL"], os.environ["API_KEY"]

if sys.argv[1] in ("complete", "chat"):
    llm = OpenAILike(api_base=base_url, api_key=api_key, model="service-rag", is_chat_model=sys.argv[1] == "chat", max_retries=0)
    print(json.dumps({"text": llm.complete(sys.argv[2]).text}))
elif sys.argv[1] == "embed":
    embed = OpenAIEmbedding(model_name="service-embed", api_base=base_url, api_key=api_key, max_retries=0)
    texts = embed.get_text_embedding_batch(["Backups run nightly.", "They are kept for 35 days."])
    print(json.dumps({"texts": texts, "query": embed.get_query_embedding("How long are backups kept?")}))
