# LangChain's OpenAI classes with only base_url and api_key given (their default models: gpt-3.5-turbo and
# text-embedding-ada-002, whose embeddings are sent as token arrays). Prints one JSON line.
import json
import os
import sys

from langchain_openai import ChatOpenAI, OpenAIEmbeddings

base_url, api_key = os.environ["BASE_URL"], os.environ["API_KEY"]

if sys.argv[1] == "embeddings":
    embeddings = OpenAIEmbeddings(base_url=base_url, api_key=api_key)
    docs = embeddings.embed_documents(["Backups run nightly.", "They are kept for 35 days."])
    query = embeddings.embed_query("How long are backups kept?")
    print(json.dumps({"model": embeddings.model, "documents": docs, "query": query}))
elif sys.argv[1] == "chat":
    chat = ChatOpenAI(base_url=base_url, api_key=api_key, max_retries=0)
    answer = chat.invoke(sys.argv[2])
    print(json.dumps({"model": chat.model_name, "content": answer.content}))
