# The Python MCP SDK's Streamable HTTP client on /mcp with the key in API_KEY: lists the tools and calls search, or
# prints the message of the error a refused key gets. Prints one JSON line.
import asyncio
import json
import os
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main() -> None:
    headers = {"Authorization": f"Bearer {os.environ['API_KEY']}"}
    try:
        async with httpx2.AsyncClient(headers=headers) as http:
            async with streamable_http_client(os.environ["MCP_URL"], http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    found = await session.call_tool("search", {"query": sys.argv[1], "limit": 5})
                    print(json.dumps({"tools": [t.name for t in tools.tools], "search": found.structured_content}))
    except Exception as error:  # what a user of the SDK sees
        # The SDK raises inside task groups: the message is in the innermost exception.
        while isinstance(error, BaseExceptionGroup):
            error = error.exceptions[0]
        print(json.dumps({"error": str(error), "type": type(error).__name__}))


asyncio.run(main())
