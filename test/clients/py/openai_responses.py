# The openai package's Responses API: create, then retrieve by id and list its input items. Prints one JSON line.
import json
import os
import sys

from openai import OpenAI

client = OpenAI(base_url=os.environ["BASE_URL"], api_key=os.environ["API_KEY"], max_retries=0)
created = client.responses.create(model="service-rag", input=sys.argv[1])
again = client.responses.retrieve(created.id)
items = client.responses.input_items.list(created.id)
print(
    json.dumps(
        {
            "id": created.id,
            "output_text": created.output_text,
            "retrieved": {"id": again.id, "output_text": again.output_text},
            "input_items": [item.model_dump() for item in items.data],
        }
    )
)
